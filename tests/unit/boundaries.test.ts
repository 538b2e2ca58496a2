import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  type ParsedFile,
  parseModule,
  projectModules,
  resolveTarget,
  type Target,
} from './module-imports';

/**
 * The directions between the parts, enforced: app → lib/server → lib/hooks;
 * lib/hooks stands alone behind its index; lib/client and conformance sit on
 * lib/hooks only; spec/ is data plus one validator and depends on no code of
 * ours, so the implementation can never define the spec. Every import counts
 * here — value or type, static or dynamic, re-exports and `import('x')` type
 * references — because a type import is still a dependency of the source a
 * package ships, and a lazy import is still a dependency at run time.
 */

const IS_TEST = /\.test\.tsx?$/;

/**
 * The engine's runtime dependencies, exactly (lib/hooks/package.json): the
 * SHA-256 of the §10.2 identity where no native one is at hand.
 */
const HOOKS_PACKAGES = new Set(['@noble/hashes']);

/** What lib/server stands on (lib/hooks only through its index). */
const SERVER_DEPENDS_ON = [
  'lib/server',
  'lib/hooks',
  'lib/proof',
  'lib/verify',
  'lib/generated',
  'spec',
];

/** Parts where an import the test cannot read (a computed `import()`, a dangling path) is refused. */
const GUARDED = ['lib', 'app', 'conformance', 'spec'];

const within = (rel: string, dir: string) => rel.startsWith(`${dir}/`);
const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

/** The rule a file breaks by importing `target`, or null. `from` is relative to the root. */
function breach(from: string, target: Target): string | null {
  if (target.kind === 'unresolved') return 'does not resolve to a project file';
  const file = target.kind === 'file' ? target.rel : null;
  const pkg = target.kind === 'package' ? target.name : null;

  if (within(from, 'lib/hooks')) {
    if (file && !within(file, 'lib/hooks')) return 'lib/hooks imports no other project code';
    // Tests may use their runner and Node; the engine itself runs in Node and
    // browsers alike, so it imports no Node builtin, only its dependencies.
    if (pkg && !IS_TEST.test(from) && !HOOKS_PACKAGES.has(pkg)) {
      return `lib/hooks is runtime-neutral and depends only on ${[...HOOKS_PACKAGES]}, not ${pkg}`;
    }
    return null;
  }
  if (within(from, 'spec') && file && !(within(file, 'spec') && file.endsWith('.json'))) {
    return 'spec/ imports no project code, only its own JSON and packages';
  }
  if (file && within(file, 'lib/hooks') && file !== 'lib/hooks/index.ts') {
    // White-box tests of the engine (golden identities, the spec agreement) may reach in.
    if (IS_TEST.test(from)) return null;
    return 'lib/hooks is imported only through its index (@/lib/hooks)';
  }
  if (within(from, 'lib/client')) {
    if (pkg) return 'lib/client depends on no package (only fetch and lib/hooks)';
    if (file && !within(file, 'lib/client') && file !== 'lib/hooks/index.ts') {
      return 'lib/client imports only lib/hooks and itself';
    }
  }
  if (within(from, 'lib/server') && file) {
    if (within(file, 'app') || within(file, 'lib/client')) {
      return 'lib/server never imports app/ or lib/client';
    }
    // Nothing the server runs on lives above it (a root module, bin/, scripts/).
    if (!SERVER_DEPENDS_ON.some((d) => within(file, d))) {
      return `lib/server imports only ${SERVER_DEPENDS_ON.join(', ')}`;
    }
  }
  if (within(from, 'conformance') && file && (within(file, 'lib/server') || within(file, 'app'))) {
    return 'conformance/ never imports lib/server or app/';
  }
  if (within(from, 'app') && file && within(file, 'lib/generated')) {
    return 'app/ reaches the database types through lib/server, not lib/generated';
  }
  return null;
}

function violations(modules: Map<string, ParsedFile>): string[] {
  const out: string[] = [];
  for (const [from, { imports }] of modules) {
    const guarded = GUARDED.some((d) => within(from, d));
    for (const { specifier, line } of imports) {
      if (specifier === null) {
        if (guarded) out.push(`${from}:${line}: computed import()`);
        continue;
      }
      const target = resolveTarget(from, specifier);
      // A dangling path outside the guarded parts is tsc's business, not a boundary.
      if (target.kind === 'unresolved' && !guarded) continue;
      const rule = breach(from, target);
      if (rule) out.push(`${from}:${line}: '${specifier}' — ${rule}`);
    }
  }
  return out;
}

/**
 * Modules a 'use client' component loads in the browser that import a Node
 * builtin, as "entry → module". Type-only imports are erased and a
 * 'use server' module reaches the browser only as a reference, so the walk
 * stops at both.
 */
