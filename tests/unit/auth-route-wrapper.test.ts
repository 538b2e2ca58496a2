import { NextRequest } from 'next/server';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError } from '@/lib/server/http/api-error';
import { route } from '@/lib/server/http/route';

// The session comes from Auth.js inside Next (exercised end to end in
// tests/e2e); here it is a stub, so that the wrapper's own logic is tested.
const session = vi.hoisted(() => ({ user: null as null | { id: string; roles: string[] } }));
vi.mock('@/lib/server/auth/session', () => ({
  getCurrentUser: async () =>
    session.user && { ...session.user, email: 'x@example.com', name: null },
}));

const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });

function post(
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return new NextRequest('http://localhost/api/things', { method: 'POST', body, headers });
}

async function errorOf(res: Response) {
  return { status: res.status, ...(await res.json()).error };
}

describe('route() wrapper', () => {
  const schema = z.object({ name: z.string().min(1), count: z.number().int() });
  const create = route({ auth: 'public', body: schema }, ({ body }) => ({ got: body }));

  it('passes a valid JSON body, parsed, to the handler', async () => {
    const res = await create(post('{"name":"a","count":2}'), ctx());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ got: { name: 'a', count: 2 } });
  });

  it('answers 400 request_invalid naming every bad field', async () => {
    const res = await create(post('{"name":"","count":"x"}'), ctx());
    const err = await errorOf(res);
    expect(err.status).toBe(400);
    expect(err.code).toBe('request_invalid');
    expect(err.message).toContain('name');
    expect(err.message).toContain('count');
    expect(err.details.issues.map((i: { path: string }) => i.path)).toEqual(['name', 'count']);
  });

  it('answers 400 for malformed JSON, 415 for other media types, 413 past the cap', async () => {
    expect(await errorOf(await create(post('{"name":'), ctx()))).toMatchObject({
      status: 400,
      code: 'json_invalid',
    });
    expect(
      await errorOf(await create(post('name=a', { 'content-type': 'text/plain' }), ctx())),
    ).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    const small = route({ auth: 'public', body: schema, maxBodyBytes: 16 }, () => ({}));
    expect(await errorOf(await small(post(`{"name":"${'x'.repeat(64)}"}`), ctx()))).toMatchObject({
      status: 413,
      code: 'payload_too_large',
    });
  });

  it('maps AppError to its table status and code, and hides anything else as 500 internal', async () => {
    const conflict = route({ auth: 'public' }, () => {
      throw new AppError('email_taken', 'Taken.');
    });
    expect(await errorOf(await conflict(post('{}'), ctx()))).toEqual({
      status: 409,
      code: 'email_taken',
      message: 'Taken.',
    });
    const boom = route({ auth: 'public' }, () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    const res = await boom(post('{}'), ctx());
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text).error.code).toBe('internal');
    expect(text).not.toContain('hunter2');
  });

  it('user routes: 401 without a session, 403 without the role, admins pass', async () => {
    const handler = vi.fn(({ user }) => ({ id: user.id }));
    const adminOnly = route({ auth: 'user', roles: ['admin'] }, handler);
    const req = () => new NextRequest('http://localhost/api/users');
    session.user = null;
    expect(await errorOf(await adminOnly(req(), ctx()))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    session.user = { id: 'u1', roles: ['reviewer'] };
    expect(await errorOf(await adminOnly(req(), ctx()))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(handler).not.toHaveBeenCalled();
    session.user = { id: 'u2', roles: ['admin'] };
    expect(await (await adminOnly(req(), ctx())).json()).toEqual({ id: 'u2' });
    const auditors = route({ auth: 'user', roles: ['auditor'] }, () => ({ ok: true }));
    expect((await auditors(req(), ctx())).status).toBe(200);
  });

  it('host routes without a valid API key answer 401 and never run the handler', async () => {
    const handler = vi.fn(() => ({ ok: true }));
    const hostRoute = route({ auth: 'host' }, handler);
    const req = new NextRequest('http://localhost/api/v1/x', {
      headers: { authorization: 'Bearer ck_anything' },
    });
    expect(await errorOf(await hostRoute(req, ctx()))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it('hands route params and parsed query to the handler; undefined becomes 204', async () => {
    const get = route(
      { auth: 'public', query: z.object({ q: z.string() }) },
      ({ params, query }) => ({
        params,
        query,
      }),
    );
    const res = await get(new NextRequest('http://localhost/api/x/7?q=hi'), ctx({ id: '7' }));
    expect(await res.json()).toEqual({ params: { id: '7' }, query: { q: 'hi' } });
    const none = route({ auth: 'public' }, () => undefined);
    expect((await none(new NextRequest('http://localhost/api/x'), ctx())).status).toBe(204);
  });
});
