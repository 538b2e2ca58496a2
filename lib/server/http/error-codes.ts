/**
 * The one table of error codes: every `{error: {code}}` the HTTP API and the
 * server actions answer, with its one HTTP status. Clients and tests branch
 * on codes, never on messages. Spelling: `<thing>_invalid`,
 * `<thing>_required`, `<thing>_taken`, `<thing>_too_long`, … (the thing
 * first); a missing resource is always `not_found`, the kind is in the
 * message. `docs/api-errors.md` is rendered from this table
 * (`npx tsx scripts/api-errors-doc.ts`; tests/unit/error-codes.test.ts fails
 * when it drifts). Pure data: no `server-only`, so the script can load it.
 */

export type ErrorCodeEntry = { status: number; when: string; area: string };

const code = (status: number, area: string, when: string): ErrorCodeEntry => ({
  status,
  when,
  area,
});

export const ERROR_CODES = {
  // Every endpoint
  request_invalid: code(
    400,
    'any',
    'The body, query or form fails its schema; `details.issues` or `details.fields` name each bad member.',
  ),
  json_invalid: code(400, 'any', 'The body is empty, not UTF-8, or not JSON text.'),
  value_domain: code(
    400,
    'any',
    'The JSON parses but leaves the §4.4 value domain: an integer beyond ±(2^53−1), a duplicate member, a lone surrogate, too deep.',
  ),
  unauthenticated: code(401, 'any', 'No valid session or API key (`Authorization: Bearer <key>`).'),
  forbidden: code(403, 'any', 'Signed in, but the role does not allow this.'),
  not_found: code(
    404,
    'any',
    'The resource does not exist or belongs to another host; the message names its kind.',
  ),
  conflict: code(409, 'any', 'A unique value is already taken.'),
  payload_too_large: code(
    413,
    'any',
    "The body is over the endpoint's limit (checked on the declared length, then while reading), or a records batch holds more than 10,000 records.",
  ),
  unsupported_media_type: code(415, 'any', 'The Content-Type is not one the endpoint reads.'),
  nul_character: code(
    422,
    'any',
    'A string or member name holds U+0000, which the store cannot keep; `details.path` says where.',
  ),
  internal: code(500, 'any', 'A failure on the server; logged, never detailed.'),
  database_unavailable: code(
    503,
    'any',
    'The database cannot be reached, or no connection came free in time; `Retry-After` says when to try again.',
  ),
  database_timeout: code(
    503,
    'any',
    'A database statement ran past its time limit or waited too long for a lock; `Retry-After` says when to try again.',
  ),
  queue_unavailable: code(
    503,
    'any',
    'The job queue (Redis) cannot be reached; `Retry-After` says when to try again.',
  ),
  // Approvals: intake (POST /api/v1/approvals) and long-poll
  identity_invalid: code(
    400,
    'approvals',
    '`context_identity` is neither null nor a `jcs-sha256:` identity.',
  ),
  provider_invalid: code(
    400,
    'approvals',
    '`identity_provider` is not a string or null, or names an unknown provider.',
  ),
  point_invalid: code(
    400,
    'approvals',
    "`interception_point` is not a §3 point, is `agent_shutdown`, or differs from the context's.",
  ),
  verdict_invalid: code(400, 'approvals', 'The verdict fails §5.'),
  verdict_not_liftable: code(
    400,
    'approvals',
    'The verdict is not a deny carrying `approval` (§5.1).',
  ),
  context_invalid: code(400, 'approvals', 'The context fails the §4 envelope check.'),
  label_invalid: code(400, 'approvals', '`session` or `agent` is not a short string.'),
  timeout_invalid: code(
    400,
    'approvals, hosts',
    'A timeout is not an integer or below its minimum.',
  ),
  deny_set_invalid: code(400, 'approvals', '`deny_set` is malformed.'),
  request_id_invalid: code(400, 'approvals', 'The request id is malformed.'),
  wait_invalid: code(400, 'approvals', '`wait` is not a whole number of seconds from 0 to 30.'),
  identity_mismatch: code(
    422,
    'approvals',
    'The posted `context_identity` differs from the identity the server recomputes (§10.2).',
  ),
  redaction_required: code(
    422,
    'approvals',
    'The host redacts paths but the request carries no identity to bind them to.',
  ),
  redaction_paths_invalid: code(
    422,
    'approvals',
    "The host's stored redaction paths no longer parse (§5.2); nothing is accepted until they are re-saved.",
  ),
  // Approvals: a decision (reviewer, Slack or automated resolver)
  reason_required: code(400, 'decisions', 'A rejection without a reason.'),
  identity_stale: code(
    409,
    'decisions',
    "The echoed context identity differs from the ticket's: it changed since it was shown (§9).",
  ),
  already_decided: code(409, 'decisions', 'Someone else decided first.'),
  expired: code(409, 'decisions', 'The ticket expired before the decision.'),
  with_resolver: code(
    409,
    'decisions',
    "The host's automated resolver holds the ticket; reviewers wait.",
  ),
  edit_path_invalid: code(
    422,
    'decisions',
    "The edit's path does not parse or does not resolve against the target (§5.2).",
  ),
  edit_value_invalid: code(
    422,
    'decisions',
    'The edited value or resulting context leaves the §4.4 value domain.',
  ),
  edit_touches_redacted: code(422, 'decisions', 'The edit touches a redacted path.'),
  resolution_invalid: code(422, 'decisions', 'The resulting resolution fails §9 validation.'),
  // Records (POST /api/v1/records)
  records_invalid: code(
    400,
    'records',
    'One or more records are refused; `details.errors` lists `{index, code, message}` for each (record codes below).',
  ),
  record_conflict: code(
    409,
    'records',
    'A (session_id, sequence) already holds a different record.',
  ),
  // Audit search and export
  filter_invalid: code(
    400,
    'audit',
    'A search or export filter is malformed; `details.param` names it.',
  ),
  cursor_invalid: code(400, 'audit', 'The page cursor was not issued by this server.'),
  format_invalid: code(400, 'audit', 'The export format is not `jsonl` or `csv`.'),
  // Webhooks
  webhook_kind_invalid: code(400, 'webhooks', 'The kind is not `callback` or `resolver`.'),
  webhook_url_invalid: code(
    400,
    'webhooks',
    'The URL does not parse, carries credentials or is too long.',
  ),
  webhook_url_scheme: code(
    400,
    'webhooks',
    'The URL is not https (plain http reaches loopback only).',
  ),
  webhook_url_blocked: code(
    400,
    'webhooks',
    'The URL resolves to an address webhooks may not reach (SSRF guard).',
  ),
  webhook_dns_failed: code(400, 'webhooks', "The URL's host does not resolve."),
  webhook_timeout_invalid: code(400, 'webhooks', 'The timeout is outside the allowed range.'),
  secret_invalid: code(400, 'webhooks', 'The secret rotation overlap is outside 0–30 days.'),
  webhook_self_test_failed: code(409, 'webhooks', 'Enabling a resolver whose self-test fails.'),
  signing_secret_unreadable: code(
    409,
    'webhooks',
    'The stored signing secret cannot be read with this APP_ENCRYPTION_KEY (the key changed or the row was altered); rotate the secret.',
  ),
  // Signing keys (admin, npm run keys:rotate)
  signing_key_from_env: code(
    409,
    'signing',
    'Rotating the signing key while SIGNING_KEY is set: the environment decides which key signs; change SIGNING_KEY instead.',
  ),
  signing_key_conflict: code(
    503,
    'signing',
    "This process's SIGNING_KEY is not the active key, which another process's SIGNING_KEY set: one key signs for the deployment; give every process the same SIGNING_KEY (to change it, set SIGNING_KEY_REPLACES to the active kid).",
  ),
  signing_key_retired: code(
    503,
    'signing',
    'SIGNING_KEY names a key that was retired: a retired key never signs again; put a new key in SIGNING_KEY.',
  ),
  signing_key_unreadable: code(
    503,
    'signing',
    'The active signing key cannot be decrypted with this APP_ENCRYPTION_KEY (the key changed or the row was altered); nothing is signed with another key.',
  ),
  // Hosts and API keys (admin)
  host_name_invalid: code(
    400,
    'hosts',
    'The host name is empty, too long or uses other characters.',
  ),
  description_too_long: code(400, 'hosts', 'The description is too long.'),
  timeout_out_of_range: code(400, 'hosts', 'A host timeout is outside the allowed range.'),
  default_timeout_above_max: code(400, 'hosts', 'The default timeout is above the maximum.'),
  redaction_path_invalid: code(400, 'hosts', 'A redaction path does not parse (§5.2).'),
  redaction_paths_too_many: code(400, 'hosts', 'Too many redaction paths.'),
  api_key_name_invalid: code(400, 'hosts', 'The API key name is empty or too long.'),
  host_name_taken: code(409, 'hosts', 'Another host has this name.'),
  host_name_reserved: code(409, 'hosts', "The name is the built-in host's."),
  builtin_host_name_fixed: code(409, 'hosts', 'The built-in host keeps its name.'),
  builtin_host_not_archivable: code(409, 'hosts', 'The built-in host cannot be archived.'),
  host_archived: code(409, 'hosts', 'Issuing a key for an archived host.'),
  // Users and the own account
  email_taken: code(409, 'users', 'A user with this email exists.'),
  last_admin: code(409, 'users', 'The change would leave no enabled admin.'),
  cannot_remove_own_admin: code(409, 'users', 'An admin removing their own admin role.'),
  cannot_disable_self: code(409, 'users', 'A user disabling their own account.'),
  password_mismatch: code(400, 'users', 'The two new passwords differ (change-password form).'),
  password_change_required: code(
    403,
    'any',
    'The session signed in with a generated or admin-set password: change it first (/profile/password).',
  ),
  slack_user_id_taken: code(409, 'users', 'Another user linked this Slack member id.'),
  slack_link_unavailable: code(
    409,
    'users',
    'Linking a Slack account needs the Slack bot (SLACK_BOT_TOKEN) to send the confirmation message.',
  ),
  slack_link_dm_failed: code(
    422,
    'users',
    'Slack refused the confirmation message (an unknown member id, or one the bot cannot message).',
  ),
  slack_link_too_soon: code(
    429,
    'users',
    'A Slack link confirmation was sent less than a minute ago.',
  ),
  // Slack interactions (POST /api/slack/interactions)
  slack_payload_invalid: code(400, 'slack', 'The form has no `payload` field with a JSON object.'),
  slack_not_configured: code(401, 'slack', 'No Slack signing secret is configured.'),
  slack_signature_missing: code(401, 'slack', 'The Slack signature headers are missing.'),
  slack_signature_invalid: code(401, 'slack', 'The Slack signature does not verify.'),
  slack_signature_stale: code(401, 'slack', 'The Slack timestamp is more than five minutes old.'),
  // Internal: a programming error, answered as `internal`
  outbox_kind_unknown: code(500, 'internal', 'A producer queued a job kind with no definition.'),
  outbox_payload_invalid: code(
    500,
    'internal',
    'A producer queued a payload its job definition refuses.',
  ),
  outbox_dedupe_key_invalid: code(
    500,
    'internal',
    'A producer queued a job with a malformed dedupe key.',
  ),
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes that only appear inside `details` (`details.fields[name].code` of a
 * `request_invalid`, `details.errors[i].code` of a `records_invalid`); a few
 * (`nul_character`, `json_invalid`, `value_domain`) are top-level codes too.
 */
export const DETAIL_CODES = {
  email_invalid: "A form's email is not an address.",
  password_too_short: 'A new password is too short.',
  password_too_long: 'A new password is too long.',
  password_wrong: 'The current password is wrong.',
  password_unchanged: 'A new password is the same as the current one.',
  roles_invalid: 'The roles are not from the list.',
  name_too_long: 'A user name is too long.',
  slack_user_id_invalid: 'Not a Slack member id (U0123ABCD).',
  slack_channel_invalid: 'Not a Slack channel name or id.',
  slack_webhook_url_invalid: 'Not a Slack incoming-webhook URL.',
  slack_team_id_invalid: 'Not a Slack workspace id (T0123ABCD).',
  record_not_object: 'A record is not a JSON object.',
  field_unknown: 'A record has a member the schema does not define.',
  transform_value_present: "A record's verdict carries a transform value (§10.3).",
  message_unprojected: "A record's message is longer than the §10.3 projection allows.",
  approval_not_empty: "A record's approval is not `{}` (§10.3).",
  value_out_of_range: "A record's sequence or decided_by is past the 32-bit columns.",
  schema_invalid: 'A record fails the InterceptionRecord schema.',
} as const satisfies Record<string, string>;

export type DetailCode = keyof typeof DETAIL_CODES;

export function statusOf(c: ErrorCode): number {
  return ERROR_CODES[c].status;
}

export function isErrorCode(c: string): c is ErrorCode {
  return Object.hasOwn(ERROR_CODES, c);
}
