/**
 * Loading a vector directory (FORMAT.md "Loading and skipping"): every
 * `*.json`, sorted by name, each validated against
 * `conformance/vectors.schema.json` whose external $refs resolve to the
 * spec's own schemas by $id. The file name is not part of the format: the
 * public kit names `AH-CTK-001-basic-loop.json` with `"id": "AH-CTK-001"`.
 * A file named `AH-CTK-*` must be a vector (it fails otherwise); any other
 * JSON file runs when it validates and is listed as ignored when it does not
 * (a kit directory may hold a manifest or fixtures beside its vectors).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { loadSchemas } from '@/spec';
import type { Vector } from './vector';

export const CONFORMANCE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_VECTORS_DIR = path.join(CONFORMANCE_DIR, 'vectors');
const VECTOR_FILE = /^AH-CTK-.*\.json$/;
const JSON_FILE = /\.json$/;

/** A refusal with a stable code; the CLI maps it to exit status 2. */
export class CtkError extends Error {
  constructor(
    readonly code: 'ctk_vectors_dir_missing' | 'ctk_empty_vector_set' | 'ctk_usage',
    message: string,
  ) {
    super(message);
    this.name = 'CtkError';
  }
}

/** One file: either a vector that passed the schema, or why it cannot run. */
export type VectorFile =
  | { file: string; ok: true; vector: Vector }
  | { file: string; ok: false; id: string; title: string; part: string; problems: string[] };

/** A directory as loaded: its vectors, and the non-`AH-CTK-*` JSON files that are not vectors. */
export interface VectorDir {
  files: VectorFile[];
  ignored: { file: string; why: string }[];
}

let validator: ValidateFunction | null = null;

export function vectorValidator(): ValidateFunction {
  if (validator) return validator;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  for (const schema of loadSchemas()) ajv.addSchema(schema);
  const schema = JSON.parse(
    readFileSync(path.join(CONFORMANCE_DIR, 'vectors.schema.json'), 'utf8'),
  );
  validator = ajv.compile(schema);
  return validator;
}

export function validateVector(value: unknown): string[] {
  const validate = vectorValidator();
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`,
  );
}

export function loadVectorDir(dir: string): VectorFile[] {
  return readVectorDir(dir).files;
}

export function readVectorDir(dir: string): VectorDir {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CtkError('ctk_vectors_dir_missing', `no vector directory at ${dir}`);
  }
  const names = readdirSync(dir)
    .filter((f) => JSON_FILE.test(f) && statSync(path.join(dir, f)).isFile())
    .sort();
  const files: VectorFile[] = [];
  const ignored: VectorDir['ignored'] = [];
  for (const name of names) {
    const loaded = loadVectorFile(path.join(dir, name));
    if (loaded.ok || VECTOR_FILE.test(name)) files.push(loaded);
    else ignored.push({ file: name, why: loaded.problems[0] ?? 'not a vector' });
  }
  if (files.length === 0) {
    // An empty set would report vacuous conformance.
    throw new CtkError('ctk_empty_vector_set', `no CTK vectors in ${dir}`);
  }
  markDuplicateIds(files);
  return { files, ignored };
}

/** Two files claiming one id would make the report ambiguous: both fail. */
function markDuplicateIds(files: VectorFile[]): void {
  const byId = new Map<string, VectorFile[]>();
  for (const f of files) {
    const id = f.ok ? f.vector.id : f.id;
    byId.set(id, [...(byId.get(id) ?? []), f]);
  }
  for (const [id, same] of byId) {
    if (same.length < 2) continue;
    for (const f of same) {
      const i = files.indexOf(f);
      const others = same.filter((o) => o !== f).map((o) => o.file);
      const v = f.ok ? f.vector : undefined;
      files[i] = {
        file: f.file,
        ok: false,
        id,
        title: v?.title ?? (f.ok ? '' : f.title),
        part: v?.part ?? (f.ok ? '' : f.part),
        problems: [`id ${id} is also used by ${others.join(', ')}`],
      };
    }
  }
}

function loadVectorFile(full: string): VectorFile {
  const file = path.basename(full);
  const fallbackId = file.replace(/\.json$/, '');
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(full, 'utf8'));
  } catch (error) {
    return broken(file, fallbackId, undefined, [`not JSON: ${(error as Error).message}`]);
  }
  const schemaProblems = validateVector(value).map(
    (p) => `vector does not validate against vectors.schema.json: ${p}`,
  );
  const v = value as Partial<Vector>;
  const id = typeof v?.id === 'string' ? v.id : fallbackId;
  if (schemaProblems.length > 0) return broken(file, id, v, schemaProblems);
  // FORMAT.md's rule beside the schema: run_outcome is the default-posture
  // entry, so runners that predate postures read the same expectation.
  const by = v.expect?.run_outcome_by_posture;
  if (by && by.outcomes.continue !== v.expect?.run_outcome) {
    return broken(file, id, v, [
      'expect.run_outcome differs from run_outcome_by_posture.outcomes.continue (FORMAT.md)',
    ]);
  }
  return { file, ok: true, vector: value as Vector };
}

function broken(
  file: string,
  id: string,
  v: Partial<Vector> | undefined,
  problems: string[],
): VectorFile {
  return {
    file,
    ok: false,
    id,
    title: typeof v?.title === 'string' ? v.title : '(unreadable vector)',
    part: typeof v?.part === 'string' ? v.part : 'unparted',
    problems,
  };
}
