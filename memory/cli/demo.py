"""`tideline demo` — load the demo workspace and its users (idempotent)."""

from __future__ import annotations

from memory.cli.common import emit
from memory.services.demo import DEMO_WORKSPACE, load_demo

HELP = "load the demo workspace and demo users (safe to run again)"


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", default=DEMO_WORKSPACE, help="name of the demo workspace (default: demo)")


def run(options: dict) -> None:
    result = load_demo(name=options["workspace"])
    workspace = result.workspace
    facts = workspace.facts.count()
    payload = {
        "workspace": workspace.name,
        "created": result.created,
        "facts": facts,
        "links": workspace.links.count(),
        "users": [{"username": u, "password": p} for u, p in result.users],
    }
    verb = "loaded" if result.created else "already loaded"
    emit(options, payload, f"demo workspace '{workspace.name}' {verb}: {facts} facts, {payload['links']} links")
