"""Checkpoint host API: a client for Python 3.11+, standard library only.

Generated from the OpenAPI document (version 0.1.0) by
`npx tsx --conditions=react-server scripts/openapi-python.ts`; do not edit, regenerate.
The document is served at /api/v1/openapi.json and rendered at /docs/api.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

API_VERSION = "0.1.0"

# code -> (HTTP status, meaning): the Error schema's x-error-codes.
ERROR_CODES: dict[str, tuple[int, str]] = {
    "request_invalid": (400, "The body, query or form fails its schema; `details.issues` or `details.fields` name each bad member."),
    "json_invalid": (400, "The body is empty, not UTF-8, or not JSON text."),
    "value_domain": (400, "The JSON parses but leaves the §4.4 value domain: an integer beyond ±(2^53−1), a duplicate member, a lone surrogate, too deep."),
    "unauthenticated": (401, "No valid session or API key (`Authorization: Bearer <key>`)."),
    "forbidden": (403, "Signed in, but the role does not allow this."),
    "not_found": (404, "The resource does not exist or belongs to another host; the message names its kind."),
    "conflict": (409, "A unique value is already taken."),
    "payload_too_large": (413, "The body is over the endpoint's limit (checked on the declared length, then while reading), or a records batch holds more than 10,000 records."),
    "unsupported_media_type": (415, "The Content-Type is not one the endpoint reads."),
    "nul_character": (422, "A string or member name holds U+0000, which the store cannot keep; `details.path` says where."),
    "internal": (500, "A failure on the server; logged, never detailed."),
    "database_unavailable": (503, "The database cannot be reached, or no connection came free in time; `Retry-After` says when to try again."),
    "database_timeout": (503, "A database statement ran past its time limit or waited too long for a lock; `Retry-After` says when to try again."),
    "queue_unavailable": (503, "The job queue (Redis) cannot be reached; `Retry-After` says when to try again."),
    "identity_invalid": (400, "`context_identity` is neither null nor a `jcs-sha256:` identity."),
    "provider_invalid": (400, "`identity_provider` is not a string or null, or names an unknown provider."),
    "point_invalid": (400, "`interception_point` is not a §3 point, is `agent_shutdown`, or differs from the context's."),
    "verdict_invalid": (400, "The verdict fails §5."),
    "verdict_not_liftable": (400, "The verdict is not a deny carrying `approval` (§5.1)."),
    "context_invalid": (400, "The context fails the §4 envelope check."),
    "label_invalid": (400, "`session` or `agent` is not a short string."),
    "timeout_invalid": (400, "A timeout is not an integer or below its minimum."),
    "deny_set_invalid": (400, "`deny_set` is malformed."),
    "request_id_invalid": (400, "The request id is malformed."),
    "wait_invalid": (400, "`wait` is not a whole number of seconds from 0 to 30."),
    "identity_mismatch": (422, "The posted `context_identity` differs from the identity the server recomputes (§10.2)."),
    "redaction_required": (422, "The host redacts paths but the request carries no identity to bind them to."),
    "redaction_paths_invalid": (422, "The host's stored redaction paths no longer parse (§5.2); nothing is accepted until they are re-saved."),
    "reason_required": (400, "A rejection without a reason."),
    "identity_stale": (409, "The echoed context identity differs from the ticket's: it changed since it was shown (§9)."),
    "already_decided": (409, "Someone else decided first."),
    "expired": (409, "The ticket expired before the decision."),
    "with_resolver": (409, "The host's automated resolver holds the ticket; reviewers wait."),
    "edit_path_invalid": (422, "The edit's path does not parse or does not resolve against the target (§5.2)."),
    "edit_value_invalid": (422, "The edited value or resulting context leaves the §4.4 value domain."),
    "edit_touches_redacted": (422, "The edit touches a redacted path."),
    "resolution_invalid": (422, "The resulting resolution fails §9 validation."),
    "records_invalid": (400, "One or more records are refused; `details.errors` lists `{index, code, message}` for each (record codes below)."),
    "record_conflict": (409, "A (session_id, sequence) already holds a different record."),
    "filter_invalid": (400, "A search or export filter is malformed; `details.param` names it."),
    "cursor_invalid": (400, "The page cursor was not issued by this server."),
    "format_invalid": (400, "The export format is not `jsonl` or `csv`."),
    "webhook_kind_invalid": (400, "The kind is not `callback` or `resolver`."),
    "webhook_url_invalid": (400, "The URL does not parse, carries credentials or is too long."),
    "webhook_url_scheme": (400, "The URL is not https (plain http reaches loopback only)."),
    "webhook_url_blocked": (400, "The URL resolves to an address webhooks may not reach (SSRF guard)."),
    "webhook_dns_failed": (400, "The URL's host does not resolve."),
    "webhook_timeout_invalid": (400, "The timeout is outside the allowed range."),
    "secret_invalid": (400, "The secret rotation overlap is outside 0–30 days."),
    "webhook_self_test_failed": (409, "Enabling a resolver whose self-test fails."),
    "signing_secret_unreadable": (409, "The stored signing secret cannot be read with this APP_ENCRYPTION_KEY (the key changed or the row was altered); rotate the secret."),
    "signing_key_from_env": (409, "Rotating the signing key while SIGNING_KEY is set: the environment decides which key signs; change SIGNING_KEY instead."),
    "signing_key_conflict": (503, "This process's SIGNING_KEY is not the active key, which another process's SIGNING_KEY set: one key signs for the deployment; give every process the same SIGNING_KEY (to change it, set SIGNING_KEY_REPLACES to the active kid)."),
    "signing_key_retired": (503, "SIGNING_KEY names a key that was retired: a retired key never signs again; put a new key in SIGNING_KEY."),
    "signing_key_unreadable": (503, "The active signing key cannot be decrypted with this APP_ENCRYPTION_KEY (the key changed or the row was altered); nothing is signed with another key."),
    "host_name_invalid": (400, "The host name is empty, too long or uses other characters."),
    "description_too_long": (400, "The description is too long."),
    "timeout_out_of_range": (400, "A host timeout is outside the allowed range."),
    "default_timeout_above_max": (400, "The default timeout is above the maximum."),
    "redaction_path_invalid": (400, "A redaction path does not parse (§5.2)."),
    "redaction_paths_too_many": (400, "Too many redaction paths."),
    "api_key_name_invalid": (400, "The API key name is empty or too long."),
    "host_name_taken": (409, "Another host has this name."),
    "host_name_reserved": (409, "The name is the built-in host's."),
    "builtin_host_name_fixed": (409, "The built-in host keeps its name."),
    "builtin_host_not_archivable": (409, "The built-in host cannot be archived."),
    "host_archived": (409, "Issuing a key for an archived host."),
    "email_taken": (409, "A user with this email exists."),
    "last_admin": (409, "The change would leave no enabled admin."),
    "cannot_remove_own_admin": (409, "An admin removing their own admin role."),
    "cannot_disable_self": (409, "A user disabling their own account."),
    "password_mismatch": (400, "The two new passwords differ (change-password form)."),
    "password_change_required": (403, "The session signed in with a generated or admin-set password: change it first (/profile/password)."),
    "slack_user_id_taken": (409, "Another user linked this Slack member id."),
    "slack_link_unavailable": (409, "Linking a Slack account needs the Slack bot (SLACK_BOT_TOKEN) to send the confirmation message."),
    "slack_link_dm_failed": (422, "Slack refused the confirmation message (an unknown member id, or one the bot cannot message)."),
    "slack_link_too_soon": (429, "A Slack link confirmation was sent less than a minute ago."),
    "slack_payload_invalid": (400, "The form has no `payload` field with a JSON object."),
    "slack_not_configured": (401, "No Slack signing secret is configured."),
    "slack_signature_missing": (401, "The Slack signature headers are missing."),
    "slack_signature_invalid": (401, "The Slack signature does not verify."),
    "slack_signature_stale": (401, "The Slack timestamp is more than five minutes old."),
    "outbox_kind_unknown": (500, "A producer queued a job kind with no definition."),
    "outbox_payload_invalid": (500, "A producer queued a payload its job definition refuses."),
    "outbox_dedupe_key_invalid": (500, "A producer queued a job with a malformed dedupe key."),
}


class CheckpointError(Exception):
    """A refusal: the body's `{"error": {"code", "message", "details"?}}` and the status."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


