import { canonicalJson, DEFAULTS, HooksError, parseJsonText } from '@checkpoint/agent-hooks';
import { type SchemaKind, validateAgainst } from '../../spec';
import { checkContext } from '../context-check';
import { CliError, type Command, EXIT, parseArgs, readInput } from '../command';

const KINDS: Record<string, SchemaKind> = {
  context: 'context',
  verdict: 'verdict',
  request: 'request',
  resolution: 'resolution',
  record: 'record',
};

/**
 * Validates JSON text against the spec's schemas. The text goes through the
 * same funnel as a context (§4.4: no big integers, lone surrogates or
 * duplicate keys), and a verdict also gets the §5.3 evidence cap, which
 * JSON Schema cannot express. A context is judged by the engine's own check
 * (bin/context-check.ts), so `valid` means a host would take it; schema
 * findings beyond that are printed as warnings.
 */
export const command: Command = {
  name: 'validate',
  summary: 'validate a context, verdict, request, resolution or record against spec/schema',
  usage: `validate ${Object.keys(KINDS).join('|')} [FILE|-]`,
  async run(args, io) {
    const parsed = parseArgs(args, []);
    const kind = KINDS[parsed.positional[0] ?? ''];
    if (!kind || parsed.unknown.length > 0 || parsed.positional.length > 2) {
      io.stderr.write(`Usage: agent-hooks ${this.usage}\n`);
      return EXIT.usage;
    }
    let errors: string[];
    let warnings: string[] = [];
    try {
      const value = parseJsonText(await readInput(parsed.positional[1] ?? '-', io));
      ({ errors, warnings } = problems(kind, value));
    } catch (error) {
      if (!(error instanceof HooksError || error instanceof CliError)) throw error;
      errors = [`(input) ${error.message}`];
    }
    for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
    if (errors.length === 0) {
      io.stdout.write('valid\n');
      return EXIT.ok;
    }
    io.stderr.write(
      `invalid ${parsed.positional[0]}:\n${errors.map((e) => `  ${e}`).join('\n')}\n`,
    );
    return EXIT.refused;
  },
};

function problems(kind: SchemaKind, value: unknown): { errors: string[]; warnings: string[] } {
  if (kind === 'context') {
    const check = checkContext(value);
    return check.ok
      ? { errors: [], warnings: check.warnings }
      : { errors: [`${check.reason}: ${check.message}`], warnings: [] };
  }
  const result = validateAgainst(kind, value);
  const errors = result.ok ? [] : [...result.errors];
  if (kind === 'verdict') errors.push(...evidenceProblems(value));
  return { errors, warnings: [] };
}

/** §5.3: UTF-8 bytes of the RFC 8785 serialization of `evidence`, at most 10240. */
function evidenceProblems(verdict: unknown): string[] {
  const evidence = (verdict as { evidence?: unknown } | null)?.evidence;
  if (evidence === undefined || typeof evidence !== 'object' || evidence === null) return [];
  let bytes: number;
  try {
    bytes = Buffer.byteLength(canonicalJson(evidence), 'utf8');
  } catch (error) {
    if (error instanceof HooksError) return [`/evidence ${error.message}`];
    throw error;
  }
  const cap = DEFAULTS.evidenceMaxBytes;
  return bytes > cap
    ? [`/evidence is ${bytes} bytes of RFC 8785 JSON, over the ${cap}-byte cap (§5.3)`]
    : [];
}
