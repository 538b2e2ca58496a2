import 'server-only';
import { AppError } from '../http/api-error';

/**
 * Refusals of the signing-key service. `signing_key_from_env`: rotation while
 * SIGNING_KEY decides the key. `signing_key_unreadable`: the stored active key
 * does not decrypt, and nothing is signed with any other key instead (fail
 * closed: a receipt signed by an unexpected key is worse than none).
 * `signing_key_conflict` / `signing_key_retired`: this process's SIGNING_KEY
 * is not the one that signs (keys.ts ensureSigningKey says why).
 */
export class SigningKeyError extends AppError {
  constructor(
    code:
      | 'signing_key_from_env'
      | 'signing_key_unreadable'
      | 'signing_key_conflict'
      | 'signing_key_retired',
    message: string,
  ) {
    super(code, message);
    this.name = 'SigningKeyError';
  }
}