@dataclass
class Response:
    """A successful answer: its status (several per operation, e.g. 200 and 202) and JSON body."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return raw.decode("utf-8", "replace")


# The schemas (components/schemas) that are objects with named members.

class AgentContext(TypedDict):
    """The §4 envelope: required core (§4.1), each point's conditional fields required by
    interception_point (§4.2), the well-known optional fields (§4.5) and extensions (§4.6). Open
    at the top level and in every member object. Value domain (§4.4) and the target alias (§4.3)
    are the engine's checks, not this schema's.
    """
    spec: Any
    interception_point: Literal["agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call", "output", "agent_shutdown"]
    timestamp: Any
    sequence: Any
    agent: Any
    session: Any
    target: Any
    agent_init: NotRequired[Any]
    input: NotRequired[Any]
    model: NotRequired[Any]
    messages: NotRequired[Any]
    request_id: NotRequired[Any]
    response: NotRequired[Any]
    usage: NotRequired[Any]
    tool_call: NotRequired[Any]
    tool_result: NotRequired[Any]
    tools: NotRequired[Any]
    output: NotRequired[Any]
    summary: NotRequired[Any]
    trace: NotRequired[Any]
    tenant: NotRequired[Any]
    actor: NotRequired[Any]
    budgets: NotRequired[Any]
    extensions: NotRequired[Any]


class Verdict(TypedDict):
    """What an interceptor returns (§5), closed. Anything failing it is handled as deny
    host_error:verdict_invalid. The 10240-byte evidence cap (§5.3) and the path grammar (§5.2)
    are the engine's checks.
    """
    decision: Literal["allow", "deny", "transform"]
    reason: NotRequired[str | None]
    message: NotRequired[str | None]
    warnings: NotRequired[list[Any] | None]
    approval: NotRequired[dict[str, Any]]
    transform: NotRequired[Any]
    evidence: NotRequired[Any]
    result_labels: NotRequired[list[str] | None]


class ApprovalRequest(TypedDict):
    """What the host hands its resolver (§9). The verdict is a deny (a §7.5 host-synthesized one
    may carry host_error:*); the context is optional and MAY be redacted, so only the envelope
    applies to it.
    """
    context_identity: str | None
    interception_point: Literal["agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call", "output", "agent_shutdown"]
    verdict: dict[str, Any]
    context: NotRequired[AgentContext]


class ApprovalResolution(TypedDict):
    """What a resolver answers (§9), closed. The echo rule and the validation order are the host's
    checks.
    """
    outcome: Literal["approve", "reject", "unresolved"]
    context_identity: str | None
    verdict: NotRequired[Verdict]


class InterceptionRecord(TypedDict):
    """One per emission (§10.3), payload-free: closed at the top level, in composition, trace and
    verdicts[]; in verdict only transform (path only) and approval (empty) are closed, the rest
    of the projection is open.
    """
    interception_point: Literal["agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call", "output", "agent_shutdown"]
    mode: Literal["enforce", "evaluate_only"]
    verdict: dict[str, Any]
    input_identity: str | None
    enforced_identity: str | None
    identity_provider: Literal[None] | Literal["jcs-sha256"] | str
    session_id: str
    sequence: int
    timestamp: NotRequired[str]
    trace: NotRequired[dict[str, Any]]
    decided_by: NotRequired[int | None]
    composition: dict[str, Any]
    verdicts: NotRequired[list[dict[str, Any]]]
    fold_truncated: NotRequired[bool]
    resolved_by: NotRequired[Literal["approval", "rejection", None]]
    interceptors_registered: int


class CreateApproval(TypedDict):
    """§9 ApprovalRequest (the `ApprovalRequest` component) with `context` required, plus this
    API's members. The verdict must be a §5-valid liftable deny (§5.1); the context passes the
    §4 envelope check and the §4.4 value domain.
    """
    context_identity: str | None
    interception_point: Literal["agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call", "output", "agent_shutdown"]
    verdict: Verdict
    context: AgentContext
    identity_provider: NotRequired[Literal["jcs-sha256"] | str | None]
    session: NotRequired[str | None]
    agent: NotRequired[str | None]
    timeout_ms: NotRequired[int]
    deny_set: NotRequired[DenySet | None]
    request_id: NotRequired[str | None]


class DenySet(TypedDict):
    """DenySet"""
    composition: dict[str, Any]
    interceptors_registered: int
    verdicts: list[dict[str, Any]]
    decided_by: NotRequired[int | None]
    fold_truncated: bool


class SaveWebhook(TypedDict):
    """SaveWebhook"""
    url: str
    timeout_ms: NotRequired[int]


class RotateWebhookSecret(TypedDict):
    """RotateWebhookSecret"""
    overlap_seconds: NotRequired[int]


class ApprovalAnswer(TypedDict):
    """An ApprovalResolution (§9: `verdict` present exactly when the outcome is not `unresolved`;
    the approve/reject verdict's `evidence` points at the receipt, §5.3) plus `receipt`, which a
    host strips before handing the resolution to its engine.
    """
    outcome: Literal["approve", "reject", "unresolved"]
    context_identity: str | None
    verdict: NotRequired[Verdict]
    receipt: str | None


class TicketCreated(TypedDict):
    """The ticket: 201 when new, 200 when the same identity was posted before."""
    id: str
    status: Literal["pending", "approved", "rejected", "expired"]
    expires_at: str
    context_identity: str | None
    links: dict[str, Any]


class TicketPending(TypedDict):
    """Not decided yet: ask again (the response carries `Retry-After`)."""
    id: str
    status: Literal["pending"]
    expires_at: str


class RecordsAccepted(TypedDict):
    """RecordsAccepted"""
    accepted: int
    duplicates: int


class SelfTestResult(TypedDict):
    """SelfTestResult"""
    ok: bool
    echoOk: bool
    at: str
    cases: list[dict[str, Any]]


class Webhook(TypedDict):
    """Webhook"""
    id: str
    kind: Literal["callback", "resolver"]
    url: str
    enabled: bool
    timeout_ms: int
    consecutive_failures: int
    disabled_at: str | None
    disabled_reason: str | None
    self_test: SelfTestResult | None
    secrets: list[dict[str, Any]]


class WebhookList(TypedDict):
    """WebhookList"""
    callback: Webhook | None
    resolver: Webhook | None


class WebhookSaved(TypedDict):
    """WebhookSaved"""
    webhook: Webhook
    secret: NotRequired[str]
    self_test: NotRequired[SelfTestResult]


class SecretRotated(TypedDict):
    """SecretRotated"""
    secret: str


class Delivery(TypedDict):
    """Delivery"""
    id: str
    kind: Literal["callback", "resolver"]
    ticket_id: str | None
    webhook_id: str
    event_type: str
    status: Literal["pending", "delivered", "failed", "dead"]
    attempts: int
    last_status_code: int | None
    last_error: str | None
    latency_ms: int | None
    created_at: str
    next_attempt_at: str | None
    delivered_at: str | None


class DeliveryList(TypedDict):
    """DeliveryList"""
    deliveries: list[Delivery]


class Queued(TypedDict):
    """Queued"""
    queued: Literal[True]


class Health(TypedDict):
    """Health"""
    status: Literal["ok"]


class Error(TypedDict):
    """Every refusal. Branch on `error.code` (or the status), never on `message`. `x-error-codes`
    lists every code with its one status.
    """
    error: dict[str, Any]


class CheckpointClient:
    """One method per operation of the document; each returns a Response or raises CheckpointError."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        # timeout: above the longest long-poll (30 s), so a wait is never cut short.
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def _call(
        self,
        method: str,
        path: str,
        *,
        auth: bool,
        query: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        body: Any = None,
    ) -> Response:
        url = self.base_url + path
        params = {k: str(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        send = {"Accept": "application/json"}
        send.update({k: str(v) for k, v in (headers or {}).items() if v is not None})
        data = None
        if body is not None:
            # allow_nan=False: NaN and Infinity are outside the JSON value domain (§4.4).
            data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
            send["Content-Type"] = "application/json"
        if auth:
            if not self.api_key:
                raise ValueError(f"{method} {path} needs a host API key")
            send["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=data, headers=send, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as res:
                return Response(res.status, _json(res.read()), dict(res.headers.items()))
        except urllib.error.HTTPError as err:
            payload = _json(err.read())
            error = payload.get("error") if isinstance(payload, dict) else None
            if isinstance(error, dict):
                raise CheckpointError(
                    err.code, str(error.get("code")), str(error.get("message")), error.get("details")
                ) from None
            raise CheckpointError(err.code, "http_error", f"HTTP {err.code}") from None

    def create_approval(self, body: CreateApproval) -> Response:
        """Ask for approval. POST /api/v1/approvals: 200 TicketCreated; 201 TicketCreated."""
        return self._call("POST", "/api/v1/approvals", auth=True, body=body)

    def get_approval(self, id: str, *, wait: int | None = None) -> Response:
        """Wait for the resolution. GET /api/v1/approvals/{id}: 200 ApprovalAnswer; 202
        TicketPending.
        """
        return self._call("GET", f"/api/v1/approvals/{urllib.parse.quote(id, safe='')}", auth=True, query={"wait": wait})

    def get_approval_receipt(self, id: str) -> Response:
        """The signed receipt of a decision. GET /api/v1/approvals/{id}/receipt: 200 (no body)."""
        return self._call("GET", f"/api/v1/approvals/{urllib.parse.quote(id, safe='')}/receipt", auth=True)

    def ingest_records(self, body: list[InterceptionRecord], *, agent_id: str | None = None, x_checkpoint_dropped: int | None = None) -> Response:
        """Send interception records. POST /api/v1/records: 200 RecordsAccepted."""
        return self._call("POST", "/api/v1/records", auth=True, query={"agent_id": agent_id}, headers={"x-checkpoint-dropped": x_checkpoint_dropped}, body=body)

    def list_webhooks(self) -> Response:
        """The host's webhooks. GET /api/v1/webhooks: 200 WebhookList."""
        return self._call("GET", "/api/v1/webhooks", auth=True)

    def save_webhook(self, kind: Literal["callback", "resolver"], body: SaveWebhook) -> Response:
        """Register or re-point a webhook. PUT /api/v1/webhooks/{kind}: 200 WebhookSaved; 201
        WebhookSaved.
        """
        return self._call("PUT", f"/api/v1/webhooks/{urllib.parse.quote(kind, safe='')}", auth=True, body=body)

    def delete_webhook(self, kind: Literal["callback", "resolver"]) -> Response:
        """Remove a webhook. DELETE /api/v1/webhooks/{kind}: 204 (no body)."""
        return self._call("DELETE", f"/api/v1/webhooks/{urllib.parse.quote(kind, safe='')}", auth=True)

    def rotate_webhook_secret(self, kind: Literal["callback", "resolver"], body: RotateWebhookSecret) -> Response:
        """Rotate the signing secret. POST /api/v1/webhooks/{kind}/rotate: 200 SecretRotated."""
        return self._call("POST", f"/api/v1/webhooks/{urllib.parse.quote(kind, safe='')}/rotate", auth=True, body=body)

    def self_test_resolver(self, kind: Literal["resolver"]) -> Response:
        """Self-test the resolver. POST /api/v1/webhooks/{kind}/self-test: 200 SelfTestResult."""
        return self._call("POST", f"/api/v1/webhooks/{urllib.parse.quote(kind, safe='')}/self-test", auth=True)

    def list_webhook_deliveries(self, *, limit: int | None = None) -> Response:
        """The delivery log. GET /api/v1/webhooks/deliveries: 200 DeliveryList."""
        return self._call("GET", "/api/v1/webhooks/deliveries", auth=True, query={"limit": limit})

    def redeliver_webhook_delivery(self, id: str) -> Response:
        """Redeliver. POST /api/v1/webhooks/deliveries/{id}/redeliver: 202 Queued."""
        return self._call("POST", f"/api/v1/webhooks/deliveries/{urllib.parse.quote(id, safe='')}/redeliver", auth=True)

    def get_tree_head(self, *, size: str | None = None) -> Response:
        """A signed tree head. GET /api/v1/log/tree-head: 200 dict[str, Any]."""
        return self._call("GET", "/api/v1/log/tree-head", auth=True, query={"size": size})

    def get_inclusion_proof(self, *, index: str | None = None, record: str | None = None, decision: str | None = None, size: str | None = None) -> Response:
        """Inclusion proof of a record or decision. GET /api/v1/log/proof/inclusion: 200 dict[str,
        Any].
        """
        return self._call("GET", "/api/v1/log/proof/inclusion", auth=True, query={"index": index, "record": record, "decision": decision, "size": size})

    def get_consistency_proof(self, *, from_: str, to: str) -> Response:
        """Consistency proof between two tree sizes. GET /api/v1/log/proof/consistency: 200
        dict[str, Any].
        """
        return self._call("GET", "/api/v1/log/proof/consistency", auth=True, query={"from": from_, "to": to})

    def get_session_evidence(self, id: str, *, host_id: str, consistency_from: str | None = None) -> Response:
        """A session's evidence bundle. GET /api/v1/audit/sessions/{id}/evidence: 200 (no body)."""
        return self._call("GET", f"/api/v1/audit/sessions/{urllib.parse.quote(id, safe='')}/evidence", auth=True, query={"host_id": host_id, "consistency_from": consistency_from})

    def get_open_api_document(self) -> Response:
        """This document. GET /api/v1/openapi.json: 200 dict[str, Any]."""
        return self._call("GET", "/api/v1/openapi.json", auth=False)

    def get_health(self) -> Response:
        """Liveness. GET /api/health: 200 Health."""
        return self._call("GET", "/api/health", auth=False)

    def get_jwks(self) -> Response:
        """Signing keys (JWKS). GET /.well-known/jwks.json: 200 dict[str, Any]."""
        return self._call("GET", "/.well-known/jwks.json", auth=False)
