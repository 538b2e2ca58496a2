// `npm run db:migrate`: applies prisma/migrations offline to DATABASE_URL,
// or to the embedded PGlite database in DATA_DIR when DATABASE_URL is unset.
// Runs with the react-server condition so that `server-only` imports resolve.
import 'dotenv/config';
import { config } from '@/lib/server/config';
import { dbTarget } from '@/lib/server/db';
import { migrateTarget } from '@/lib/server/db/migrate-target';
import { describeTarget, permissionsFixedMessage } from '@/lib/server/db/open';

async function main(): Promise<number> {
  config(); // a bad variable stops here, named
  const target = dbTarget();
  console.log(`Migrating ${target.kind} database at ${describeTarget(target)}`);
  const result = await migrateTarget(target);
  if (result.permissionsFixed > 0) console.log(permissionsFixedMessage(result.permissionsFixed));
  for (const name of result.applied) console.log(`  applied ${name}`);
  if (result.unknown.length > 0) {
    console.warn(
      `  warning: applied in the database but not in prisma/migrations (a newer version?): ${result.unknown.join(', ')}`,
    );
  }
  const total = result.applied.length + result.alreadyApplied.length;
  console.log(
    result.applied.length > 0
      ? `Applied ${result.applied.length} migration(s); ${total} in total.`
      : `Already up to date (${total} migration(s) applied).`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    const message = err instanceof Error ? err.message : String(err);
    console.error(typeof code === 'string' ? `db:migrate failed [${code}]: ${message}` : message);
    process.exit(1);
  },
);