function nodeOnlyInBrowser(modules: Map<string, ParsedFile>): string[] {
  const found: string[] = [];
  for (const [entry, parsed] of modules) {
    if (parsed.directive !== 'use client') continue;
    const seen = new Set([entry]);
    const queue = [entry];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const { specifier, typeOnly } of modules.get(from)?.imports ?? []) {
        if (specifier === null || typeOnly) continue;
        const target = resolveTarget(from, specifier);
        if (target.kind === 'package' && isBuiltin(target.name)) found.push(`${entry} → ${from}`);
        if (target.kind !== 'file' || seen.has(target.rel)) continue;
        seen.add(target.rel);
        if (modules.get(target.rel)?.directive !== 'use server') queue.push(target.rel);
      }
    }
  }
  return found;
}

describe('import boundaries', () => {
  it('reads every kind of import (the reader works)', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B } from './b';",
      "export * from './c';",
      "export type { D } from './d';",
      "const e = await import('./e');",
      "type F = import('./f').F;",
      "const g = require('./g');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the probe is a computed import().
      'const h = await import(`./${name}`);',
      "import './i';",
    ].join('\n');
    const read = parseModule('x.ts', `'use client';\n${text}`);
    expect(read.directive).toBe('use client');
    expect(read.imports.map((i) => [i.specifier, i.typeOnly])).toEqual([
      ['./a', true],
      ['./b', true],
      ['./c', false],
      ['./d', true],
      ['./e', false],
      ['./f', true],
      ['./g', false],
      [null, false],
      ['./i', false],
    ]);
  });

  it('refuses each direction it guards (the rules work)', () => {
    const file = (rel: string): Target => ({ kind: 'file', rel });
    const pkg = (name: string): Target => ({ kind: 'package', name });
    expect(breach('lib/hooks/host.ts', file('lib/server/db.ts'))).toMatch(/lib\/hooks/);
    expect(breach('lib/hooks/host.ts', pkg('zod'))).toMatch(/depends only on/);
    expect(breach('lib/hooks/host.ts', pkg('node:crypto'))).toMatch(/runtime-neutral/);
    expect(breach('lib/hooks/host.ts', pkg('crypto'))).toMatch(/runtime-neutral/);
    expect(breach('lib/hooks/host.test.ts', pkg('node:crypto'))).toBeNull();
    expect(breach('lib/hooks/host.ts', pkg('@noble/hashes'))).toBeNull();
    expect(breach('lib/server/a.ts', file('lib/hooks/path.ts'))).toMatch(/index/);
    expect(breach('lib/server/a.ts', file('lib/hooks/index.ts'))).toBeNull();
    expect(breach('lib/server/a.test.ts', file('lib/hooks/path.ts'))).toBeNull();
    expect(breach('lib/client/a.ts', file('lib/server/db.ts'))).toMatch(/lib\/client/);
    expect(breach('lib/client/a.ts', pkg('zod'))).toMatch(/lib\/client/);
    expect(breach('lib/server/a.ts', file('lib/client/index.ts'))).toMatch(/lib\/client/);
    expect(breach('lib/server/a.ts', file('app/page.tsx'))).toMatch(/app/);
    expect(breach('lib/server/a.ts', file('auth.ts'))).toMatch(/lib\/server imports only/);
    expect(breach('conformance/a.ts', file('lib/server/db.ts'))).toMatch(/conformance/);
    expect(breach('spec/index.ts', file('lib/hooks/index.ts'))).toMatch(/spec/);
    expect(breach('spec/index.ts', file('spec/schema/verdict.schema.json'))).toBeNull();
    expect(breach('spec/index.ts', pkg('ajv'))).toBeNull();
    expect(breach('app/page.tsx', file('lib/generated/prisma/enums.ts'))).toMatch(/lib\/server/);
    expect(breach('app/page.tsx', { kind: 'unresolved' })).toMatch(/resolve/);
  });

  it('finds no import against the directions in the project', () => {
    const modules = projectModules();
    expect(modules.size).toBeGreaterThan(100);
    expect(violations(modules)).toEqual([]);
  });

  it('loads no Node builtin into a client component’s bundle', () => {
    const modules = projectModules();
    const clientEntries = [...modules.values()].filter((m) => m.directive === 'use client');
    expect(clientEntries.length).toBeGreaterThan(5);
    expect(nodeOnlyInBrowser(modules)).toEqual([]);
  });

  it('would see a Node builtin below the engine’s index in a client bundle (the walk works)', () => {
    const modules = projectModules();
    const client = (line: string) => parseModule('probe.tsx', `'use client';\n${line}`);
    modules.set(
      'app/probe-value.tsx',
      client("import { canonicalJson } from '@checkpoint/agent-hooks';"),
    );
    modules.set(
      'app/probe-type.tsx',
      client("import type { Verdict } from '@checkpoint/agent-hooks';"),
    );
    // The engine is runtime-neutral: its whole index loads in a browser as it is…
    expect(nodeOnlyInBrowser(modules)).toEqual([]);
    // …and a builtin planted one module below the index is found.
    const planted = "import { createHash } from 'node:crypto';";
    modules.set('lib/hooks/plain.ts', parseModule('lib/hooks/plain.ts', planted));
    const found = nodeOnlyInBrowser(modules);
    expect(found).toContain('app/probe-value.tsx → lib/hooks/plain.ts');
    expect(found.filter((f) => f.startsWith('app/probe-type'))).toEqual([]);
  });
});
