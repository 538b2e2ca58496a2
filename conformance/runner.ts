/**
 * The CTK runner (§13.2): vectors are data, the host is a parameter. Each
 * vector runs on a fresh host through `harness.run`, and its `expect` block
 * is checked against the run record and the recorded contexts.
 */
import { checkRun } from './assertions';
import type { Harness, HarnessDeclaration } from './harness';
import { CtkError, loadVectorDir, type VectorFile } from './load';
import { buildSetup } from './scripted';
import type { Vector } from './vector';

export type Status = 'pass' | 'fail' | 'skip';

export interface VectorResult {
  id: string;
  title: string;
  part: string;
  status: Status;
  failures: string[];
  detail: string | null;
}

export interface CtkRun {
  summary: { pass: number; fail: number; skip: number };
  results: VectorResult[];
}

export interface RunOptions {
  /** Per-vector bound: a run that never settles fails instead of hanging the kit. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function partOf(vector: Vector): string {
  return vector.part ?? 'unparted';
}

/** Runs one schema-valid vector. Never throws: a harness that throws fails the vector. */
export async function runVector(
  vector: Vector,
  harness: Harness,
  options: RunOptions = {},
): Promise<VectorResult> {
  const base = { id: vector.id, title: vector.title, part: partOf(vector) };
  const missing = missingCapabilities(vector, harness.declaration);
  if (missing.length > 0) {
    return {
      ...base,
      status: 'skip',
      failures: [],
      detail: `harness does not declare: ${missing.join(', ')}`,
    };
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    // Inside the try: a vector the scripted seams cannot set up fails, it never aborts the kit.
    const { setup, recorder } = buildSetup(vector);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const run = await Promise.race([
      harness.run(setup),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the run did not finish within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
    const failures = checkRun(vector.expect, run, recorder.contexts, harness.declaration.postures);
    const detail = `${vector.spec_clause}; outcome ${run.outcome}, ${run.records.length} records`;
    return { ...base, status: failures.length ? 'fail' : 'pass', failures, detail };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return {
      ...base,
      status: 'fail',
      failures: [`harness error: ${message}`],
      detail: vector.spec_clause,
    };
  } finally {
    clearTimeout(timer);
  }
}

function missingCapabilities(vector: Vector, declaration: HarnessDeclaration): string[] {
  return (vector.capabilities ?? []).filter((c) => !declaration.capabilities.includes(c));
}

/** Runs a loaded set in order. Refuses an empty set: it would report vacuous conformance. */
export async function runVectors(
  files: VectorFile[],
  harness: Harness,
  options: RunOptions = {},
  onResult?: (result: VectorResult) => void,
): Promise<CtkRun> {
  if (files.length === 0)
    throw new CtkError('ctk_empty_vector_set', 'refusing to run an empty vector set');
  const results: VectorResult[] = [];
  for (const f of files) {
    const result = f.ok
      ? await runVector(f.vector, harness, options)
      : {
          id: f.id,
          title: f.title,
          part: f.part,
          status: 'fail' as const,
          failures: f.problems,
          detail: f.file,
        };
    results.push(result);
    onResult?.(result);
  }
  return { summary: summarize(results), results };
}

export async function runVectorDir(
  dir: string,
  harness: Harness,
  options: RunOptions = {},
  onResult?: (result: VectorResult) => void,
): Promise<CtkRun> {
  return runVectors(loadVectorDir(dir), harness, options, onResult);
}

export function summarize(results: VectorResult[]): CtkRun['summary'] {
  const summary = { pass: 0, fail: 0, skip: 0 };
  for (const r of results) summary[r.status]++;
  return summary;
}
