import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';
import { db, dbTarget } from '@/lib/server/db';
import { openDatabase } from '@/lib/server/db/open';
import { ReplicaRouter, type ReplicaState, replicaSlot } from '@/lib/server/db/replica';
import { moduleLogger } from '@/lib/server/logger';

/**
 * Where audit reads go (DATABASE_REPLICA_URL, db/replica.ts). Apart from
 * db.ts, which must not load the logger when it is merely imported.
 */

function replica(): ReplicaRouter {
  if (!replicaSlot.__checkpointReplica) {
    const cfg = config();
    const primary = dbTarget();
    const log = moduleLogger('db-replica');
    replicaSlot.__checkpointReplica = new ReplicaRouter({
      target:
        cfg.DATABASE_REPLICA_URL && primary.kind === 'postgres'
          ? { kind: 'postgres', url: cfg.DATABASE_REPLICA_URL, limits: primary.limits }
          : undefined,
      open: (target) => openDatabase(target),
      primary: db,
      onChange: (state) => {
        if (state === 'ok') log.info('audit reads use the read replica');
        else
          log.warn(
            { code: 'replica_unreachable' },
            'read replica unreachable: audit reads use the primary',
          );
      },
    });
  }
  return replicaSlot.__checkpointReplica;
}

/**
 * The client for audit reads that tolerate replication lag (search,
 * timelines, exports, overview): the read replica when DATABASE_REPLICA_URL
 * is set and it answers, else the primary.
 */
export function auditDb(): Promise<PrismaClient> {
  return replica().client();
}

/** Whether audit reads are served by a replica (for /api/ready). */
export function replicaStatus(): Promise<ReplicaState> {
  return replica().status();
}
