/**
 * Loading a vector directory (FORMAT.md "Loading and skipping"): every
 * `AH-CTK-*.json`, sorted by name, each validated against
 * `conformance/vectors.schema.json` whose external $refs resolve to the
 * spec's own schemas by $id.
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
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CtkError('ctk_vectors_dir_missing', `no vector directory at ${dir}`);
  }
  const files = readdirSync(dir)
    .filter((f) => VECTOR_FILE.test(f))
    .sort();
  if (files.length === 0) {
    // An empty set would report vacuous conformance.
    throw new CtkError('ctk_empty_vector_set', `no AH-CTK-*.json vectors in ${dir}`);
  }
  return files.map((file) => loadVectorFile(path.join(dir, file)));
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
  const problems = validateVector(value);
  const v = value as Partial<Vector>;
  if (problems.length === 0 && `${v.id}.json` !== file) {
    problems.push(`id ${v.id} does not match the file name ${file}`);
  }
  // The schema's own rule: run_outcome is the default-posture entry, so runners
  // that predate postures read the same expectation.
  const by = v.expect?.run_outcome_by_posture;
  if (problems.length === 0 && by && by.outcomes.continue !== v.expect?.run_outcome) {
    problems.push('expect.run_outcome differs from run_outcome_by_posture.outcomes.continue');
  }
  if (problems.length > 0)
    return broken(file, typeof v?.id === 'string' ? v.id : fallbackId, v, problems);
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
    problems: problems.map((p) => `vector does not validate against vectors.schema.json: ${p}`),
  };
}
