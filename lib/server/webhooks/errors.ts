import 'server-only';

export type WebhookErrorCode =
  | 'webhook_url_invalid'
  | 'webhook_url_scheme'
  | 'webhook_url_blocked'
  | 'webhook_dns_failed'
  | 'webhook_kind_invalid'
  | 'webhook_timeout_invalid'
  | 'webhook_not_found'
  | 'webhook_exists'
  | 'webhook_self_test_failed'
  | 'delivery_not_found'
  | 'secret_invalid';

/** A refused webhook operation; nothing was changed. `status` is the HTTP status. */
export class WebhookError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}
