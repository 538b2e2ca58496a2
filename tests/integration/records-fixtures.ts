import { NextRequest } from 'next/server';
import { generateApiKey } from '@/lib/server/hosts/api-key';
import { testDb } from './helpers/db';

/** A minimal §10.3 record that passes spec/schema; `over` replaces top-level members. */
export function makeRecord(
  sessionId: string,
  sequence: number,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    interception_point: 'pre_tool_call',
    mode: 'enforce',
    verdict: { decision: 'allow' },
    input_identity: `jcs-sha256:${sessionId}:${sequence}`,
    enforced_identity: `jcs-sha256:${sessionId}:${sequence}`,
    identity_provider: 'jcs-sha256',
    session_id: sessionId,
    sequence,
    timestamp: '2026-12-02T10:00:00.000Z',
    decided_by: null,
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    interceptors_registered: 1,
    ...over,
  };
}

/** A host-failure record: the host's note about its own failure, outside any session. */
export function hostFailureRecord(message: string): Record<string, unknown> {
  return makeRecord('', -1, {
    interception_point: 'agent_startup',
    verdict: { decision: 'deny', reason: 'host_error:context_invalid', message },
    input_identity: null,
    enforced_identity: null,
  });
}

/** A host with one API key, created straight in the database. */
export async function seedHost(name: string): Promise<{ id: string; key: string }> {
  const prisma = await testDb();
  const host = await prisma.host.create({ data: { name }, select: { id: true } });
  const k = generateApiKey();
  await prisma.apiKey.create({
    data: { hostId: host.id, name: 'test', prefix: k.prefix, hash: k.hash },
  });
  return { id: host.id, key: k.key };
}

export function recordsRequest(
  key: string | null,
  body: string,
  contentType = 'application/json',
  extraHeaders: Record<string, string> = {},
): NextRequest {
  const headers: Record<string, string> = { 'content-type': contentType, ...extraHeaders };
  if (key) headers.authorization = `Bearer ${key}`;
  return new NextRequest('http://localhost/api/v1/records', { method: 'POST', headers, body });
}

export const noParams = { params: Promise.resolve({}) };
