import { HOST_ERRORS, type HostErrorReason } from './vocabulary.ts';

/**
 * A value the engine refuses: it carries the reserved reason (§11) it maps
 * to and a message that never quotes target content (§6.3, §14).
 */
export class HooksError extends Error {
  constructor(
    readonly code: HostErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'HooksError';
  }
}

/** A value outside the §4.4 domain or the §12.3 bounds: `host_error:context_invalid`. */
export class ValueDomainError extends HooksError {
  constructor(message: string) {
    super(HOST_ERRORS.contextInvalid, message);
    this.name = 'ValueDomainError';
  }
}

/** A host configuration the spec forbids (bad provider name, unknown profile). */
export class HooksConfigError extends Error {
  readonly code = 'config_invalid' as const;
  constructor(message: string) {
    super(message);
    this.name = 'HooksConfigError';
  }
}
