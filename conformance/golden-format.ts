/**
 * The two golden identity fixture formats `ctk --golden FILE` reads (§10.2,
 * §13.2), each validated into one shape before anything runs:
 * - the public kit's: {"fixtures": [{id, note?, ctx, expect: {context_identity} | {error}}]};
 * - the project's (conformance/golden/identity.json): {"cases": [{name, covers,
 *   context | context_json, context_identity | expect_error: {reason}}]}.
 * A file in neither format, or with a malformed entry, is a CtkError
 * (`ctk_usage`, exit 2) naming the entry and what is wrong.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CtkError } from './load';

export interface GoldenFixture {
  id: string;
  title: string;
  /** The context as JSON text, when its number tokens' lexical forms matter (§10.2). */
  contextText?: string;
  /** The context as parsed (always present, also for text cases). */
  context: unknown;
  /** Exactly one of the two is set. */
  identity?: string;
  error?: string;
}

const IDENTITY = /^sha256:[0-9a-f]{64}$/;

export function readGoldenFile(file: string): GoldenFixture[] {
  if (!existsSync(file)) throw usage(`no golden fixtures file at ${file}`);
  const text = readFileSync(file, 'utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw usage(`${file} is not JSON`);
  }
  if (isRecord(doc) && Array.isArray(doc.fixtures)) return publicFixtures(doc.fixtures, text, file);
  if (isRecord(doc) && Array.isArray(doc.cases)) return projectCases(doc.cases, file);
  throw usage(
    `${file} is in neither the public fixtures format ({"fixtures": [...]}) nor the project's ({"cases": [...]})`,
  );
}

function publicFixtures(entries: unknown[], text: string, file: string): GoldenFixture[] {
  if (entries.length === 0) throw usage(`${file} has no fixtures`);
  // The public ctx is JSON inside the file: keep each one's raw text so a
  // token like 9007199254740993.0 reaches the host's JSON-text funnel as written.
  const texts = fixtureContextTexts(text);
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const where = (what: string) =>
      usage(
        `${file}: fixtures[${i}]${isRecord(entry) && typeof entry.id === 'string' ? ` (${entry.id})` : ''}: ${what}`,
      );
    if (!isRecord(entry)) throw where('must be an object');
    if (typeof entry.id !== 'string' || entry.id === '')
      throw where('id must be a non-empty string');
    if (seen.has(entry.id)) throw where('id is used twice');
    seen.add(entry.id);
    if (!Object.hasOwn(entry, 'ctx')) throw where('ctx is missing');
    if (entry.note !== undefined && typeof entry.note !== 'string')
      throw where('note must be a string');
    const expect = entry.expect;
    const hasIdentity = isRecord(expect) && Object.hasOwn(expect, 'context_identity');
    const hasError = isRecord(expect) && Object.hasOwn(expect, 'error');
    if (!isRecord(expect) || hasIdentity === hasError) {
      throw where('expect must be {"context_identity": "sha256:…"} or {"error": "<code>"}');
    }
    if (
      hasIdentity &&
      !(typeof expect.context_identity === 'string' && IDENTITY.test(expect.context_identity))
    ) {
      throw where('expect.context_identity must be sha256: and 64 lowercase hex digits');
    }
    if (hasError && !(typeof expect.error === 'string' && expect.error !== '')) {
      throw where('expect.error must be a non-empty string');
    }
    return {
      id: entry.id,
      title: typeof entry.note === 'string' ? entry.note : entry.id,
      context: entry.ctx,
      contextText: texts[i],
      ...(hasIdentity
        ? { identity: expect.context_identity as string }
        : { error: expect.error as string }),
    };
  });
}

