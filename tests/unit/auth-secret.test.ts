import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOrCreateSecret } from '@/lib/server/auth/secret';

describe('generated AUTH_SECRET file', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'ck-secret-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('creates a long random secret with mode 0600 (and missing parents), then keeps it', () => {
    const file = path.join(tempDir(), 'nested', 'auth-secret');
    const first = readOrCreateSecret(file);
    expect(first.length).toBeGreaterThanOrEqual(48);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readOrCreateSecret(file)).toBe(first);
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
  });

  it('tightens a hand-made file and refuses one that is too short', () => {
    const dir = tempDir();
    const loose = path.join(dir, 'loose');
    writeFileSync(loose, `${'k'.repeat(40)}\n`, { mode: 0o644 });
    expect(readOrCreateSecret(loose)).toBe('k'.repeat(40));
    expect(statSync(loose).mode & 0o777).toBe(0o600);
    const short = path.join(dir, 'short');
    writeFileSync(short, 'tiny', { mode: 0o600 });
    expect(() => readOrCreateSecret(short)).toThrow(/shorter than 32/);
  });
});
