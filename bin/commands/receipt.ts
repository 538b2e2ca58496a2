import { readFile } from 'node:fs/promises';
import { RECEIPT_TYP, verifyCompactJws } from '@/lib/verify/jws';
import { CliError, type Command, EXIT, writeError } from '../command';
import { parseOptions, readJwks } from './audit';

/**
 * `agent-hooks receipt verify RECEIPT.jws --jwks JWKS.json [--json]`: checks
 * one signed approval receipt (docs/receipts.md) offline and prints its
 * verified claims. Exit 0 verified, 1 it does not verify, 2 usage error or
 * unreadable input.
 */

const USAGE = 'receipt verify RECEIPT.jws --jwks JWKS.json [--json]';

export const command: Command = {
  name: 'receipt',
  summary: 'verify a signed approval receipt offline against the signing keys',
  usage: USAGE,
  async run(args, io) {
    const opts = parseOptions(args, ['--jwks'], ['--json']);
    if (
      opts?.positional[0] !== 'verify' ||
      opts.positional.length !== 2 ||
      !opts.values.has('--jwks')
    ) {
      io.stderr.write(`Usage: agent-hooks ${USAGE}\n`);
      return EXIT.usage;
    }
    const path = opts.positional[1] as string;
    try {
      const jwks = await readJwks(opts.values.get('--jwks') as string);
      let jws: string;
      try {
        jws = (await readFile(path, 'utf8')).trim();
      } catch (error) {
        throw new CliError(
          'input_unreadable',
          `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
        );
      }
      const checked = await verifyCompactJws(jws, jwks, RECEIPT_TYP);
      const json = opts.flags.has('--json');
      if (!checked.ok) {
        const answer = { ok: false, code: checked.code, message: checked.message };
        io.stdout.write(
          json ? `${JSON.stringify(answer)}\n` : `NOT VERIFIED: ${checked.message}\n`,
        );
        return EXIT.refused;
      }
      if (json) {
        io.stdout.write(
          `${JSON.stringify({ ok: true, kid: checked.kid, claims: checked.payload })}\n`,
        );
      } else {
        const claims = Object.entries(checked.payload).map(
          ([k, v]) => `  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
        );
        io.stdout.write(`verified: signed by key ${checked.kid}\n${claims.join('\n')}\n`);
      }
      return EXIT.ok;
    } catch (error) {
      if (error instanceof CliError) {
        writeError(io, error.code, error.message);
        return EXIT.usage;
      }
      throw error;
    }
  },
};
