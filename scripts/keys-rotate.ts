// `npm run keys:rotate`: a new signing key signs from now on; the old one is
// retired but stays published in /.well-known/jwks.json. Against DATABASE_URL,
// or the embedded PGlite database in DATA_DIR (stop the app first: one process
// per directory). Runs with the react-server condition so that `server-only`
// imports resolve. Other processes pick the new key up within seconds.
import 'dotenv/config';
import { config } from '@/lib/server/config';
import { closeDb, db, dbInfo, migrationStatus } from '@/lib/server/db';
import { checkKeyFingerprints } from '@/lib/server/db/key-fingerprints';
import { rotateSigningKey } from '@/lib/server/signing/keys';

async function main(): Promise<void> {
  config(); // a bad variable stops here, named
  const prisma = await db();
  const status = await migrationStatus();
  if (status.pending.length > 0) {
    throw Object.assign(
      new Error(
        `the database is missing migrations ${status.pending.join(', ')}: run \`npm run db:migrate\` first`,
      ),
      { code: 'migrations_pending' },
    );
  }
  // The private key is stored encrypted: with the APP_ENCRYPTION_KEY every
  // other process holds, or none of them could read it.
  await checkKeyFingerprints(prisma, ['APP_ENCRYPTION_KEY']);
  const { kid, retired } = await rotateSigningKey(prisma, { kind: 'cli' });
  console.log(`Rotated the signing key on ${dbInfo().kind} ${dbInfo().location}.`);
  console.log(`  active:  ${kid}`);
  for (const old of retired) console.log(`  retired: ${old} (still published for verification)`);
}

main().then(
  async () => {
    await closeDb();
    process.exit(0);
  },
  async (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    const message = err instanceof Error ? err.message : String(err);
    console.error(typeof code === 'string' ? `keys:rotate failed [${code}]: ${message}` : message);
    await closeDb().catch(() => {});
    process.exit(1);
  },
);
