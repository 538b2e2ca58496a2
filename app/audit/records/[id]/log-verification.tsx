import { describeTreeHead, FindingBadges } from '@/app/audit/sessions/[id]/chain-status';
import { Card } from '@/app/components/page-header';
import type { RecordIntegrity } from '@/lib/server/audit/integrity';

/**
 * The record against the transparency log (issue 13 item 4): its leaf, and
 * the inclusion proof that leads from it to a verified signed tree head, or
 * what failed, in words.
 */
export function LogVerification({ integrity }: { integrity: RecordIntegrity | { error: string } }) {
  if ('error' in integrity) {
    return (
      <Card title="Transparency log">
        <p className="text-sm text-slate-700" data-testid="log-verification" data-state="unknown">
          {integrity.error}
        </p>
      </Card>
    );
  }
  const { leafIndex, treeHead, proof, findings } = integrity;
  return (
    <Card title="Transparency log">
      <div
        className="space-y-1 text-sm text-slate-800"
        data-testid="log-verification"
        data-state={integrity.ok ? (proof ? 'ok' : 'pending') : 'failed'}
        role={integrity.ok ? undefined : 'alert'}
      >
        <p>
          Leaf index:{' '}
          {leafIndex === null ? (
            <span className="text-slate-500">not in the log</span>
          ) : (
            <span className="font-mono">{leafIndex}</span>
          )}
        </p>
        {proof && treeHead && (
          <p className="text-emerald-800">
            <span className="font-semibold">✓ Inclusion proof verified</span> against{' '}
            {describeTreeHead(treeHead)}: {proof.path.length}{' '}
            {proof.path.length === 1 ? 'hash' : 'hashes'} from leaf hash{' '}
            <code className="font-mono text-xs">{proof.leafHash.slice(0, 16)}…</code> to its root.
          </p>
        )}
        <FindingBadges findings={findings} id="record-findings" />
      </div>
    </Card>
  );
}
