import { Table, Td, Th } from './table';
import { Time } from './time';

/** One audit event about the entity a page shows; `note` is secret-free detail. */
export type ChangeEvent = {
  id: string;
  createdAt: Date;
  action: string;
  actorEmail: string | null;
  actorKind: string;
  note?: string | null;
};

/** The "Recent changes" table of an admin detail page: when, what and who. */
export function ChangeHistory({
  subject,
  events,
  now,
  empty,
}: {
  /** Names the entity in the table caption. */
  subject: string;
  events: ChangeEvent[];
  now: string;
  /** Said instead of an empty table. */
  empty: string;
}) {
  return (
    <>
      <h2 className="mb-2 mt-8 text-sm font-semibold text-slate-800">Recent changes</h2>
      {events.length === 0 ? (
        <p className="text-sm text-slate-500">{empty}</p>
      ) : (
        <Table caption={`Recent changes to ${subject}`}>
          <thead>
            <tr>
              <Th>When</Th>
              <Th>Change</Th>
              <Th>By</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {events.map((e) => (
              <tr key={e.id}>
                <Td className="whitespace-nowrap">
                  <Time value={e.createdAt.toISOString()} now={now} />
                </Td>
                <Td>
                  <code className="text-xs">{e.action}</code>
                  {e.note && <span className="ml-2 text-xs text-slate-500">{e.note}</span>}
                </Td>
                <Td>{e.actorEmail ?? e.actorKind}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
