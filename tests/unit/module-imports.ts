import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Reads the project's module references for tests/unit/boundaries.test.ts. */

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCAN_DIRS = [
  'app',
  'lib',
  'conformance',
  'spec',
  'bin',
  'tests',
  'scripts',
  'bench',
  'examples',
];
const SKIP_DIRS = new Set(['node_modules', 'generated', 'dist']);
const SOURCE = /\.(tsx?|mts|cts|mjs|cjs|js)$/;

/** One module reference; `specifier` is null for a computed `import()`. */
export type Import = { specifier: string | null; line: number; typeOnly: boolean };

/** A project file (relative to the root) or a package name; `unresolved` for a dangling path. */
export type Target =
  | { kind: 'file'; rel: string }
  | { kind: 'package'; name: string }
  | { kind: 'unresolved' };

export type ParsedFile = { imports: Import[]; directive: string | null };

/** Every module reference in a source text, including the ones that vanish at compile time. */
export function parseModule(fileName: string, text: string): ParsedFile {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const imports: Import[] = [];
  const add = (node: ts.Node, spec: ts.Node | undefined, typeOnly = false) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    const literal = spec && (ts.isStringLiteral(spec) || ts.isNoSubstitutionTemplateLiteral(spec));
    imports.push({ specifier: literal ? spec.text : null, line: line + 1, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node, node.moduleSpecifier, importIsTypeOnly(node));
    } else if (ts.isExportDeclaration(node)) {
      if (node.moduleSpecifier) add(node, node.moduleSpecifier, exportIsTypeOnly(node));
    } else if (ts.isImportEqualsDeclaration(node)) {
      if (ts.isExternalModuleReference(node.moduleReference)) {
        add(node, node.moduleReference.expression, node.isTypeOnly);
      }
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (callee.kind === ts.SyntaxKind.ImportKeyword || isRequire) add(node, node.arguments[0]);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      add(node, ts.isLiteralTypeNode(arg) ? arg.literal : undefined, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const first = source.statements[0];
  const directive =
    first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression)
      ? first.expression.text
      : null;
  return { imports, directive };
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The workspace packages, by name, to the entry the app resolves them to (tsconfig `paths`). */
const WORKSPACE_PACKAGES: Record<string, string> = {
  '@checkpoint/agent-hooks': 'lib/hooks/index.ts',
  '@checkpoint/client': 'lib/client/index.ts',
};

export function resolveTarget(fromRel: string, specifier: string): Target {
  let base: string;
  if (specifier in WORKSPACE_PACKAGES) return { kind: 'file', rel: WORKSPACE_PACKAGES[specifier] };
  if (specifier.startsWith('@/')) base = path.join(ROOT, specifier.slice(2));
  else if (specifier.startsWith('.')) base = path.resolve(ROOT, path.dirname(fromRel), specifier);
  else {
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    return { kind: 'package', name };
  }
  const stem = base.replace(/\.(m|c)?js$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    path.join(base, 'index.ts'),
  ];
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile())
      return { kind: 'file', rel: toRel(candidate) };
  }
  return { kind: 'unresolved' };
}

const toRel = (full: string) => path.relative(ROOT, full).split(path.sep).join('/');

function sourceFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) sourceFiles(full, out);
    } else if (SOURCE.test(name) && !name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** Every source file of the project (root files and the source folders), parsed. */
export function projectModules(): Map<string, ParsedFile> {
  const rootFiles = readdirSync(ROOT)
    .filter((name) => SOURCE.test(name) && statSync(path.join(ROOT, name)).isFile())
    .map((name) => path.join(ROOT, name));
  const nested = SCAN_DIRS.flatMap((d) => sourceFiles(path.join(ROOT, d)));
  return new Map(
    [...rootFiles, ...nested].map((full) => [
      toRel(full),
      parseModule(full, readFileSync(full, 'utf8')),
    ]),
  );
}
