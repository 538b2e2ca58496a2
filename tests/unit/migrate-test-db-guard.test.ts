import { describe, expect, it } from 'vitest';
import { assertLocalUrl, runId } from '../integration/helpers/local-url';

/** Integration tests create and drop databases: only ever on this machine. */

describe('assertLocalUrl (integration global setup)', () => {
  it.each([
    'postgresql://postgres@127.0.0.1:5432/postgres',
    'postgresql://postgres@localhost/postgres',
    'postgresql://postgres@[::1]:5432/postgres',
    'postgresql:///postgres?host=/var/run/postgresql',
    'redis://127.0.0.1:6379',
  ])('accepts %s', (url) => {
    expect(assertLocalUrl(url, 'TEST_DATABASE_URL')).toBeInstanceOf(URL);
  });

  it.each([
    'postgresql://postgres@db.example.com:5432/postgres',
    'postgresql://postgres@10.0.0.5/postgres',
    'postgresql://postgres@127.0.0.1.nip.io/postgres',
    'postgresql://postgres@localhost/postgres?host=db.example.com',
    'postgresql:///postgres?host=prod-db',
    'redis://cache.internal:6379',
  ])('refuses %s', (url) => {
    expect(() => assertLocalUrl(url, 'TEST_DATABASE_URL')).toThrow(
      /TEST_DATABASE_URL points at .*, not this machine/,
    );
  });

  it('refuses what is not a URL at all', () => {
    expect(() => assertLocalUrl('not a url', 'TEST_DATABASE_URL')).toThrow(/not a URL/);
  });

  it('names runs uniquely, in a form the orphan sweep can date', () => {
    const a = runId();
    expect(a).toMatch(/^ck_it_\d{13}_[a-z0-9]{1,6}$/);
    expect(runId()).not.toBe(a);
  });
});
