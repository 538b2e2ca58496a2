import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@/lib/server/http/api-error';
import { classifyOutage } from '@/lib/server/http/outage';
import { errorToResponse } from '@/lib/server/http/route';

// route.ts imports the Auth.js session, which only loads inside Next.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * The shapes Prisma 7 with the pg driver adapter gives an outage (the
 * integration test tests/integration/db-outage.test.ts produces them for
 * real); anything else stays a 500.
 */

/** What Prisma throws for a failed query: its code, and the adapter's error under meta. */
function prismaError(code: string, cause: Record<string, unknown>) {
  return Object.assign(new Error(`Prisma ${code}`), {
    name: 'PrismaClientKnownRequestError',
    code,
    meta: { driverAdapterError: Object.assign(new Error('adapter'), { cause }) },
  });
}

describe('classifyOutage', () => {
  it.each([
    [
      'unreachable (P1001)',
      prismaError('P1001', { kind: 'DatabaseNotReachable' }),
      'database_unavailable',
    ],
    ['closed (P1017)', prismaError('P1017', { kind: 'ConnectionClosed' }), 'database_unavailable'],
    [
      'pool timeout (P2024)',
      Object.assign(new Error('pool'), { code: 'P2024' }),
      'database_unavailable',
    ],
    [
      'raw query, unreachable',
      prismaError('P2010', { kind: 'DatabaseNotReachable' }),
      'database_unavailable',
    ],
    [
      'statement timeout (57014)',
      prismaError('P2010', { kind: 'postgres', originalCode: '57014' }),
      'database_timeout',
    ],
    [
      'lock timeout (55P03)',
      prismaError('P2039', { kind: 'postgres', originalCode: '55P03' }),
      'database_timeout',
    ],
    [
      'transaction expired (P2028)',
      Object.assign(new Error('tx'), { code: 'P2028' }),
      'database_timeout',
    ],
    [
      'pg-pool acquire timeout',
      new Error('timeout exceeded when trying to connect'),
      'database_unavailable',
    ],
    [
      'pg connect timeout, as a cause',
      new Error('wrapped', { cause: new Error('Connection terminated due to connection timeout') }),
      'database_unavailable',
    ],
    [
      'the queue',
      Object.assign(new Error('redis offline'), { code: 'queue_unavailable' }),
      'queue_unavailable',
    ],
    ['an explicit AppError', new AppError('database_unavailable', 'gone'), 'database_unavailable'],
  ])('%s', (_name, err, code) => {
    expect(classifyOutage(err)).toBe(code);
  });

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a unique violation', prismaError('P2002', { kind: 'UniqueConstraintViolation' })],
    ['another SQLSTATE', prismaError('P2010', { kind: 'postgres', originalCode: '42601' })],
    [
      'an outbound fetch refused',
      Object.assign(new Error('fetch failed'), { code: 'ECONNREFUSED' }),
    ],
    ['not an object', 'boom'],
  ])('leaves %s alone', (_name, err) => {
    expect(classifyOutage(err)).toBeNull();
  });

  it('survives a cause cycle', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(classifyOutage(a)).toBeNull();
  });
});

describe('errorToResponse for outages', () => {
  it('answers 503 with Retry-After and the stable code, never the driver message', async () => {
    const res = errorToResponse(
      prismaError('P1001', { kind: 'DatabaseNotReachable', host: '10.9.8.7' }),
    );
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await res.json();
    expect(body.error.code).toBe('database_unavailable');
    expect(JSON.stringify(body)).not.toContain('10.9.8.7');
  });

  it('keeps a bug a bare 500 internal', async () => {
    const res = errorToResponse(new TypeError('x is undefined'));
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect((await res.json()).error.code).toBe('internal');
  });
});
