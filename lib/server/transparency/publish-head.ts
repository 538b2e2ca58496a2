import 'server-only';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';
import { jobDefinitions } from '@/lib/server/jobs/definitions';
import { moduleLogger } from '@/lib/server/logger';
import { enqueueInTx, nudgeRelay } from '@/lib/server/queue/outbox';
import type { TreeHead } from './tree-head';

/**
 * Copies of every signed tree head outside the database (issue 13 item 4),
 * made by the process that issues the head, right after it is stored:
 * - one JSON line `{size, root_hash, timestamp, kid, jws}` appended to the
 *   local file TREE_HEAD_FILE (default `<DATA_DIR>/tree-heads.jsonl`);
 * - for every enabled witness, a WitnessHead row (what was sent) and a
 *   `witness.notify` job that POSTs it (witnesses.ts).
 * The verifier checks the log against both. A failure here never undoes
 * the head: it is logged, and the next head is copied again.
 */

const log = moduleLogger('tree-head-copies');

/** TREE_HEAD_FILE, else `<DATA_DIR>/tree-heads.jsonl`. */
export function treeHeadFilePath(): string {
  const cfg = config();
  return cfg.TREE_HEAD_FILE
    ? path.resolve(cfg.TREE_HEAD_FILE)
    : path.join(cfg.dataDir, 'tree-heads.jsonl');
}

export function headLine(head: TreeHead): string {
  const { size, root_hash, timestamp, kid, jws } = head;
  return `${JSON.stringify({ size, root_hash, timestamp, kid, jws })}\n`;
}

/** Appends the head to the local file (synchronously: one short line, O_APPEND). */
export function appendHeadToFile(head: TreeHead, file = treeHeadFilePath()): void {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, headLine(head), { encoding: 'utf8', mode: 0o600 });
}

/** Records what each enabled witness is sent and queues the sending; returns how many. */
export async function queueWitnessNotifications(
  prisma: PrismaClient,
  head: TreeHead,
): Promise<number> {
  const witnesses = await prisma.witness.findMany({
    where: { enabled: true },
    select: { id: true },
  });
  if (witnesses.length === 0) return 0;
  await prisma.$transaction(async (tx) => {
    await tx.witnessHead.createMany({
      data: witnesses.map((w) => ({
        witnessId: w.id,
        size: BigInt(head.size),
        rootHash: head.root_hash,
        jws: head.jws,
      })),
      skipDuplicates: true,
    });
    for (const w of witnesses) {
      await enqueueInTx(tx, {
        kind: 'witness.notify',
        payload: { witnessId: w.id, size: head.size },
        dedupeKey: jobDefinitions['witness.notify'].dedupeKey(w.id, head.size),
      });
    }
  });
  nudgeRelay();
  return witnesses.length;
}

/** Both copies of a head this process just stored; never throws. */
export async function publishTreeHead(prisma: PrismaClient, head: TreeHead): Promise<void> {
  try {
    appendHeadToFile(head);
  } catch (err) {
    log.error(
      { err: err instanceof Error ? err.message : String(err), size: head.size },
      'could not append the tree head to the local tree-head file',
    );
  }
  try {
    await queueWitnessNotifications(prisma, head);
  } catch (err) {
    log.error(
      { err: err instanceof Error ? err.message : String(err), size: head.size },
      'could not queue the tree head for the witnesses',
    );
  }
}
