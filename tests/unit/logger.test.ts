import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '@/lib/server/logger';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level,
    destination: { write: (s: string) => void lines.push(JSON.parse(s)) },
  });
  return { log, lines };
}

describe('logger', () => {
  it('writes one JSON object per event with a textual level, time and message', () => {
    const { log, lines } = capture();
    log.info({ queue: 'jobs' }, 'started');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'started',
      queue: 'jobs',
      app: 'checkpoint',
    });
    expect(new Date(String(lines[0].time)).toISOString()).toBe(lines[0].time);
  });

  it('tags child loggers with their module', () => {
    const { log, lines } = capture();
    log.child({ module: 'relay' }).warn('deferred');
    expect(lines[0]).toMatchObject({ module: 'relay', level: 'warn' });
  });

  it('drops events below the configured level', () => {
    const { log, lines } = capture('info');
    log.debug('noise');
    log.error('signal');
    expect(lines.map((l) => l.msg)).toEqual(['signal']);
  });

  it('never writes secrets, at the top level or one object deep', () => {
    const { log, lines } = capture();
    log.info(
      {
        password: 'hunter2-top',
        token: 'tok-top',
        user: { email: 'a@b.c', passwordHash: 'scrypt$hash', apiKey: 'ck_live_secret' },
        req: { headers: { authorization: 'Bearer abc.def', cookie: 'session=xyz' } },
      },
      'sign-in',
    );
    const text = JSON.stringify(lines);
    for (const secret of [
      'hunter2-top',
      'tok-top',
      'scrypt$hash',
      'ck_live_secret',
      'Bearer abc',
      'session=xyz',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({
      password: '[redacted]',
      user: { email: 'a@b.c', apiKey: '[redacted]' },
    });
  });

  it('redactUrl hides a URL password and keeps the rest', () => {
    expect(redactUrl('postgresql://app:s3cret@db.internal:5432/checkpoint')).toBe(
      'postgresql://app:***@db.internal:5432/checkpoint',
    );
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl('not a url')).toBe('[unparseable url]');
  });
});
