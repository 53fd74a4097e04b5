"""`tideline gc --workspace W [--dry-run]` (and, with the dream engine, `tideline dream`)."""

from __future__ import annotations

from memory.cli.common import emit
from memory.services import maintenance
from memory.services.workspaces import get_workspace

HELP = {"gc": "decay GC: archive or prune facts whose effective score fell below the thresholds"}


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    report = maintenance.run_gc(workspace, dry_run=options["dry_run"], actor="cli:gc")
    verb = "would change" if report.dry_run else "changed"
    counts = ", ".join(f"{name} {value}" for name, value in report.counts.items())
    emit(options, report.to_dict(), f"gc on {workspace.name}: {counts} ({verb} {report.changes} fact(s))")
