import { canonicalJson } from '../../lib/hooks/canonical-json';
import { HooksError } from '../../lib/hooks/errors';
import { jcsSha256, projectForIdentity } from '../../lib/hooks/identity';
import { parseJsonText } from '../../lib/hooks/json-text';
import { HOST_ERRORS } from '../../lib/hooks/vocabulary';
import { validateAgainst } from '../../spec/index';
import { CliError, type Command, EXIT, parseArgs, readInput, writeError } from '../command';

/**
 * Prints the jcs-sha256 context identity (§10.2) of a context given as JSON
 * text, or with --canonical the canonical JSON it hashes. Like a host, it
 * validates the §4 envelope first: no identity over an invalid context.
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
      const schema = validateAgainst('context', ctx);
      if (!schema.ok) {
        throw new CliError(
          HOST_ERRORS.contextInvalid,
          `context fails the §4 envelope: ${schema.errors.join('; ')}`,
        );
      }
      const out = parsed.flags.has('--canonical')
        ? canonicalJson(projectForIdentity(ctx))
        : jcsSha256.compute(ctx);
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
