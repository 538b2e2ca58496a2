import type { Metadata } from 'next';
import { Card, PageHeader } from '@/app/components/page-header';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { listWitnesses } from '@/lib/server/transparency/witnesses';
import { RegisterWitness, RemoveWitness } from './forms';

export const metadata: Metadata = { title: 'Witnesses' };

/** Admin-only: where every signed tree head is sent, and how the sending goes. */
export default async function WitnessesPage() {
  await requireUser('admin');
  const witnesses = await listWitnesses(await db());
  const now = new Date().toISOString();
  return (
    <>
      <PageHeader
        title="Witnesses"
        description="Every signed tree head is POSTed to each witness, so a copy exists outside this database. The log verifier checks that the log still extends every head a witness acknowledged."
      />
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_24rem]">
        <div>
          {witnesses.length === 0 ? (
            <Card>
              <p className="text-sm text-slate-500">No witness yet.</p>
            </Card>
          ) : (
            <Table caption="Witnesses">
              <thead>
                <tr>
                  <Th>URL</Th>
                  <Th>Heads acknowledged</Th>
                  <Th>Waiting</Th>
                  <Th>Last attempt</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </tr>
              </thead>
              <tbody>
                {witnesses.map((w) => (
                  <tr key={w.id} data-witness={w.url}>
                    <Td className="break-all font-mono text-xs">{w.url}</Td>
                    <Td>
                      {w.acknowledged}
                      {w.lastAcknowledgedSize !== null ? (
                        <span className="block text-xs text-slate-500">
                          up to size {w.lastAcknowledgedSize}
                        </span>
                      ) : null}
                    </Td>
                    <Td>{w.pending}</Td>
                    <Td>
                      {w.lastAttemptAt ? (
                        <Time value={w.lastAttemptAt.toISOString()} now={now} />
                      ) : (
                        '—'
                      )}
                      {w.lastError ? (
                        <span className="block text-xs text-red-700" data-testid="witness-error">
                          {w.lastError} ({w.consecutiveFailures} failed in a row; retried)
                        </span>
                      ) : null}
                    </Td>
                    <Td>
                      <RemoveWitness id={w.id} />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </div>
        <Card title="Register a witness">
          <RegisterWitness />
        </Card>
      </div>
    </>
  );
}