function projectCases(entries: unknown[], file: string): GoldenFixture[] {
  if (entries.length === 0) throw usage(`${file} has no cases`);
  return entries.map((entry, i) => {
    const where = (what: string) =>
      usage(
        `${file}: cases[${i}]${isRecord(entry) && typeof entry.name === 'string' ? ` (${entry.name})` : ''}: ${what}`,
      );
    if (!isRecord(entry)) throw where('must be an object');
    if (typeof entry.name !== 'string' || entry.name === '')
      throw where('name must be a non-empty string');
    if (typeof entry.covers !== 'string') throw where('covers must be a string');
    const hasText = entry.context_json !== undefined;
    if (hasText === Object.hasOwn(entry, 'context'))
      throw where('needs exactly one of context, context_json');
    if (hasText && typeof entry.context_json !== 'string')
      throw where('context_json must be a string');
    const refusal = entry.expect_error;
    const hasIdentity = entry.context_identity !== undefined;
    if (hasIdentity === (refusal !== undefined)) {
      throw where('needs context_identity or expect_error, not both');
    }
    if (
      hasIdentity &&
      !(typeof entry.context_identity === 'string' && IDENTITY.test(entry.context_identity))
    ) {
      throw where('context_identity must be sha256: and 64 lowercase hex digits');
    }
    if (!hasIdentity && !(isRecord(refusal) && typeof refusal.reason === 'string')) {
      throw where('expect_error must be {"reason": "<code>"}');
    }
    return {
      id: entry.name,
      title: entry.covers,
      context: entry.context,
      contextText: hasText ? (entry.context_json as string) : undefined,
      ...(hasIdentity
        ? { identity: entry.context_identity as string }
        : { error: (refusal as { reason: string }).reason }),
    };
  });
}

/**
 * The raw text of `fixtures[i].ctx` for each i, read from text JSON.parse
 * already accepted. Only the first three levels are walked; values are
 * skipped by bracket counting, so a deep ctx cannot exhaust the stack.
 */
export function fixtureContextTexts(text: string): (string | undefined)[] {
  const out: (string | undefined)[] = [];
  const p = { i: 0 };
  members(text, p, (key) => {
    if (key !== 'fixtures' || peek(text, p) !== '[') return skipValue(text, p);
    elements(text, p, (index) => {
      if (peek(text, p) !== '{') return skipValue(text, p);
      members(text, p, (member) => {
        if (member !== 'ctx') return skipValue(text, p);
        const start = p.i;
        skipValue(text, p);
        out[index] = text.slice(start, p.i);
      });
    });
  });
  return out;
}

type Cursor = { i: number };

function peek(text: string, p: Cursor): string {
  while (' \t\n\r'.includes(text[p.i])) p.i++;
  return text[p.i];
}

function members(text: string, p: Cursor, onValue: (key: string) => void): void {
  if (peek(text, p) !== '{') {
    skipValue(text, p);
    return;
  }
  p.i++;
  while (peek(text, p) !== '}') {
    if (text[p.i] === ',') p.i++;
    peek(text, p);
    const start = p.i;
    skipString(text, p);
    const key = JSON.parse(text.slice(start, p.i)) as string;
    peek(text, p);
    p.i++; // ':'
    peek(text, p);
    onValue(key);
  }
  p.i++;
}

function elements(text: string, p: Cursor, onValue: (index: number) => void): void {
  p.i++; // '['
  for (let index = 0; peek(text, p) !== ']'; index++) {
    if (text[p.i] === ',') p.i++;
    peek(text, p);
    onValue(index);
  }
  p.i++;
}

function skipString(text: string, p: Cursor): void {
  p.i++;
  while (text[p.i] !== '"') p.i += text[p.i] === '\\' ? 2 : 1;
  p.i++;
}

function skipValue(text: string, p: Cursor): void {
  const c = peek(text, p);
  if (c === '"') {
    skipString(text, p);
    return;
  }
  if (c !== '{' && c !== '[') {
    while (p.i < text.length && !',]} \t\n\r'.includes(text[p.i])) p.i++;
    return;
  }
  let depth = 0;
  do {
    const d = text[p.i];
    if (d === '"') {
      skipString(text, p);
      continue;
    }
    if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') depth--;
    p.i++;
  } while (depth > 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function usage(message: string): CtkError {
  return new CtkError('ctk_usage', message);
}
