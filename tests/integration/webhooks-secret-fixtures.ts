import { testDb } from './helpers/db';
import { Receiver } from './webhooks-fixtures';

/** Fixtures of the multi-process webhook tests (issue 17). */

const approve = (req: { context_identity: string | null }) => ({
  outcome: 'approve',
  context_identity: req.context_identity,
  verdict: { decision: 'allow' },
});

/** A resolver service that passes the self-test and approves real requests. */
export function resolverService() {
  return new Receiver((r) => {
    const req = JSON.parse(r.body);
    if (r.headers['webhook-test'] === 'true') {
      const c = r.headers['webhook-test-case'];
      const outcome = c === 'identity_echo' ? 'unresolved' : c;
      const verdict =
        outcome === 'approve'
          ? { decision: 'allow' }
          : outcome === 'reject'
            ? { decision: 'deny', reason: 'policy:no', message: 'no' }
            : undefined;
      return {
        status: 200,
        body: JSON.stringify({ outcome, context_identity: req.context_identity, verdict }),
      };
    }
    return { status: 200, body: JSON.stringify(approve(req)) };
  });
}

/** Flips one character of the ciphertext of every stored secret of the webhook. */
export async function corruptSecrets(webhookId: string) {
  const prisma = await testDb();
  for (const s of await prisma.webhookSecret.findMany({ where: { webhookId } })) {
    const parts = s.secret.split(':');
    const ct = parts[3];
    parts[3] = (ct[0] === 'A' ? 'B' : 'A') + ct.slice(1);
    await prisma.webhookSecret.update({ where: { id: s.id }, data: { secret: parts.join(':') } });
  }
}
