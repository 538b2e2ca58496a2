import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUuid, NIL_UUID, uuidOrNil } from '@/lib/server/http/uuid';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.(ts|tsx|mjs)$/.test(name) ? [path] : [];
  });
}

// Remove once lib/server/auth/session.ts uses isUuid (it is being moved right now).
describe('uuid', () => {
  it('accepts any 8-4-4-4-12 hex id, either case, and nothing else', () => {
    expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
    expect(isUuid(NIL_UUID)).toBe(true);
    expect(isUuid('0f8fad5b-d9cb-069f-0165-70867728950e')).toBe(true);
    for (const bad of [
      '',
      'x',
      '0f8fad5bd9cb469fa16570867728950e',
      `${NIL_UUID}\n`,
      ` ${NIL_UUID}`,
    ]) {
      expect(isUuid(bad)).toBe(false);
    }
  });

  it('maps a malformed id to the nil uuid', () => {
    expect(uuidOrNil('not-an-id')).toBe(NIL_UUID);
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(uuidOrNil(id)).toBe(id);
  });

  it('is defined once in lib/server and app', () => {
    const copies = ['lib/server', 'app']
      .flatMap(sources)
      .filter((file) => readFileSync(file, 'utf8').includes('0-9a-f]{8}'));
    expect(copies).toEqual(['lib/server/http/uuid.ts']);
  });
});
