#!/usr/bin/env python3
"""Ask Checkpoint for approval from Python, wait for the decision, print the resolution.

    CHECKPOINT_API_KEY=ck_... python3 docs/python/example.py [--url URL] [--timeout-ms MS]

Uses the generated client (checkpoint_client.py, beside this file): Python 3.11+,
standard library only. The key is a host API key (an admin issues it under /hosts).
The ticket appears in /approvals; approve or reject it there and this script prints
the outcome. If nobody decides before the timeout, the outcome is `unresolved`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from checkpoint_client import CheckpointClient, CheckpointError, CreateApproval  # noqa: E402

# A host-defined identity provider (§10.1): SHA-256 over Python's sorted-key JSON
# of the context. Checkpoint takes a declared provider's identity at its word and
# echoes it in the resolution, which is what the host checks (§9). (The default,
# jcs-sha256, is computed by the server too and needs RFC 8785 canonical JSON.)
PROVIDER = "python-example"


def identity_of(context: dict) -> str:
    text = json.dumps(context, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def transfer_request(timeout_ms: int) -> CreateApproval:
    """A pre_tool_call context (§4) for a wire transfer, and the liftable deny (§5.1) it got."""
    args = {"to": "ACME GmbH", "amount": 25000, "currency": "EUR"}
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    context = {
        "spec": "agent-hooks/0.1",
        "interception_point": "pre_tool_call",
        "timestamp": now,
        "sequence": 1,
        "agent": {"id": "python-example", "framework": "python"},
        "session": {"id": f"py-{uuid.uuid4()}"},
        "tool_call": {"id": "call_1", "name": "wire_transfer", "args": args},
        "target": args,
    }
    return {
        "context_identity": identity_of(context),
        "identity_provider": PROVIDER,
        "interception_point": "pre_tool_call",
        "verdict": {
            "decision": "deny",
            "reason": "amount_over_threshold",
            "message": "Transfers over 10000 need a reviewer's approval.",
            "approval": {},
        },
        "context": context,
        "agent": "Python example",
        "timeout_ms": timeout_ms,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("CHECKPOINT_URL", "http://localhost:3000"))
    parser.add_argument("--timeout-ms", type=int, default=600_000, help="how long reviewers have")
    opts = parser.parse_args()
    api_key = os.environ.get("CHECKPOINT_API_KEY")
    if not api_key:
        print("Set CHECKPOINT_API_KEY to a host API key (issued under /hosts).", file=sys.stderr)
        return 2

    client = CheckpointClient(opts.url, api_key)
    try:
        request = transfer_request(opts.timeout_ms)
        ticket = client.create_approval(request).body
        print(f"ticket {ticket['id']} {ticket['status']}: {ticket['links']['ui']}", flush=True)
        while True:
            answer = client.get_approval(ticket["id"], wait=30)
            if answer.status == 200:
                break
            print(f"pending until {answer.body['expires_at']}", flush=True)
    except CheckpointError as err:
        print(f"refused: {err.status} {err.code}: {err.message}", file=sys.stderr)
        return 1

    resolution = answer.body
    # §9: a resolution that does not echo the request's identity must not be used.
    if resolution["context_identity"] != request["context_identity"]:
        print("the resolution does not echo our identity: ignoring it", file=sys.stderr)
        return 1
    print(f"outcome: {resolution['outcome']}")
    if "verdict" in resolution:
        print(f"verdict: {json.dumps(resolution['verdict'], ensure_ascii=False)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
