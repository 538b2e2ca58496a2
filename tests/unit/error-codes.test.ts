import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETAIL_CODES, ERROR_CODES } from '@/lib/server/http/error-codes';
import { renderErrorCodesMarkdown } from '@/lib/server/http/error-codes-doc';

/**
 * The one error model (issue 12, item 2): one table of codes, one spelling
 * per mistake, one status per code, every code the server throws in the
 * table, no try/catch in route files, and docs/api-errors.md rendered from
 * the table.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function files(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) {
      if (name !== 'node_modules' && name !== 'generated') files(rel, keep, out);
    } else if (keep(name)) out.push(rel);
  }
  return out;
}

const serverFiles = files(
  'lib/server',
  (n) => /\.ts$/.test(n) && !/\.test\.ts$/.test(n) && n !== 'error-codes.ts',
);
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const table: Record<string, { status: number }> = ERROR_CODES;
const allCodes = [...Object.keys(ERROR_CODES), ...Object.keys(DETAIL_CODES)];

/**
 * `code: '…'` literals in lib/server that are not HTTP error codes: zod's
 * `custom` issue code, Auth.js sign-in outcomes (the sign-in page's own
 * words), log fields, start-up failures and Slack reviewer lookups (told to
 * the Slack user in a message, never an HTTP error).
 */
const NOT_HTTP = new Set([
  'custom',
  'invalid_credentials',
  'rate_limited',
  'sso_unknown_user',
  'sso_account_disabled',
  'job_unknown',
  'job_payload_invalid',
  'db_unreachable',
  'key_required',
  'key_mismatch',
  'slack_user_unlinked',
  'slack_user_disabled',
  'slack_user_not_reviewer',
  'replica_unreachable',
  // Receipt checks (receipts/verify.ts): results shown on the ticket page, not answers.
  'receipt_malformed',
  'receipt_wrong_type',
  'receipt_key_unknown',
  'receipt_signature_invalid',
  'receipt_ticket_mismatch',
]);

const ERROR_CLASS =
  /new (?:AppError|ApiError|IntakeError|DecisionError|WebhookError|OutboxError)\(\s*(?:(\d+),\s*)?'([a-z_]+)'/g;

describe('the error-code table', () => {
  it('has one spelling per mistake: no two codes differ only by word order', () => {
    const seen = new Map<string, string>();
    for (const code of allCodes) {
      const key = code.split('_').sort().join('_');
      expect(seen.get(key), `${code} vs ${seen.get(key)}`).toBeUndefined();
      seen.set(key, code);
    }
  });

  it('names the thing first: no invalid_x, missing_x, unknown_x or bad_x', () => {
    const prefixed = allCodes.filter((c) => /^(invalid|missing|unknown|bad)_/.test(c));
    expect(prefixed).toEqual([]);
  });

  it('gives each code one status, used as such wherever a status is still spelled out', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(Number.isInteger(entry.status), code).toBe(true);
      expect(entry.status >= 400 && entry.status < 600, code).toBe(true);
    }
    for (const file of serverFiles) {
      for (const m of read(file).matchAll(ERROR_CLASS)) {
        if (m[1] === undefined) continue;
        expect([file, m[2], Number(m[1])]).toEqual([file, m[2], table[m[2]]?.status]);
      }
    }
  });

  it('holds every code thrown or answered in lib/server', () => {
    const missing: string[] = [];
    for (const file of serverFiles) {
      const text = read(file);
      for (const m of text.matchAll(ERROR_CLASS)) {
        if (!(m[2] in ERROR_CODES)) missing.push(`${file}: ${m[2]}`);
      }
      for (const m of text.matchAll(/\bcode: '([a-z_]+)'/g)) {
        if (!NOT_HTTP.has(m[1]) && !allCodes.includes(m[1])) missing.push(`${file}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('holds every error code a server action answers (sign-in has its own)', () => {
    const missing: string[] = [];
    for (const file of files('app', (n) => n === 'actions.ts')) {
      if (file.includes('sign-in')) continue;
      for (const m of read(file).matchAll(/status: 'error',\s*code: '([a-z_]+)'/g)) {
        if (!(m[1] in ERROR_CODES)) missing.push(`${file}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is what docs/api-errors.md says (npx tsx scripts/api-errors-doc.ts rewrites it)', () => {
    expect(read('docs/api-errors.md')).toBe(renderErrorCodesMarkdown());
  });
});

describe('route files', () => {
  it('hold no try/catch: errors propagate to route(), which maps them', () => {
    const offenders = files('app/api', (n) => n === 'route.ts').filter((f) =>
      /\btry\s*\{/.test(read(f)),
    );
    expect(offenders).toEqual([]);
  });
});
