import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuiltInHost } from '@/lib/server/hosts/builtin';
import { ApiError } from '@/lib/server/http/api-error';
import {
  archiveHost,
  createHost,
  getHostSettings,
  issueApiKey,
  listApiKeys,
  listHostEvents,
  listHosts,
  revokeApiKey,
  updateHost,
} from '@/lib/server/hosts';
import { closeTestDb, testDb, truncateAll } from './helpers/db';

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** Everything a refused change must leave as it was. */
async function snapshot() {
  const prisma = await testDb();
  return {
    hosts: await prisma.host.findMany({ orderBy: { name: 'asc' } }),
    keys: await prisma.apiKey.findMany({ orderBy: { id: 'asc' } }),
    events: await prisma.auditEvent.count(),
  };
}

describe('host and API key services', () => {
  let adminId: string;
  let reviewerId: string;
  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    adminId = (await prisma.user.create({ data: { email: 'a@example.com', roles: ['admin'] } })).id;
    reviewerId = (
      await prisma.user.create({ data: { email: 'r@example.com', roles: ['reviewer'] } })
    ).id;
  });
  afterAll(closeTestDb);

  it('an admin registers a host with human timeouts and redaction paths; intake reads its settings', async () => {
    const host = await createHost(
      {
        name: ' billing-agent ',
        description: 'Pays invoices',
        defaultTimeoutMs: '15m',
        maxTimeoutMs: '2h 30m',
        redactionPaths: '$target.args.password\n\n$target["api-key"]\n$target.args.password\n',
      },
      adminId,
    );
    expect(await getHostSettings(host.id)).toEqual({
      id: host.id,
      name: 'billing-agent',
      defaultTimeoutMs: 15 * 60_000,
      maxTimeoutMs: 150 * 60_000,
      redactionPaths: ['$target.args.password', '$target.api-key'],
      builtIn: false,
      archived: false,
    });
    const [event] = await listHostEvents(host.id);
    expect(event).toMatchObject({ action: 'host.created', actorEmail: 'a@example.com' });
  });

  it('§5.2: a bad redaction path is refused naming its line, and nothing changes', async () => {
    const host = await createHost({ name: 'h', redactionPaths: ['$target.a'] }, adminId);
    const before = await snapshot();
    for (const [paths, pattern] of [
      ['$target.ok\n$policy.x', /Line 2 \(\$policy\.x\).*\$target/],
      ['$target.ok\n\n$target..x', /Line 3 \(\$target\.\.x\)/],
      // path-grammar.abnf: no escapes, so a key with a space cannot be addressed.
      ['$target["api key"]', /Line 1 .*offset 12.*U\+0020/],
      ['$policy_target.x', /Line 1.*deprecated/],
    ] as const) {
      const err = await refusal(updateHost(host.id, { redactionPaths: paths }, adminId));
      expect(err.status).toBe(400);
      expect(err.code).toBe('redaction_path_invalid');
      const fields = (err.details as { fields: Record<string, { message: string }> }).fields;
      expect(fields.redactionPaths.message).toMatch(pattern);
    }
    await refusal(createHost({ name: 'h2', redactionPaths: 'target.x' }, adminId));
    expect(await snapshot()).toEqual(before);
  });

  it('timeouts: bounds 10 s … 7 days, default ≤ max, unreadable text refused; nothing changes', async () => {
    const host = await createHost({ name: 'h' }, adminId);
    const before = await snapshot();
    const cases = [
      [{ defaultTimeoutMs: '5s' }, 'defaultTimeout', 'timeout_out_of_range'],
      [{ maxTimeoutMs: '8d' }, 'maxTimeout', 'timeout_out_of_range'],
      [{ maxTimeoutMs: 'soon' }, 'maxTimeout', 'timeout_invalid'],
      [
        { defaultTimeoutMs: '2d', maxTimeoutMs: '1d' },
        'defaultTimeout',
        'default_timeout_above_max',
      ],
      [{ defaultTimeoutMs: '2d' }, 'defaultTimeout', 'default_timeout_above_max'],
    ] as const;
    for (const [input, field, code] of cases) {
      const err = await refusal(updateHost(host.id, input, adminId));
      const fields = (err.details as { fields: Record<string, { code: string }> }).fields;
      expect(fields[field]?.code, JSON.stringify(input)).toBe(code);
    }
    expect(await snapshot()).toEqual(before);
    const ok = await updateHost(host.id, { defaultTimeoutMs: '10s', maxTimeoutMs: '7d' }, adminId);
    expect([ok.defaultTimeoutMs, ok.maxTimeoutMs]).toEqual([10_000, 7 * 86_400_000]);
  });

  it('a reviewer is refused with 403 for every change, and nothing changes', async () => {
    const host = await createHost({ name: 'h' }, adminId);
    const { apiKey } = await issueApiKey(host.id, 'k', adminId);
    const before = await snapshot();
    const attempts = [
      () => createHost({ name: 'x' }, reviewerId),
      () => updateHost(host.id, { name: 'renamed' }, reviewerId),
      () => archiveHost(host.id, reviewerId),
      () => issueApiKey(host.id, 'k2', reviewerId),
      () => revokeApiKey(apiKey.id, reviewerId),
      () => createHost({ name: 'x' }, 'not-a-uuid'),
    ];
    for (const attempt of attempts) {
      const err = await refusal(attempt());
      expect([err.status, err.code]).toEqual([403, 'forbidden']);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a disabled admin is refused', async () => {
    const prisma = await testDb();
    await prisma.user.update({ where: { id: adminId }, data: { disabled: true } });
    expect((await refusal(createHost({ name: 'x' }, adminId))).status).toBe(403);
  });

  it('names are unique without regard to case, and "embedded" is reserved', async () => {
    await createHost({ name: 'Billing' }, adminId);
    expect((await refusal(createHost({ name: 'billing' }, adminId))).code).toBe('host_name_taken');
    expect((await refusal(createHost({ name: 'Embedded' }, adminId))).code).toBe(
      'host_name_reserved',
    );
  });

  it('the built-in host is listed, keeps its name and cannot be archived; its settings can change', async () => {
    const prisma = await testDb();
    const { id } = await ensureBuiltInHost(prisma);
    await createHost({ name: 'a-host' }, adminId);
    const list = await listHosts();
    expect(list.map((h) => [h.name, h.builtIn])).toEqual([
      ['embedded', true],
      ['a-host', false],
    ]);
    const before = await snapshot();
    expect((await refusal(updateHost(id, { name: 'other' }, adminId))).code).toBe(
      'builtin_host_name_fixed',
    );
    expect((await refusal(archiveHost(id, adminId))).code).toBe('builtin_host_not_archivable');
    expect(await snapshot()).toEqual(before);
    const updated = await updateHost(id, { name: 'embedded', defaultTimeoutMs: '30m' }, adminId);
    expect(updated.defaultTimeoutMs).toBe(30 * 60_000);
    // ensureBuiltInHost still finds it after the change (boot keeps working).
    expect(await ensureBuiltInHost(prisma)).toEqual({ id });
  });

  it('an update audits what changed (from/to), and saving the same values audits nothing', async () => {
    const host = await createHost({ name: 'h', description: 'one' }, adminId);
    await updateHost(host.id, { description: 'two', redactionPaths: '$target.x' }, adminId);
    await updateHost(host.id, { description: 'two', redactionPaths: ['$target.x'] }, adminId);
    const events = await listHostEvents(host.id);
    expect(events.map((e) => e.action)).toEqual(['host.updated', 'host.created']);
    expect(events[0].details).toEqual({
      changed: ['description', 'redactionPaths'],
      from: { description: 'one', redactionPaths: [] },
      to: { description: 'two', redactionPaths: ['$target.x'] },
    });
  });

  it('keys: issued once in clear, listed by prefix, revoked once (audited once), none for archived hosts', async () => {
    const host = await createHost({ name: 'h' }, adminId);
    const { key, apiKey } = await issueApiKey(host.id, 'production', adminId);
    expect(apiKey).toMatchObject({
      name: 'production',
      prefix: key.slice(0, 10),
      createdBy: { id: adminId, email: 'a@example.com' },
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(await listApiKeys(host.id))).not.toContain(key);
    const [a, b] = await Promise.all([
      revokeApiKey(apiKey.id, adminId),
      revokeApiKey(apiKey.id, adminId),
    ]);
    expect(a.revokedAt).not.toBeNull();
    expect(b.revokedAt).toEqual(a.revokedAt);
    const actions = (await listHostEvents(host.id)).map((e) => e.action);
    expect(actions.filter((x) => x === 'api_key.revoked')).toHaveLength(1);
    expect((await refusal(issueApiKey(host.id, '  ', adminId))).code).toBe('api_key_name_invalid');
    await archiveHost(host.id, adminId);
    expect((await refusal(issueApiKey(host.id, 'late', adminId))).code).toBe('host_archived');
    expect(
      (await refusal(revokeApiKey('00000000-0000-4000-8000-000000000000', adminId))).status,
    ).toBe(404);
  });
});
