import type { Metadata } from 'next';
import { Card, PageHeader } from '@/app/components/page-header';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import { requireUser } from '@/lib/server/auth/session';
import { config } from '@/lib/server/config';
import { db } from '@/lib/server/db';
import { unauthenticSigningKeys } from '@/lib/server/signing/authentic';
import { listSigningKeys } from '@/lib/server/signing/keys';
import { RotateSigningKey } from './rotate-form';

export const metadata: Metadata = { title: 'Signing keys' };

function creator(createdBy: string): string {
  if (createdBy === 'system') return 'generated at first start';
  if (createdBy === 'SIGNING_KEY') return 'from SIGNING_KEY';
  if (createdBy === 'cli') return 'npm run keys:rotate';
  return 'rotated by an admin';
}

/** Admin-only: the keys that sign receipts and tree heads, and their rotation. */
export default async function SigningKeysPage() {
  await requireUser('admin');
  const prisma = await db();
  const [keys, unauthentic] = await Promise.all([
    listSigningKeys(prisma),
    unauthenticSigningKeys(prisma),
  ]);
  // A row planted with a database shell is listed (it is there) but says what it is.
  const notAuthentic = new Map(unauthentic.map((k) => [k.kid, k.reason]));
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader
        title="Signing keys"
        description="Approval receipts and tree heads are signed with the active Ed25519 key. Retired keys stay published at /.well-known/jwks.json, so everything they signed still verifies."
      />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_24rem]">
        <div>
          {keys.length === 0 ? (
            <Card>
              <p className="text-sm text-slate-500">
                No key yet: one is generated when the app starts.
              </p>
            </Card>
          ) : (
            <Table caption="Signing keys">
              <thead>
                <tr>
                  <Th>Key id (kid)</Th>
                  <Th>State</Th>
                  <Th>Created</Th>
                  <Th>Retired</Th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr
                    key={k.kid}
                    data-kid={k.kid}
                    data-state={
                      notAuthentic.has(k.kid) ? 'not-authentic' : k.retiredAt ? 'retired' : 'active'
                    }
                  >
                    <Td className="font-mono text-xs break-all">{k.kid}</Td>
                    <Td>
                      {notAuthentic.has(k.kid) ? (
                        <span className="text-red-700">
                          <strong>not authentic</strong>
                          <span className="block text-xs">
                            {notAuthentic.get(k.kid)}: neither published nor trusted
                          </span>
                        </span>
                      ) : k.retiredAt ? (
                        'retired'
                      ) : (
                        <strong>active</strong>
                      )}
                    </Td>
                    <Td>
                      <Time value={k.createdAt.toISOString()} now={now} />
                      <span className="block text-xs text-slate-500">{creator(k.createdBy)}</span>
                    </Td>
                    <Td>
                      {k.retiredAt ? <Time value={k.retiredAt.toISOString()} now={now} /> : '—'}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </div>
        <Card title="Rotate">
          <div className="space-y-3">
            <RotateSigningKey fromEnv={Boolean(config().SIGNING_KEY)} />
            <p className="text-xs text-slate-500">
              Also from a shell: <code className="font-mono">npm run keys:rotate</code>. Verifiers
              fetch{' '}
              <a className="underline" href="/.well-known/jwks.json">
                /.well-known/jwks.json
              </a>{' '}
              (cached up to five minutes).
            </p>
          </div>
        </Card>
      </div>
    </>
  );
}
