import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * Issue 17, item 1: with DATABASE_URL the keys every process shares are
 * required (a generated one would differ per DATA_DIR); the embedded database
 * still generates them. Each case loads the modules afresh under its own
 * environment, since the configuration is read once per process.
 */

const VARS = ['DATABASE_URL', 'DATA_DIR', 'APP_ENCRYPTION_KEY', 'AUTH_SECRET'] as const;
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
const dirs: string[] = [];

async function load(env: Partial<Record<(typeof VARS)[number], string>>) {
  for (const k of VARS) {
    if (env[k] === undefined) delete process.env[k];
    else process.env[k] = env[k];
  }
  vi.resetModules();
  return {
    secret: await import('@/lib/server/auth/secret'),
    encryption: await import('@/lib/server/webhooks/encryption'),
  };
}

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'ck-keys-'));
  dirs.push(d);
  return d;
}

const PG = 'postgresql://postgres@127.0.0.1:5432/none';
const KEY_A = 'correct horse battery staple, 32+ characters long';
const KEY_B = 'another key that is also 32+ characters long';

afterEach(() => {
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('keys shared by every process', () => {
  it('the fingerprint is HMAC-SHA256 of the fixed label under the key (openssl fixtures)', async () => {
    const { keyFingerprint } = await import('@/lib/server/db/key-fingerprints');
    // printf 'checkpoint key fingerprint v1' | openssl dgst -sha256 -hmac "$KEY"
    expect(keyFingerprint(KEY_A)).toBe(
      '7d2e0e2fdafe7f50e8f8ec20517883b75a056a1588e1ee6306fc7f43a0271f91',
    );
    expect(keyFingerprint(KEY_B)).toBe(
      '84dd9b6e44091269d73fe51639278ebd1de727de6725508878121a37b0b9ae22',
    );
  });

  it('with DATABASE_URL, an unset APP_ENCRYPTION_KEY or AUTH_SECRET is refused, named, with how to make one; nothing is generated', async () => {
    const dir = tempDir();
    const { secret, encryption } = await load({ DATABASE_URL: PG, DATA_DIR: dir });
    for (const name of ['APP_ENCRYPTION_KEY', 'AUTH_SECRET'] as const) {
      let err: unknown;
      try {
        secret.sharedSecret(name);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(secret.SharedKeyError);
      expect(err).toMatchObject({ code: 'key_required' });
      expect((err as Error).message).toContain(`${name} is required when DATABASE_URL is set`);
      expect((err as Error).message).toContain('openssl rand -base64 48');
    }
    expect(() => secret.authSecret()).toThrow(/AUTH_SECRET is required/);
    expect(() => encryption.encryptSecret('whsec_x')).toThrow(/APP_ENCRYPTION_KEY is required/);
    expect(existsSync(path.join(dir, 'encryption-key'))).toBe(false);
    expect(existsSync(path.join(dir, 'auth-secret'))).toBe(false);
  });

  it('with DATABASE_URL, a key an earlier start generated into DATA_DIR is pointed to, not used', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'encryption-key'), `${KEY_A}\n`, { mode: 0o600 });
    const { secret } = await load({ DATABASE_URL: PG, DATA_DIR: dir });
    expect(() => secret.sharedSecret('APP_ENCRYPTION_KEY')).toThrow(
      `set APP_ENCRYPTION_KEY to its content`,
    );
  });

  it('set explicitly, the key is used as given; the embedded database generates one into DATA_DIR', async () => {
    let { secret } = await load({
      DATABASE_URL: PG,
      APP_ENCRYPTION_KEY: KEY_A,
      AUTH_SECRET: KEY_B,
    });
    expect(secret.sharedSecret('APP_ENCRYPTION_KEY')).toBe(KEY_A);
    expect(secret.authSecret()).toBe(KEY_B);
    const dir = tempDir();
    ({ secret } = await load({ DATA_DIR: dir }));
    const generated = secret.sharedSecret('APP_ENCRYPTION_KEY');
    expect(generated.length).toBeGreaterThanOrEqual(48);
    expect(readFileSync(path.join(dir, 'encryption-key'), 'utf8').trim()).toBe(generated);
  });

  it('a secret encrypted under another key or altered fails with signing_secret_unreadable, not a bare GCM error', async () => {
    let { encryption } = await load({ DATABASE_URL: PG, APP_ENCRYPTION_KEY: KEY_A });
    const stored = encryption.encryptSecret('whsec_abc');
    expect(encryption.decryptSecret(stored)).toBe('whsec_abc');
    const parts = stored.split(':');
    parts[3] = (parts[3][0] === 'A' ? 'B' : 'A') + parts[3].slice(1);
    const altered = parts.join(':');
    expect(() => encryption.decryptSecret(altered)).toThrow(encryption.SecretDecryptError);
    ({ encryption } = await load({ DATABASE_URL: PG, APP_ENCRYPTION_KEY: KEY_B }));
    let err: unknown;
    try {
      encryption.decryptSecret(stored);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'signing_secret_unreadable' });
    expect((err as Error).message).toContain("this process's APP_ENCRYPTION_KEY");
    expect(() => encryption.decryptSecret('plain-text')).toThrow(/not in the encrypted format/);
  });
});
