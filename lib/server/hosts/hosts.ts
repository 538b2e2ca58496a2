import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import { db } from '@/lib/server/db';
import { AppError, notFound } from '@/lib/server/http/api-error';
import { isErrorCode, statusOf } from '@/lib/server/http/error-codes';
import {
  auditHost,
  type HostActorId,
  isUuid,
  lockHost,
  requireHostAdmin,
  type Tx,
} from './admin-actor';
import { BUILT_IN_HOST_NAME } from './builtin';
import {
  checkDescription,
  checkHostName,
  checkRedactionPaths,
  checkTimeout,
  checkTimeoutOrder,
  type FieldErrors,
} from './host-input';

/**
 * Host services. Changes take the acting admin's user id (see
 * admin-actor.ts), validate everything before writing, and write one
 * AuditEvent in the same transaction. Reads need no actor: pages check
 * the area, and host-scoped callers pass the HostPrincipal's own hostId.
 */

export type HostSummary = {
  id: string;
  name: string;
  description: string;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  redactionPaths: string[];
  builtIn: boolean;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
};

export type HostListItem = HostSummary & { activeKeys: number; lastUsedAt: Date | null };

/** What the approval intake needs from a host. */
export type HostSettings = {
  id: string;
  name: string;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  redactionPaths: string[];
  builtIn: boolean;
  archived: boolean;
};

/**
 * Fields an admin sets. Timeouts are milliseconds (number) or a human
 * duration ("15m"); redaction paths a list or one path per line.
 * `undefined` leaves a field as it is (updates).
 */
export type HostInput = {
  name?: unknown;
  description?: unknown;
  defaultTimeoutMs?: unknown;
  maxTimeoutMs?: unknown;
  redactionPaths?: unknown;
};

const DEFAULT_TIMEOUT_MS = 15 * 60_000;
const MAX_TIMEOUT_MS = 86_400_000;

const summarySelect = {
  id: true,
  name: true,
  description: true,
  defaultTimeoutMs: true,
  maxTimeoutMs: true,
  redactionPaths: true,
  builtIn: true,
  createdAt: true,
  updatedAt: true,
  archivedAt: true,
} as const satisfies Prisma.HostSelect;

/**
 * Field errors as one AppError: the code is a conflicting field's (409) if
 * there is one, else the first field's, so each code keeps its one status.
 */
function fieldsError(fields: FieldErrors): AppError {
  const all = Object.values(fields);
  const first = all.find((f) => isErrorCode(f.code) && statusOf(f.code) === 409) ?? all[0];
  const code = first && isErrorCode(first.code) ? first.code : 'request_invalid';
  return new AppError(code, first?.message ?? 'Invalid input.', { fields });
}

function nameTaken(): AppError {
  return fieldsError({
    name: { code: 'host_name_taken', message: 'Another host already has this name.' },
  });
}

/** Names compare case-insensitively, and the built-in host's name is reserved. */
async function checkNameFree(tx: Tx, name: string, exceptId?: string): Promise<void> {
  if (name.toLowerCase() === BUILT_IN_HOST_NAME) {
    throw fieldsError({
      name: {
        code: 'host_name_reserved',
        message: `"${BUILT_IN_HOST_NAME}" is the built-in host's name.`,
      },
    });
  }
  const clash = await tx.host.findFirst({
    where: {
      name: { equals: name, mode: 'insensitive' },
      ...(exceptId ? { NOT: { id: exceptId } } : {}),
    },
    select: { id: true },
  });
  if (clash) throw nameTaken();
}

/** The unique index still catches a race between two creates. */
function mapUniqueViolation(err: unknown): never {
  if ((err as { code?: string })?.code === 'P2002') throw nameTaken();
  throw err;
}

/** Registers a host. Admin only. */
export async function createHost(input: HostInput, actorId: HostActorId): Promise<HostSummary> {
  const fields: FieldErrors = {};
  const name = checkHostName(input.name, fields);
  const description = checkDescription(input.description, fields);
  const defaultTimeoutMs = checkTimeout(
    input.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    'defaultTimeout',
    fields,
  );
  const maxTimeoutMs = checkTimeout(input.maxTimeoutMs ?? MAX_TIMEOUT_MS, 'maxTimeout', fields);
  checkTimeoutOrder(defaultTimeoutMs, maxTimeoutMs, fields);
  const redactionPaths = checkRedactionPaths(input.redactionPaths ?? [], fields);
  const prisma = await db();
  return prisma
    .$transaction(async (tx) => {
      await requireHostAdmin(tx, actorId);
      if (Object.keys(fields).length) throw fieldsError(fields);
      await checkNameFree(tx, name);
      const host = await tx.host.create({
        data: { name, description, defaultTimeoutMs, maxTimeoutMs, redactionPaths },
        select: summarySelect,
      });
      await auditHost(tx, actorId, 'host.created', host.id, {
        name,
        defaultTimeoutMs,
        maxTimeoutMs,
        redactionPaths,
      });
      return host;
    })
    .catch(mapUniqueViolation);
}

/**
 * Changes a host's settings. Admin only. The built-in host keeps its name.
 * Saving the same values writes nothing and audits nothing.
 */
