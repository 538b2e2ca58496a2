/**
 * The project's schemas (spec/schema, own $ids) accept and refuse the same
 * documents as the normative ones published with the Agent Hooks 0.1
 * specification (§4, §5, §9, §10.3), where a copy of them is checked out at
 * NORMATIVE_DIR; a clone without it reports the check as skipped. Both sets
 * load into ONE Ajv, which only works because their $ids differ.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { INTERCEPTION_POINTS } from '@checkpoint/agent-hooks';
import { loadSchemas, SCHEMA_BASE } from '@/spec/index';
import {
  type Case,
  contextCases,
  recordCases,
  requestCases,
  resolutionCases,
  verdictCases,
} from './agreement-corpus';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NORMATIVE_DIR = path.resolve(ROOT, '..', 'shared', 'spec', 'schema');
const NORMATIVE_BASE = 'https://responsibleai.github.io/agent-hooks/schema/v0.1/';
const present = existsSync(NORMATIVE_DIR);

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

function normativeSchemas(dir: string): { $id: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return normativeSchemas(file);
    return name.endsWith('.json') ? [JSON.parse(readFileSync(file, 'utf8'))] : [];
  });
}

/**
 * `format` in 2020-12 is an annotation unless a schema opts into the
 * format-assertion vocabulary, which the normative ones do not: that is the
 * reading that decides acceptance. The sets must also agree when a tool
 * asserts formats, so both modes are checked.
 */
function oneAjv(assertFormats: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: assertFormats });
  if (assertFormats) addFormats(ajv);
  for (const schema of [...normativeSchemas(NORMATIVE_DIR), ...loadSchemas()]) {
    ajv.addSchema(schema);
  }
  return ajv;
}

/** [what, normative ref, project ref, corpus] */
const PAIRS: [string, string, string, () => Case[]][] = [
  ['agent-context', 'agent-context.schema.json', 'agent-context.schema.json', contextCases],
  ...INTERCEPTION_POINTS.map((point): [string, string, string, () => Case[]] => {
    const name = `agent-context/${point}.schema.json`;
    return [`context at ${point}`, name, name, contextCases];
  }),
  ['verdict', 'verdict.schema.json', 'verdict.schema.json', verdictCases],
  ['record', 'interception-record.schema.json', 'interception-record.schema.json', recordCases],
  ['request', 'approval.schema.json#/$defs/request', 'approval-request.schema.json', requestCases],
  [
    'resolution',
    'approval.schema.json#/$defs/resolution',
    'approval-resolution.schema.json',
    resolutionCases,
  ],
  [
    'interception point',
    'interception-point.schema.json',
    'interception-point.schema.json',
    () => [...INTERCEPTION_POINTS, 'on_error', null, 3].map((p): Case => [String(p), p]),
  ],
];

describe.skipIf(!present)('project schemas agree with ../shared/spec/schema', () => {
  it('the two sets have disjoint $ids and load into one Ajv', () => {
    const ours = loadSchemas().map((s) => s.$id);
    const theirs = normativeSchemas(NORMATIVE_DIR).map((s) => s.$id);
    expect(ours.filter((id) => theirs.includes(id))).toEqual([]);
    expect(ours.every((id) => id.startsWith(SCHEMA_BASE))).toBe(true);
    expect(SCHEMA_BASE.startsWith(NORMATIVE_BASE)).toBe(false);
    expect(() => oneAjv(false)).not.toThrow();
  });

  for (const assertFormats of [false, true]) {
    const mode = assertFormats ? 'formats asserted' : 'formats as annotations';
    describe(mode, () => {
      const ajv = present ? oneAjv(assertFormats) : null;
      it.each(PAIRS)('%s', (_, normativeRef, projectRef, corpus) => {
        const normative = ajv!.getSchema(NORMATIVE_BASE + normativeRef)!;
        const project = ajv!.getSchema(SCHEMA_BASE + projectRef)!;
        const disagreements: string[] = [];
        const seen = new Set<boolean>();
        for (const [name, doc] of corpus()) {
          const expected = normative(doc) === true;
          seen.add(expected);
          if ((project(doc) === true) !== expected) {
            disagreements.push(`${name}: normative ${expected ? 'accepts' : 'refuses'}`);
          }
        }
        expect(disagreements).toEqual([]);
        // A corpus on one side of the line only would prove nothing.
        expect([...seen].sort()).toEqual([false, true]);
      });
    });
  }
});

// Only where the folder is missing: say so in the report instead of passing silently.
if (!present) {
  describe('project schemas agree with ../shared/spec/schema', () => {
    it.skip(`skipped: the normative schemas are not checked out at ${NORMATIVE_DIR}`, () => {});
  });
}
