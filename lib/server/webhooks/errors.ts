import 'server-only';
import { AppError, type ErrorCode } from '../http/api-error';

export type WebhookErrorCode = Extract<
  ErrorCode,
  | 'webhook_url_invalid'
  | 'webhook_url_scheme'
  | 'webhook_url_blocked'
  | 'webhook_dns_failed'
  | 'webhook_kind_invalid'
  | 'webhook_timeout_invalid'
  | 'webhook_self_test_failed'
  | 'not_found'
  | 'secret_invalid'
  | 'signing_secret_unreadable'
>;

/** A refused webhook operation; nothing was changed. Its status comes from the code's table entry. */
export class WebhookError extends AppError {
  constructor(
    override readonly code: WebhookErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'WebhookError';
  }
}