export async function updateHost(
  hostId: string,
  input: HostInput,
  actorId: HostActorId,
): Promise<HostSummary> {
  const prisma = await db();
  return prisma
    .$transaction(async (tx) => {
      await requireHostAdmin(tx, actorId);
      const host = await lockHost(tx, hostId);
      const fields: FieldErrors = {};
      const name = input.name === undefined ? host.name : checkHostName(input.name, fields);
      const description =
        input.description === undefined
          ? host.description
          : checkDescription(input.description, fields);
      const defaultTimeoutMs =
        input.defaultTimeoutMs === undefined
          ? host.defaultTimeoutMs
          : checkTimeout(input.defaultTimeoutMs, 'defaultTimeout', fields);
      const maxTimeoutMs =
        input.maxTimeoutMs === undefined
          ? host.maxTimeoutMs
          : checkTimeout(input.maxTimeoutMs, 'maxTimeout', fields);
      checkTimeoutOrder(defaultTimeoutMs, maxTimeoutMs, fields);
      const redactionPaths =
        input.redactionPaths === undefined
          ? host.redactionPaths
          : checkRedactionPaths(input.redactionPaths, fields);
      if (host.builtIn && !fields.name && name !== host.name) {
        fields.name = {
          code: 'builtin_host_name_fixed',
          message: 'The built-in host keeps its name.',
        };
      }
      if (Object.keys(fields).length) {
        throw fieldsError(fields);
      }
      if (name !== host.name) await checkNameFree(tx, name, host.id);
      const next = { name, description, defaultTimeoutMs, maxTimeoutMs, redactionPaths };
      const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
        (k) => JSON.stringify(next[k]) !== JSON.stringify(host[k]),
      );
      if (changed.length === 0) return pick(host);
      const updated = await tx.host.update({
        where: { id: host.id },
        data: next,
        select: summarySelect,
      });
      const from: Record<string, Prisma.InputJsonValue> = {};
      const to: Record<string, Prisma.InputJsonValue> = {};
      for (const k of changed) {
        from[k] = host[k];
        to[k] = next[k];
      }
      await auditHost(tx, actorId, 'host.updated', host.id, { changed, from, to });
      return updated;
    })
    .catch(mapUniqueViolation);
}

/** Archives a host: its keys stop authenticating at once. Not the built-in host. */
export async function archiveHost(hostId: string, actorId: HostActorId): Promise<HostSummary> {
  return setArchived(hostId, actorId, true);
}

/** Brings an archived host back; its unrevoked keys work again. */
export async function restoreHost(hostId: string, actorId: HostActorId): Promise<HostSummary> {
  return setArchived(hostId, actorId, false);
}

async function setArchived(
  hostId: string,
  actorId: HostActorId,
  archive: boolean,
): Promise<HostSummary> {
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    await requireHostAdmin(tx, actorId);
    const host = await lockHost(tx, hostId);
    if (archive && host.builtIn) {
      throw new AppError('builtin_host_not_archivable', 'The built-in host cannot be archived.');
    }
    if (Boolean(host.archivedAt) === archive) return pick(host);
    const updated = await tx.host.update({
      where: { id: host.id },
      data: { archivedAt: archive ? new Date() : null },
      select: summarySelect,
    });
    await auditHost(tx, actorId, archive ? 'host.archived' : 'host.restored', host.id, {
      name: host.name,
    });
    return updated;
  });
}

function pick(host: HostSummary): HostSummary {
  const out = {} as Record<string, unknown>;
  for (const k of Object.keys(summarySelect)) out[k] = host[k as keyof HostSummary];
  return out as HostSummary;
}

/** Every host, built-in first, then by name; archived hosts included (marked). */
export async function listHosts(): Promise<HostListItem[]> {
  const prisma = await db();
  const [hosts, keys] = await Promise.all([
    prisma.host.findMany({
      select: summarySelect,
      orderBy: [{ builtIn: 'desc' }, { name: 'asc' }],
    }),
    prisma.apiKey.groupBy({
      by: ['hostId'],
      where: { revokedAt: null },
      _count: { _all: true },
      _max: { lastUsedAt: true },
    }),
  ]);
  const byHost = new Map(keys.map((k) => [k.hostId, k]));
  return hosts.map((h) => ({
    ...h,
    activeKeys: byHost.get(h.id)?._count._all ?? 0,
    lastUsedAt: byHost.get(h.id)?._max.lastUsedAt ?? null,
  }));
}

/** One host; 404 `not_found` for unknown or malformed ids. */
export async function getHost(hostId: string): Promise<HostSummary> {
  const prisma = await db();
  const host = isUuid(hostId)
    ? await prisma.host.findUnique({ where: { id: hostId }, select: summarySelect })
    : null;
  if (!host) throw notFound('The host');
  return host;
}

/** The settings the approval intake applies (deadlines, redaction). */
export async function getHostSettings(hostId: string): Promise<HostSettings> {
  const h = await getHost(hostId);
  return {
    id: h.id,
    name: h.name,
    defaultTimeoutMs: h.defaultTimeoutMs,
    maxTimeoutMs: h.maxTimeoutMs,
    redactionPaths: h.redactionPaths,
    builtIn: h.builtIn,
    archived: h.archivedAt !== null,
  };
}

export type HostEvent = {
  id: string;
  action: string;
  actorEmail: string | null;
  actorKind: string;
  details: Prisma.JsonValue;
  createdAt: Date;
};

/** The latest changes to a host and its keys (from AuditEvent). */
export async function listHostEvents(hostId: string, take = 20): Promise<HostEvent[]> {
  if (!isUuid(hostId)) return [];
  const prisma = await db();
  const rows = await prisma.auditEvent.findMany({
    where: { targetType: 'host', targetId: hostId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
    select: {
      id: true,
      action: true,
      actorKind: true,
      details: true,
      createdAt: true,
      actor: { select: { email: true } },
    },
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    action: r.action,
    actorKind: r.actorKind,
    actorEmail: r.actor?.email ?? null,
    details: r.details,
    createdAt: r.createdAt,
  }));
}
