import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No import cycles in the app's own modules. A cycle works or fails
 * depending on which module a bundle happens to load first: one through the
 * job registry once made `POST /api/v1/approvals` answer 500 in the built app
 * ("Cannot access 'approvalExpireJob' before initialization") while every
 * test that loaded the modules in another order passed. Type-only imports
 * vanish at compile time and do not count; a dynamic `import()` of a project
 * module does count: deferring a load does not remove the dependency, it only
 * hides the cycle from the bundler until the first request.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SOURCE_DIRS = ['lib', 'app', 'conformance', 'bin'];
/** Where a lazy `import()` of a project module is refused outright. */
const NO_LAZY_IMPORT_DIRS = ['lib', 'app'];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name === 'node_modules' || name === 'generated' || name.startsWith('.')) continue;
      sourceFiles(full, out);
    } else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name)) {
      out.push(full);
    }
  }
  return out;
}

function resolveSpecifier(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('@/')) base = path.join(ROOT, spec.slice(2));
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return Boolean(
    !clause.name &&
      named &&
      ts.isNamedImports(named) &&
      named.elements.length > 0 &&
      named.elements.every((e) => e.isTypeOnly),
  );
}

interface FileImports {
  /** Static value imports and re-exports. */
  static: string[];
  /** `import('…')` calls anywhere in the file, by their argument. */
  dynamic: { spec: string | null; resolved: string | null }[];
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function fileImports(file: string): FileImports {
  const source = parse(file);
  const out: FileImports = { static: [], dynamic: [] };
  for (const node of source.statements) {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(node) && !isTypeOnlyImport(node)) spec = node.moduleSpecifier;
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      spec = node.moduleSpecifier;
    }
    if (spec && ts.isStringLiteral(spec)) {
      const resolved = resolveSpecifier(file, spec.text);
      if (resolved) out.static.push(resolved);
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      const spec = arg && ts.isStringLiteralLike(arg) ? arg.text : null;
      out.dynamic.push({ spec, resolved: spec === null ? null : resolveSpecifier(file, spec) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every module a file may load at run time: static and dynamic imports alike. */
function runtimeImports(file: string): string[] {
  const { static: direct, dynamic } = fileImports(file);
  return [...direct, ...dynamic.flatMap((d) => (d.resolved ? [d.resolved] : []))];
}

/** Strongly connected components with more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(ROOT, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The project modules `from` loads, directly or through others (itself excluded). */
function closure(graph: Map<string, string[]>, from: string): string[] {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length > 0) {
    for (const dep of graph.get(todo.pop()!) ?? []) {
      if (!seen.has(dep)) {
        seen.add(dep);
        todo.push(dep);
      }
    }
  }
  seen.delete(from);
  return [...seen].map((f) => path.relative(ROOT, f)).sort();
}

function projectGraph(): Map<string, string[]> {
  const files = SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(ROOT, d)));
  expect(files.length).toBeGreaterThan(100);
  return new Map(files.map((f) => [f, runtimeImports(f)]));
}

const rel = (p: string) => path.join(ROOT, p);

describe('module graph', () => {
  it('finds a cycle when there is one (the detector works)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('counts a lazy import() of a project module as an edge', () => {
    const edges = runtimeImports(rel('tests/unit/fixtures/import-cycles/lazy.ts'));
    expect(edges.map((e) => path.relative(ROOT, e))).toEqual([
      'tests/unit/fixtures/import-cycles/eager.ts',
      'tests/unit/fixtures/import-cycles/eager.ts',
    ]);
  });

  it('has no import cycle among the project’s own modules, lazy imports included', () => {
    expect(cycles(projectGraph())).toEqual([]);
  });

  it('has no lazy import() of a project module in lib/ or app/', () => {
    const lazy = NO_LAZY_IMPORT_DIRS.flatMap((d) => sourceFiles(rel(d))).flatMap((f) =>
      fileImports(f)
        .dynamic.filter((d) => d.spec === null || d.resolved !== null)
        .map((d) => `${path.relative(ROOT, f)}: import(${d.spec ?? '<computed>'})`),
    );
    expect(lazy).toEqual([]);
  });
});

/**
 * Jobs: producers load the definitions (name, schema, retry, dedupe key),
 * never the handlers; only the worker loads the handlers. Otherwise writing
 * an outbox row pulls in every service a handler calls, and those services
 * write outbox rows: the cycle this file exists to catch.
 */
describe('job definitions and handlers', () => {
  const DEFINITIONS = 'lib/server/jobs/definitions.ts';
  const HANDLERS = 'lib/server/jobs/handlers.ts';
  const PRODUCER_SIDE = new Set([DEFINITIONS, 'lib/server/jobs/producers.ts']);

  it('the definitions load no other project module', () => {
    expect(existsSync(rel(DEFINITIONS))).toBe(true);
    expect(closure(projectGraph(), rel(DEFINITIONS))).toEqual([]);
  });

  it('the outbox loads the definitions and no handler', () => {
    const loaded = closure(projectGraph(), rel('lib/server/queue/outbox.ts'));
    expect(loaded).toContain(DEFINITIONS);
    expect(loaded.filter((f) => f.startsWith('lib/server/jobs/'))).toEqual([DEFINITIONS]);
  });

  it('the queue status every page renders loads no handler', () => {
    const loaded = closure(projectGraph(), rel('lib/server/queue/status.ts'));
    expect(loaded.filter((f) => f.startsWith('lib/server/jobs/'))).toEqual([DEFINITIONS]);
  });

  it('only the worker imports the handlers', () => {
    const graph = projectGraph();
    const handlerSide = (f: string) => {
      const r = path.relative(ROOT, f);
      return r.startsWith('lib/server/jobs/') && !PRODUCER_SIDE.has(r);
    };
    const importers = [...graph]
      .filter(([file, deps]) => !handlerSide(file) && deps.some(handlerSide))
      .map(([file]) => path.relative(ROOT, file));
    expect(existsSync(rel(HANDLERS))).toBe(true);
    expect(importers).toEqual(['lib/server/queue/worker.ts']);
  });
});
