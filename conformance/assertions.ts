/**
 * The `expect` block of a vector against one run (FORMAT.md "Assertions").
 * Returns every failure, not just the first: a report that lists them all
 * is what a framework author needs to fix a host.
 */
import { validateAgainst } from '@/spec';
import type { Postures, RunRecord } from './harness';
import { deepEqual, resolvePath } from './json-path';
import type { Expect, ExpectedInterception, ExpectedRecord } from './vector';

/** A value for a failure message, cut so that one huge fixture cannot flood the report. */
const show = (v: unknown) => {
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 160 ? `${text.slice(0, 157)}...(${text.length} chars)` : text;
};

export function expectedOutcome(expect: Expect, postures: Postures): string {
  const by = expect.run_outcome_by_posture;
  return by ? by.outcomes[postures[by.posture]] : expect.run_outcome;
}

export function checkRun(
  expect: Expect,
  run: RunRecord,
  contexts: Record<string, unknown>[],
  postures: Postures,
): string[] {
  const failures: string[] = [];
  checkInterceptions(expect, contexts, failures);
  const points = contexts.map((c) => c.interception_point);
  for (const p of expect.interceptions_absent ?? []) {
    if (points.includes(p)) failures.push(`interceptions_absent: ${p} was emitted`);
  }
  const outcome = expectedOutcome(expect, postures);
  if (run.outcome !== outcome)
    failures.push(`run_outcome: expected ${outcome}, got ${run.outcome}`);
  if ('final_output' in expect && !deepEqual(run.final_output ?? null, expect.final_output)) {
    failures.push(
      `final_output: expected ${show(expect.final_output)}, got ${show(run.final_output)}`,
    );
  }
  if (expect.tool_invocations && !deepEqual(run.tool_invocations, expect.tool_invocations)) {
    failures.push(
      `tool_invocations: expected ${show(expect.tool_invocations)}, got ${show(run.tool_invocations)}`,
    );
  }
  for (const name of expect.tool_not_invoked ?? []) {
    if (run.tool_invocations.some((t) => t.name === name))
      failures.push(`tool_not_invoked: ${name} was invoked`);
  }
  if ('released_output' in expect && !deepEqual(run.released_output, expect.released_output)) {
    failures.push(
      `released_output: expected ${show(expect.released_output)}, got ${show(run.released_output)}`,
    );
  }
  const persisted = JSON.stringify(run.persisted ?? null);
  for (const needle of expect.persisted_must_not_contain ?? []) {
    if (persisted.includes(needle))
      failures.push(`persisted_must_not_contain: found ${show(needle)}`);
  }
  checkRecords(expect.records ?? [], run.records, failures);
  checkIdentities(expect.identities_equal, run, failures);
  checkSequence(contexts, failures);
  return failures;
}

function checkInterceptions(
  expect: Expect,
  contexts: Record<string, unknown>[],
  failures: string[],
): void {
  const strict = expect.sequence_strict !== false;
  const got = contexts.map((c) => String(c.interception_point));
  const want = expect.interceptions.map((i) => i.interception_point);
  const pairs: [ExpectedInterception, Record<string, unknown>, number][] = [];
  if (strict) {
    if (!deepEqual(got, want)) {
      failures.push(`interceptions: expected [${want.join(', ')}], got [${got.join(', ')}]`);
      return;
    }
    expect.interceptions.forEach((e, i) => {
      pairs.push([e, contexts[i], i]);
    });
  } else {
    let from = 0;
    for (const e of expect.interceptions) {
      const at = got.indexOf(e.interception_point, from);
      if (at < 0) {
        failures.push(
          `interceptions: ${e.interception_point} not found after position ${from} in [${got.join(', ')}]`,
        );
        return;
      }
      pairs.push([e, contexts[at], at]);
      from = at + 1;
    }
  }
  for (const [e, ctx, i] of pairs)
    checkContext(e, ctx, `interceptions[${i}] ${e.interception_point}`, failures);
}

function checkContext(
  e: ExpectedInterception,
  ctx: Record<string, unknown>,
  where: string,
  failures: string[],
): void {
  if (e.context_must_validate !== false) {
    // Formats asserted: the harness builds these contexts, so it should spell
    // timestamps as RFC 3339 even where the spec's schema only annotates them.
    const valid = validateAgainst('context', ctx, { assertFormats: true });
    if (!valid.ok)
      failures.push(`${where}: context fails the §4 envelope check: ${valid.errors.join('; ')}`);
  }
  for (const [path, want] of Object.entries(e.context ?? {})) {
    const got = resolvePath(ctx, path);
    if (!got.found) failures.push(`${where}: context path ${path} does not resolve`);
    else if (!deepEqual(got.value, want))
      failures.push(`${where}: context ${path} expected ${show(want)}, got ${show(got.value)}`);
  }
  const text = JSON.stringify(ctx);
  for (const needle of e.context_must_contain ?? []) {
    if (!text.includes(needle)) failures.push(`${where}: context does not contain ${show(needle)}`);
  }
  for (const needle of e.context_must_not_contain ?? []) {
    if (text.includes(needle)) failures.push(`${where}: context contains ${show(needle)}`);
  }
}

function checkRecords(expected: ExpectedRecord[], records: unknown[], failures: string[]): void {
  let from = 0;
  for (const e of expected) {
    const at = records.findIndex(
      (r, i) =>
        i >= from &&
        (r as { interception_point?: unknown })?.interception_point === e.interception_point,
    );
    if (at < 0) {
      failures.push(`records: no ${e.interception_point} record at or after position ${from}`);
      return;
    }
    from = at + 1;
    const where = `records[${at}] ${e.interception_point}`;
    const record = records[at];
    for (const [path, want] of Object.entries(e.assert ?? {})) {
      const got = resolvePath(record, path);
      if (!got.found) failures.push(`${where}: ${path} does not resolve (expected ${show(want)})`);
      else if (!deepEqual(got.value, want))
        failures.push(`${where}: ${path} expected ${show(want)}, got ${show(got.value)}`);
    }
    for (const path of e.absent ?? []) {
      const got = resolvePath(record, path);
      if (got.found) failures.push(`${where}: ${path} must be absent, got ${show(got.value)}`);
    }
    for (const path of e.present ?? []) {
      if (!resolvePath(record, path).found) failures.push(`${where}: ${path} must be present`);
    }
  }
}

function checkIdentities(want: boolean | undefined, run: RunRecord, failures: string[]): void {
  if (want === undefined) return;
  const equal = run.identities.every((i) => i.input_identity === i.enforced_identity);
  if (want && !equal)
    failures.push('identities_equal: input and enforced identities differ at some emission');
  if (!want && equal)
    failures.push('identities_equal: expected a difference at some emission, all were equal');
}

function checkSequence(contexts: Record<string, unknown>[], failures: string[]): void {
  for (let i = 1; i < contexts.length; i++) {
    const a = contexts[i - 1].sequence as number;
    const b = contexts[i].sequence as number;
    if (!(typeof a === 'number' && typeof b === 'number' && b > a)) {
      failures.push(
        `sequence: not strictly increasing at recorded context ${i} (${show(a)} then ${show(b)})`,
      );
      return;
    }
  }
}
