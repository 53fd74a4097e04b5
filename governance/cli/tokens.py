"""`tideline tokens create|list|revoke --workspace W` — API tokens for agents (docs/SECURITY.md).

`create --origin O --verbs read,write[,manage] [--clearance C] [--source S] [--expires DAYS] [--name N]`
prints the token once (with --json, under "token"): only its SHA-256 is kept. `--origin` is `owner`,
`channel:C/V/S` (one peer) or `channel:C/*` (any peer of channel C, for an auto-recall gateway).
`--source` is the source type of what speaks through the token (default tool_output, untrusted):
its writes are stored as that, or as a less trusted type they name, never a more trusted one.
`list` shows every token with its status, last use and counts; `revoke --name N` ends one at once.
Changes are recorded as `cli:tokens`.
"""

from __future__ import annotations

from django.utils import timezone

from governance.engine import tokens as rules
from governance.services import tokens
from governance.services.acting import Actor
from memory.cli.common import emit
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = "create, list or revoke the API tokens agents use (HTTP API and MCP), each bound to an origin and verbs"
ACTOR = Actor.cli("tokens")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("create", "list", "revoke"))
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--origin", help="create: owner, channel:C/V/S, or channel:C/* (any peer of channel C)")
    parser.add_argument("--verbs", help="create: read, write and/or manage, comma-separated")
    parser.add_argument("--clearance", default="PII", help="create: PUBLIC, INTERNAL or PII (the most it may read)")
    parser.add_argument("--source", default=rules.DEFAULT_SOURCE, metavar="SOURCE",
                        help="create: the source type its writes are stored as, at most: "
                             f"{', '.join(rules.SOURCES)} (default {rules.DEFAULT_SOURCE}, untrusted)")  # fmt: skip
    parser.add_argument("--expires", type=float, metavar="DAYS", help="create: expire after this many days")
    parser.add_argument("--name", help="create: a name for the event log (default: agent-<time>); revoke: which")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    if action == "list":
        found = [tokens.describe(t) for t in tokens.list_tokens(workspace)]
        lines = [f"{t['name']:<24} {t['status']:<8} {t['origin']:<28} {','.join(t['verbs']):<18} {t['clearance']:<8} "
                 f"{t['source']:<18} "
                 f"used {t['use_count']} ({t['read_count']} reads), last {t['last_used_at'] or 'never'}" for t in found]  # fmt: skip
        emit(options, {"workspace": workspace.name, "tokens": found},
             "\n".join(lines) or "(no tokens: tideline tokens create --workspace W --origin owner --verbs read)")  # fmt: skip
        return
    if action == "revoke":
        if not options.get("name"):
            raise RequestError("tokens revoke needs --name NAME (see tideline tokens list)", kind="validation")
        token = tokens.revoke_token(workspace, options["name"], actor=ACTOR)
        emit(options, {"workspace": workspace.name, "revoked": tokens.describe(token)},
             f"token {token.name} is revoked (since {token.revoked_at:%Y-%m-%d %H:%M:%S} UTC)")  # fmt: skip
        return
    missing = [flag for flag, key in (("--origin", "origin"), ("--verbs", "verbs")) if not options.get(key)]
    if missing:
        raise RequestError(f"tokens create needs {' and '.join(missing)}", kind="validation")
    name = options.get("name") or f"agent-{timezone.now():%Y%m%d-%H%M%S}"
    token, secret = tokens.create_token(workspace, name=name, origin=options["origin"], verbs=options["verbs"],
                                        clearance=options["clearance"], source=options.get("source"), expires_days=options.get("expires"), actor=ACTOR)  # fmt: skip
    emit(options, {"workspace": workspace.name, "token": secret, **tokens.describe(token)},
         f"{secret}\n\nThis is the only time the token is shown: store it now. It acts as {token.scope} in "
         f"{workspace.name} ({', '.join(token.verbs)}; clearance {token.clearance}; writes as {token.source_type}"
         + (f"; expires {token.expires_at:%Y-%m-%d}" if token.expires_at else "") + ").")  # fmt: skip
