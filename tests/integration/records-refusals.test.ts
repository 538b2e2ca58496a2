import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST } from '@/app/api/v1/records/route';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord, noParams, recordsRequest, seedHost } from './records-fixtures';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

type Issue = { index: number; code: string; message: string };
type ErrorBody = { error: { code: string; message: string; details: { errors: Issue[] } } };

async function post(body: string, contentType = 'application/json') {
  const res = await POST(recordsRequest(host.key, body, contentType), noParams);
  return { status: res.status, body: (await res.json()) as ErrorBody };
}

/** A batch of good records with one bad one at `at`; the answer must name it and store nothing. */
async function refuseOne(bad: Record<string, unknown>, at = 1) {
  const batch = [makeRecord('s', 0), makeRecord('s', 1), makeRecord('s', 2)];
  batch[at] = bad;
  const res = await post(JSON.stringify(batch));
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('records_invalid');
  const prisma = await testDb();
  expect(await prisma.interceptionRecord.count()).toBe(0);
  expect(await prisma.sessionChain.count()).toBe(0);
  const errors = res.body.error.details.errors;
  expect(errors.map((e) => e.index)).toEqual([at]);
  return errors[0].code;
}

let host: { id: string; key: string };
beforeEach(async () => {
  await truncateAll();
  host = await seedHost('refusals');
});
afterAll(closeTestDb);

describe('ingest refuses, one test per reason, storing nothing (§10.3)', () => {
  it('transform.value: target content', async () => {
    const bad = makeRecord('s', 1, {
      verdict: { decision: 'transform', transform: { path: '$target.x', value: 'secret' } },
    });
    expect(await refuseOne(bad)).toBe('transform_value_present');
  });

  it('verdict.message over 256 UTF-8 bytes (unprojected)', async () => {
    const bad = makeRecord('s', 1, { verdict: { decision: 'deny', message: 'é'.repeat(129) } });
    expect(await refuseOne(bad)).toBe('message_unprojected');
  });

  it('warnings[].message over 256 bytes', async () => {
    const bad = makeRecord('s', 1, {
      verdict: { decision: 'allow', warnings: [{ reason: 'r', message: 'x'.repeat(257) }] },
    });
    expect(await refuseOne(bad)).toBe('message_unprojected');
  });

  it('accepts a message exactly as the projection cuts it (256 bytes with the ellipsis)', async () => {
    const projected = `${'x'.repeat(253)}…`;
    expect(Buffer.byteLength(projected)).toBe(256);
    const res = await post(
      JSON.stringify([makeRecord('s', 0, { verdict: { decision: 'deny', message: projected } })]),
    );
    expect(res.status).toBe(200);
  });

  it('an approval block with members', async () => {
    const bad = makeRecord('s', 1, {
      verdict: { decision: 'deny', approval: { approvers: ['ops'] } },
    });
    expect(await refuseOne(bad)).toBe('approval_not_empty');
  });

  it('an unknown top-level field', async () => {
    expect(await refuseOne(makeRecord('s', 1, { context: { secret: 1 } }))).toBe('field_unknown');
  });

  it('a schema violation (bad interception point)', async () => {
    expect(await refuseOne(makeRecord('s', 1, { interception_point: 'pre_lunch' }))).toBe(
      'schema_invalid',
    );
  });

  it('a missing required member', async () => {
    const bad = makeRecord('s', 1);
    delete bad.composition;
    expect(await refuseOne(bad)).toBe('schema_invalid');
  });

  it('a negative sequence outside the host-failure pair', async () => {
    expect(await refuseOne(makeRecord('s', -1))).toBe('schema_invalid');
  });

  it('a sequence past the 32-bit column', async () => {
    expect(await refuseOne(makeRecord('s', 2 ** 31))).toBe('value_out_of_range');
  });

  it('something that is not an object', async () => {
    expect(await refuseOne([1, 2] as unknown as Record<string, unknown>)).toBe('record_not_object');
  });

  it('reports every bad record by position, not only the first', async () => {
    const batch = [
      makeRecord('s', 0, { extra: 1 }),
      makeRecord('s', 1),
      makeRecord('s', 2, { verdict: { decision: 'deny', approval: { x: 1 } } }),
    ];
    const res = await post(JSON.stringify(batch));
    expect(res.body.error.details.errors.map((e) => e.index)).toEqual([0, 2]);
  });

  it('an NDJSON line that does not parse, by its position', async () => {
    const body = [
      JSON.stringify(makeRecord('s', 0)),
      '{"broken":',
      JSON.stringify(makeRecord('s', 2)),
    ].join('\n');
    const res = await post(body, 'application/x-ndjson');
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toMatchObject([{ index: 1, code: 'json_invalid' }]);
  });

  it('an integer past 2^53 (parseJsonText, not JSON.parse, §10.2)', async () => {
    const body = JSON.stringify([makeRecord('s', 0)]).replace(
      '"sequence":0',
      '"sequence":9007199254740993',
    );
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('value_domain');
  });

  it('a body that is not JSON or NDJSON: 415', async () => {
    const res = await post(JSON.stringify([makeRecord('s', 0)]), 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('more than 10,000 records: 413 payload_too_large', async () => {
    const line = JSON.stringify(makeRecord('s', 0));
    const res = await post(Array(10_001).fill(line).join('\n'), 'application/x-ndjson');
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('more than 5 MiB: 413 payload_too_large', async () => {
    const filler = 'x'.repeat(5 * 1024 * 1024);
    const res = await post(
      `[${JSON.stringify(makeRecord('s', 0, { verdict: { decision: 'allow', reason: filler } }))}]`,
    );
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('a JSON body that is not an array', async () => {
    const res = await post(JSON.stringify(makeRecord('s', 0)));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_invalid');
  });
});
