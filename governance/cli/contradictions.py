"""`tideline contradictions --workspace W [--dry-run]`: open a review item for each new contradicting pair."""

from __future__ import annotations

from governance.services.contradictions import find_contradictions
from memory.cli.common import emit
from memory.services.workspaces import get_workspace

HELP = "find contradicting facts and open a review item for each new pair"


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    report = find_contradictions(workspace, dry_run=options["dry_run"], actor="cli:contradictions")
    counts = ", ".join(f"{name} {value}" for name, value in report.counts.items())
    emit(options, report.to_dict(),
         f"contradictions on {workspace.name}{' (dry run)' if report.dry_run else ''}: {counts}")  # fmt: skip
