import { describe, expect, it } from 'vitest';
import { describeTarget, pgliteDir } from '@/lib/server/db/open';

describe('describeTarget (dbInfo, logs)', () => {
  it('never shows the password or the query string of a Postgres URL', () => {
    const shown = describeTarget({
      kind: 'postgres',
      url: 'postgresql://app:s3cr%40t@db.internal:6543/checkpoint?sslmode=require&password=again',
    });
    expect(shown).toBe('postgresql://app@db.internal:6543/checkpoint');
    expect(shown).not.toContain('s3cr');
    expect(shown).not.toContain('again');
  });

  it('shows an unparseable URL as such rather than echoing it', () => {
    expect(describeTarget({ kind: 'postgres', url: 'postgresql://u:pw@[bad' })).toBe(
      'postgresql://(unparseable URL)',
    );
  });

  it('shows the embedded database as its directory, DATA_DIR/pglite', () => {
    expect(pgliteDir('/srv/checkpoint/.data')).toBe('/srv/checkpoint/.data/pglite');
    expect(describeTarget({ kind: 'pglite', dir: '/srv/checkpoint/.data/pglite' })).toBe(
      '/srv/checkpoint/.data/pglite',
    );
  });
});
