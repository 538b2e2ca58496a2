import {
  canonicalJson,
  HooksError,
  parseJsonText,
  projectForIdentity,
} from '@checkpoint/agent-hooks';
import { checkContext } from '../context-check';
import { CliError, type Command, EXIT, parseArgs, readInput, writeError } from '../command';

/**
 * Prints the jcs-sha256 context identity (§10.2) of a context given as JSON
 * text, or with --canonical the canonical JSON it hashes. It accepts and
 * refuses exactly what the engine does (bin/context-check.ts): no identity
 * over a context a host would refuse, no refusal a host would not make.
 * What a stricter schema reading flags goes to stderr as warnings.
 */
export const command: Command = {
  name: 'identity',
  summary: 'print the jcs-sha256 context_identity of a context (§10.2)',
  usage: 'identity [--canonical] [FILE|-]',
  async run(args, io) {
    const parsed = parseArgs(args, ['--canonical']);
    if (parsed.unknown.length > 0 || parsed.positional.length > 1) {
      io.stderr.write(`Usage: agent-hooks ${this.usage}\n`);
      return EXIT.usage;
    }
    try {
      const ctx = parseJsonText(await readInput(parsed.positional[0] ?? '-', io));
      const check = checkContext(ctx);
      if (!check.ok) throw new CliError(check.reason, check.message);
      for (const warning of check.warnings) io.stderr.write(`warning: ${warning}\n`);
      const out = parsed.flags.has('--canonical')
        ? canonicalJson(projectForIdentity(ctx))
        : check.identity;
      io.stdout.write(`${out}\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof HooksError || error instanceof CliError) {
        writeError(io, error.code, error.message);
        return EXIT.refused;
      }
      throw error;
    }
  },
};
