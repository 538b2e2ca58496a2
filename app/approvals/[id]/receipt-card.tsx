import { Card } from '@/app/components/page-header';
import { decodeReceipt, receiptOrNull } from '@/lib/server/receipts';
import { VerifyReceipt } from './verify-receipt';

/**
 * The decision's signed receipt (issue 13): its claims as signed, the key
 * that signed them, a server-side "Verify" against the published JWKS and
 * the JWS to download for verification elsewhere (docs/receipts.md). A
 * receipt missing from the row is issued here, on first read.
 */
export async function ReceiptCard({ ticketId }: { ticketId: string }) {
  const jws = await receiptOrNull(ticketId);
  if (!jws) {
    return (
      <Card title="Signed receipt">
        <p className="text-sm text-slate-600" data-testid="receipt-missing">
          No receipt could be issued just now (the signing key is unavailable); it will be on a
          later visit.
        </p>
      </Card>
    );
  }
  const decoded = decodeReceipt(jws);
  const c = decoded?.claims;
  const rows: [string, string][] = c
    ? [
        ['Outcome', c.outcome],
        [
          'Decider',
          [c.decider.kind, c.decider.email ?? c.decider.user_id].filter(Boolean).join(' · '),
        ],
        ['Authenticated by', c.decider.auth],
        ['Decided at', c.decided_at],
        ['Context identity', c.context_identity ?? 'null'],
        ...(c.transform
          ? ([['Edit', `${c.transform.path} (value SHA-256 ${c.transform.value_sha256})`]] as [
              string,
              string,
            ][])
          : []),
        ['Request id', c.request_id ?? '—'],
        ['Issuer', c.iss],
        ['Key id (kid)', decoded?.kid ?? '—'],
      ]
    : [];
  return (
    <Card title="Signed receipt">
      <div className="space-y-3 text-sm" data-testid="receipt">
        <p className="text-slate-600">
          Checkpoint signed this record of the decision (EdDSA). Anyone with the public keys at{' '}
          <a className="text-indigo-700 hover:underline" href="/.well-known/jwks.json">
            /.well-known/jwks.json
          </a>{' '}
          can check it; the edited value appears only as its hash.
        </p>
        <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-1">
          {rows.map(([label, value]) => (
            <div key={label} className="contents">
              <dt className="text-slate-500">{label}</dt>
              <dd className="break-all font-mono text-xs text-slate-800">{value}</dd>
            </div>
          ))}
        </dl>
        <div className="flex flex-wrap items-start gap-3">
          <VerifyReceipt ticketId={ticketId} />
          <a
            className="text-sm text-indigo-700 hover:underline"
            href={`/api/v1/approvals/${ticketId}/receipt`}
            download={`receipt-${ticketId}.jws`}
            data-testid="receipt-download"
          >
            Download receipt (JWS)
          </a>
        </div>
      </div>
    </Card>
  );
}
