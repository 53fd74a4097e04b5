"""`tideline demo` — load the demo workspace and its users (idempotent).

The demo users' password is published, so the demo goes only into the embedded default database
(SQLite under var/, no DATABASE_URL) unless `--allow-server` asks for another one explicitly.
"""

from __future__ import annotations

import sys

from django.conf import settings

from memory.cli.common import emit
from memory.services.demo import DEMO_WORKSPACE, load_demo
from memory.services.errors import RequestError

HELP = "load the demo workspace and demo users (safe to run again)"

NOT_EMBEDDED = "DATABASE_URL names a server database"


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", default=DEMO_WORKSPACE, help="name of the demo workspace (default: demo)")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--allow-server", action="store_true",
                        help="also load into the database DATABASE_URL names (its users share a published password)")
    target.add_argument("--if-embedded", action="store_true",
                        help="load into the embedded default database, skip (exit 0) when DATABASE_URL is set")  # fmt: skip


def run(options: dict) -> None:
    if not settings.EMBEDDED and not options.get("allow_server"):
        hint = "run `tideline demo --allow-server` to load it there"
        if options.get("if_embedded"):
            emit(options, {"skipped": True, "reason": f"{NOT_EMBEDDED}; {hint}"}, f"skipped: {NOT_EMBEDDED}; {hint}")
            return
        raise RequestError(f"the demo loads only into the embedded default database, and {NOT_EMBEDDED}; {hint}",
                           kind="refused")  # fmt: skip
    result = load_demo(name=options["workspace"])
    workspace = result.workspace
    facts = workspace.facts.count()
    payload = {
        "workspace": workspace.name,
        "created": result.created,
        "facts": facts,
        "links": workspace.links.count(),
        "users": [{"username": u, "password": p} for u, p in result.users],
        "demoted": list(result.demoted),
    }
    where = "the embedded default database" if settings.EMBEDDED else "the server database (--allow-server)"
    verb = "loaded into" if result.created else "already loaded in"
    emit(options, payload, f"demo workspace '{workspace.name}' {verb} {where}: {facts} facts, {payload['links']} links")
    if result.demoted and not options.get("json"):
        sys.stdout.write(f"demoted {', '.join(result.demoted)}: demo users are never staff or superusers "
                         "(their password is published)\n")  # fmt: skip
