"""`tideline gc|dream|contradictions --workspace W [--dry-run]` and `tideline dream --undo RUN`."""

from __future__ import annotations

from memory.cli.common import emit
from memory.services import maintenance
from memory.services.workspaces import get_workspace

HELP = {
    "gc": "decay GC: archive or prune facts whose effective score fell below the thresholds",
    "dream": "the nightly dream: confirm, consolidate, relate, evict (reversible with --undo RUN)",
    "contradictions": "find contradicting facts and open a review item for each new pair",
}


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    parser.add_argument("--undo", metavar="RUN", help="dream only: undo the dream run with this id")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    verb = options["subcommand"]
    actor = f"cli:{verb}"
    if verb == "dream" and options.get("undo"):
        undone = maintenance.undo_dream(workspace, options["undo"], actor=actor)
        emit(options, {"workspace": workspace.name, "undone_run": options["undo"], "changes": undone},
             f"undid dream run {options['undo']} on {workspace.name}: {undone} change(s) reverted")  # fmt: skip
        return
    passes = {"gc": maintenance.run_gc, "dream": maintenance.run_dream, "contradictions": maintenance.find_contradictions}
    report = passes[verb](workspace, dry_run=options["dry_run"], actor=actor)
    counts = ", ".join(f"{name} {value}" for name, value in report.counts.items())
    emit(options, report.to_dict(), f"{verb} on {workspace.name}{' (dry run)' if report.dry_run else ''}: {counts}")
