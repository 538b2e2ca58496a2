import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { INTERCEPTION_POINTS } from '@checkpoint/agent-hooks';
import { addSpecSchemas, loadSchemas, SCHEMA_BASE, validateAgainst } from '@/spec/index';
import { contextAt, record } from './examples';

function errorsOf(
  kind: Parameters<typeof validateAgainst>[0],
  value: unknown,
  options: Parameters<typeof validateAgainst>[2] = {},
): string[] {
  const result = validateAgainst(kind, value, options);
  return result.ok ? [] : result.errors;
}

describe('spec/schema (§4, §5, §9, §10.3)', () => {
  it('every schema compiles under Ajv 2020 strict mode with no warning, under the project ids', () => {
    const warnings: string[] = [];
    const ajv = new Ajv2020({
      strict: true,
      // The spec's nullable members are type unions (["string", "null"]).
      allowUnionTypes: true,
      // if/then/else legitimately requires members declared elsewhere.
      strictRequired: false,
      logger: { log: () => {}, warn: (...args) => warnings.push(args.join(' ')), error: () => {} },
    });
    addSpecSchemas(ajv);
    const schemas = loadSchemas();
    for (const schema of schemas) expect(ajv.getSchema(schema.$id)).toBeTypeOf('function');
    expect(warnings).toEqual([]);
    const ids = schemas.map((schema) => schema.$id);
    // The CTK vector schema $refs exactly these two (under the project ids).
    expect(ids).toContain(`${SCHEMA_BASE}interception-point.schema.json`);
    expect(ids).toContain(`${SCHEMA_BASE}verdict.schema.json`);
    expect(ids).toHaveLength(14);
  });

  it("resolves the CTK vector schema's $refs (interception point, verdict)", () => {
    const vectorSchema = JSON.parse(
      readFileSync(new URL('../../../conformance/vectors.schema.json', import.meta.url), 'utf8'),
    );
    const validate = addSpecSchemas(new Ajv2020({ strict: false })).compile(vectorSchema);
    const vector = {
      id: 'AH-CTK-999-schema-smoke',
      title: 'smoke',
      spec_clause: '§5',
      scenario: { input: { content: 'hi', role: 'user' } },
      interceptor_script: [{ at: 'input', return: { decision: 'deny', approval: {} } }],
      expect: { interceptions: [{ interception_point: 'input' }], run_outcome: 'blocked' },
    };
    validate(vector);
    expect(validate.errors ?? []).toEqual([]);
    vector.interceptor_script[0].return = { decision: 'allow', approval: {} };
    expect(validate(vector)).toBe(false);
    vector.interceptor_script[0] = { at: 'on_error', return: { decision: 'allow' } } as never;
    expect(validate(vector)).toBe(false);
  });

  describe('context', () => {
    it.each(INTERCEPTION_POINTS)('accepts the §4.2 example at %s', (point) => {
      expect(errorsOf('context', contextAt(point))).toEqual([]);
    });

    it('accepts the §4.5 optional fields where §4.5 allows them', () => {
      const ctx = {
        ...contextAt('post_model_call'),
        request_id: 'r-1',
        usage: { prompt_tokens: 10, completion_tokens: 2 },
        model: { id: 'm-1', vendor: 'acme', params: { temperature: 0 } },
        agent: { id: 'a', framework: 'langchain', name: 'A', version: '1' },
        session: { id: 's', started_at: '2026-06-19T14:00:00Z', turn: 1 },
        trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
        tenant: { id: 't' },
        actor: { id: 'u', kind: 'human' },
        budgets: { cost_usd: 0.2 },
        extensions: { acme: { redacted: ['$target.x'] }, ctk: {} },
        messages: [{ role: 'user', content: { parts: [] } }],
      };
      expect(errorsOf('context', ctx)).toEqual([]);
    });

    it("is open at the top level like the spec's; each point closes its conditional objects", () => {
      expect(errorsOf('context', { ...contextAt('input'), usage: {} })).toEqual([]);
      expect(errorsOf('context', { ...contextAt('output'), vendor_field: 1 })).toEqual([]);
      const toolCall = { ...(contextAt('pre_tool_call').tool_call as object), extra: 1 };
      expect(errorsOf('context', { ...contextAt('pre_tool_call'), tool_call: toolCall })).toContain(
        '/tool_call must NOT have unevaluated properties',
      );
    });

    it('refuses missing conditional fields and wrong types', () => {
      const { tool_result: _, ...noResult } = contextAt('post_tool_call');
      expect(errorsOf('context', noResult)).toContain(
        "(root) must have required property 'tool_result'",
      );
      const badRole = { ...contextAt('input'), input: { content: 'x', role: 'admin' } };
      expect(errorsOf('context', badRole)).toContain(
        '/input/role must be equal to one of the allowed values',
      );
      const noToolCalls = contextAt('post_model_call');
      noToolCalls.response = { content: 'x', finish_reason: 'stop' };
      expect(errorsOf('context', noToolCalls)).toContain(
        "/response must have required property 'tool_calls'",
      );
    });

    it('checks the §4.1 core patterns and the §4.6 namespace pattern; formats only on request', () => {
      const bad = {
        ...contextAt('output'),
        spec: 'agent-hooks/v1',
        agent: { id: 'a', framework: 'LangChain' },
        sequence: -1,
        timestamp: 'yesterday',
        extensions: { 'Bad-NS': 1 },
      };
      const errors = errorsOf('context', bad);
      expect(errors).toEqual(
        expect.arrayContaining([
          '/spec must match pattern "^agent-hooks/\\d+\\.\\d+$"',
          '/agent/framework must match pattern "^[a-z0-9_-]+$"',
          '/sequence must be >= 0',
        ]),
      );
      expect(errors.some((line) => line.startsWith('/extensions'))).toBe(true);
      // 2020-12: format is an annotation in the spec's schemas.
      expect(errors.some((line) => line.startsWith('/timestamp'))).toBe(false);
      expect(errorsOf('context', bad, { assertFormats: true })).toContain(
        '/timestamp must match format "date-time"',
      );
    });

    it('falls back to the envelope for an unknown point and says so', () => {
      const errors = errorsOf('context', { ...contextAt('input'), interception_point: 'on_error' });
      expect(errors).toContain('/interception_point must be equal to one of the allowed values');
    });
  });

  describe('verdict (§5)', () => {
    it.each([
      { decision: 'allow' },
      {
        decision: 'allow',
        warnings: [{ reason: 'slow', message: 'took 4s' }],
        result_labels: ['pii'],
      },
      { decision: 'deny', reason: 'pii', approval: {} },
      { decision: 'transform', transform: { path: '$target.q', value: null } },
      {
        decision: 'deny',
        evidence: { artefact: 'x', verification_pointers: { log: 'https://e/1' } },
      },
    ])('accepts %j', (verdict) => {
      expect(errorsOf('verdict', verdict)).toEqual([]);
    });

    it.each([
      [{}, "(root) must have required property 'decision'"],
      [{ decision: 'escalate' }, '/decision must be equal to one of the allowed values'],
      [
        { decision: 'deny', reason: 'host_error:context_invalid' },
        '/reason must NOT start with "host_error:"',
      ],
      [{ decision: 'allow', approval: {} }, '/decision must be equal to constant'],
      [{ decision: 'allow', extra: 1 }, '(root) must NOT have additional property "extra"'],
      [{ decision: 'allow', evidence: null }, '/evidence must be object'],
      [{ decision: 'transform' }, "(root) must have required property 'transform'"],
      [
        { decision: 'deny', transform: { path: '$target' } },
        '(root) must NOT have property "transform"',
      ],
      [{ decision: 'allow', warnings: ['x'] }, '/warnings/0 must be object'],
      [{ decision: 'allow', evidence: 'x' }, '/evidence must be object'],
      [{ decision: 'allow', result_labels: [1] }, '/result_labels/0 must be string'],
      ['allow', '(root) must be object'],
    ])('refuses %j', (verdict, expected) => {
      expect(errorsOf('verdict', verdict)).toContain(expected);
    });
  });

  describe('approval request and resolution (§9)', () => {
    const request = {
      context_identity: `sha256:${'b'.repeat(64)}`,
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'needs-review', approval: {} },
      context: contextAt('pre_tool_call'),
    };

    it('accepts a request for a liftable deny, including a host-synthesized one (§7.5)', () => {
      expect(errorsOf('request', request)).toEqual([]);
      const synthesized = {
        ...request,
        verdict: { decision: 'deny', reason: 'host_error:transform_conflict', approval: {} },
      };
      expect(errorsOf('request', synthesized)).toEqual([]);
      expect(errorsOf('request', { ...request, context_identity: null })).toEqual([]);
    });

    it('refuses a request whose verdict is not a deny (liftability is the host check)', () => {
      expect(errorsOf('request', { ...request, verdict: { decision: 'deny' } })).toEqual([]);
      expect(errorsOf('request', { ...request, verdict: { decision: 'allow' } })).toContain(
        '/verdict/decision must be equal to constant',
      );
    });

    it('enforces verdict presence and outcome/verdict consistency', () => {
      const id = request.context_identity;
      expect(
        errorsOf('resolution', {
          outcome: 'approve',
          context_identity: id,
          verdict: { decision: 'allow' },
        }),
      ).toEqual([]);
      expect(errorsOf('resolution', { outcome: 'unresolved', context_identity: null })).toEqual([]);
      expect(errorsOf('resolution', { outcome: 'approve', context_identity: id })).toContain(
        "(root) must have required property 'verdict'",
      );
      expect(
        errorsOf('resolution', {
          outcome: 'unresolved',
          context_identity: id,
          verdict: { decision: 'deny' },
        }),
      ).toContain('(root) must NOT have property "verdict"');
      expect(
        errorsOf('resolution', {
          outcome: 'approve',
          context_identity: id,
          verdict: { decision: 'deny' },
        }),
      ).toContain('/verdict/decision must be equal to one of the allowed values');
      expect(
        errorsOf('resolution', {
          outcome: 'reject',
          context_identity: id,
          verdict: { decision: 'allow' },
        }),
      ).toContain('/verdict/decision must be equal to constant');
      expect(errorsOf('resolution', { outcome: 'maybe', context_identity: id })).toContain(
        '/outcome must be equal to one of the allowed values',
      );
    });
  });

  describe('interception record (§10.3)', () => {
    it('accepts the §10.3 example', () => {
      expect(errorsOf('record', record())).toEqual([]);
    });

    it('is payload-free: a transform value, approval members or unknown fields are refused', () => {
      const withValue = {
        ...record(),
        verdict: { decision: 'transform', transform: { path: '$target.q', value: 'secret' } },
      };
      expect(errorsOf('record', withValue)).toContain(
        '/verdict/transform must NOT have additional property "value"',
      );
      const withApproval = {
        ...record(),
        verdict: { decision: 'deny', approval: { ticket: 'x' } },
      };
      expect(errorsOf('record', withApproval)).toContain(
        '/verdict/approval must NOT have additional property "ticket"',
      );
      expect(errorsOf('record', { ...record(), context: {} })).toContain(
        '(root) must NOT have additional property "context"',
      );
    });

    it('allows host_error reasons on the combined verdict', () => {
      const failed = {
        ...record(),
        verdict: { decision: 'deny', reason: 'host_error:context_invalid' },
        decided_by: null,
      };
      expect(errorsOf('record', failed)).toEqual([]);
    });

    it('takes the knobs as the spec schema does: known members only, none required', () => {
      // §10.3 asks for exactly the consulted knobs; the spec's schema does not
      // encode that, and the project's accepts what the spec's accepts.
      const noKnob = { ...record(), composition: { profile: 'sequential/first_deny' } };
      expect(errorsOf('record', noKnob)).toEqual([]);
      const unknownKnob = {
        ...record(),
        composition: { profile: 'sequential/first_deny', on_timeout: 'deny' },
      };
      expect(errorsOf('record', unknownKnob)).toContain(
        '/composition must NOT have additional property "on_timeout"',
      );
      const unanimous = {
        ...record(),
        composition: {
          profile: 'parallel/unanimous',
          on_disagreement: 'deny',
          on_transform_conflict: 'deny',
        },
      };
      expect(errorsOf('record', unanimous)).toEqual([]);
    });

    it('requires verdicts in multi-verdict profiles and null identities without a provider', () => {
      const { verdicts: _, ...noVerdicts } = record();
      expect(errorsOf('record', noVerdicts)).toEqual([]);
      const runAll = { ...noVerdicts, composition: { profile: 'sequential/run_all' } };
      expect(errorsOf('record', runAll)).toContain("(root) must have required property 'verdicts'");
      const unbound = { ...record(), identity_provider: null };
      expect(errorsOf('record', unbound)).toContain('/input_identity must be equal to constant');
      expect(
        errorsOf('record', { ...record(), identity_provider: 'jcs-custom' }).length,
      ).toBeGreaterThan(0);
      expect(errorsOf('record', { ...record(), identity_provider: 'hmac-sha256-k1' })).toEqual([]);
    });
  });

  it('interception-point is the closed §3 set', () => {
    for (const point of INTERCEPTION_POINTS)
      expect(errorsOf('interception-point', point)).toEqual([]);
    expect(errorsOf('interception-point', 'on_error')).toEqual([
      '(root) must be equal to one of the allowed values',
    ]);
  });
});
