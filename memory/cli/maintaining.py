"""`tideline gc|dream --workspace W [--dry-run]` and `tideline dream --undo RUN`."""

from __future__ import annotations

import re
from textwrap import shorten

from memory.cli.common import emit, progress_bar
from memory.models import Fact
from memory.services.errors import RequestError
from memory.services.maintenance import passes as maintenance
from memory.services.workspaces import get_workspace

HELP = {
    "gc": "decay GC: archive or prune facts whose effective score fell below the thresholds",
    "dream": "the nightly dream: confirm, consolidate, relate, evict (reversible with --undo RUN)",
}


# A dream run id as the dream reports it (12 hex digits). Undo finds a run's events by this suffix of
# their actor, so anything looser (an empty string, a user name) must never reach it.
RUN_ID = re.compile(r"[0-9a-f]{12}")


def add_arguments(parser, verb: str) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    if verb == "dream":
        parser.add_argument("--undo", metavar="RUN", help="undo the dream run with this id (its report's `run`)")


def run(options: dict) -> None:
    verb = options["subcommand"]
    undo = options.get("undo")
    if undo is not None and not RUN_ID.fullmatch(undo):
        raise RequestError(f"--undo needs a dream run id (12 hex digits, the `run` of a dream's report), got {undo!r}",
                           kind="validation")  # fmt: skip
    if undo is not None and options["dry_run"]:
        raise RequestError("--undo cannot be combined with --dry-run", kind="validation")
    workspace = get_workspace(options["workspace"])
    actor = f"cli:{verb}"
    if undo is not None:
        undone = maintenance.undo_dream(workspace, undo, actor=actor)
        if undone is None:
            earlier = maintenance.dream_undone_by(workspace, undo)
            emit(options, {"workspace": workspace.name, "undone_run": undo, "changes": 0, "already_undone": True,
                           "undone_at_revision": earlier.revision},
                 f"dream run {undo} on {workspace.name} was already undone (revision {earlier.revision}): "
                 "nothing changed")  # fmt: skip
            return
        finished = maintenance.dream_finished(workspace, undo)
        note = "" if finished else " (the run never finished: what its committed batches changed was reverted)"
        emit(options, {"workspace": workspace.name, "undone_run": undo, "changes": undone, "already_undone": False,
                       "run_finished": finished},
             f"undid dream run {undo} on {workspace.name}: {undone} change(s) reverted{note}")  # fmt: skip
        return
    passes = {"gc": maintenance.run_gc, "dream": maintenance.run_dream}
    with progress_bar(None, f"{verb}: starting", unit="change") as bar:
        report = passes[verb](workspace, dry_run=options["dry_run"], actor=actor, progress=_shown_on(bar, verb))
    if report.dry_run:
        shown = [item["memory_id"] for item in report.planned[:SHOWN]]
        texts = {f.memory_id: f.content for f in Fact.objects.filter(workspace=workspace, memory_id__in=shown)}
        emit(options, report.to_dict(), _planned_text(verb, workspace.name, report, texts))
        return
    counts = ", ".join(f"{name} {value}" for name, value in report.counts.items())
    emit(options, report.to_dict(), f"{verb} on {workspace.name}: {counts}")


def _shown_on(bar, verb: str):
    """A pass's progress on the terminal: the phase, and a count while changes are written."""

    def progress(phase: str, done: int, total: int) -> None:
        bar.set_description(f"{verb}: {phase}", refresh=False)
        if bar.total != (total or None):
            bar.reset(total=total or None)
        bar.n = done
        bar.refresh()

    return progress


# What a dry run would do, in the future tense, and the facts it would touch.
_WOULD = {"archived": "archive", "pruned": "prune", "confirmed": "confirm", "consolidated": "merge", "related": "relate",
          "evicted": "evict"}  # fmt: skip
SHOWN = 50


def _planned_text(verb: str, workspace: str, report, texts: dict[str, str]) -> str:
    would = ", ".join(f"{_WOULD[name]} {value}" for name, value in report.counts.items() if name in _WOULD)
    left = ", ".join(f"{name} {value}" for name, value in report.counts.items() if name not in _WOULD)
    lines = [f"{verb} on {workspace} (dry run, nothing changed): would {would}" + (f" ({left})" if left else "")]
    for item in report.planned[:SHOWN]:
        target = f" into {item['into']}" if "into" in item else f" with {item['with']}" if "with" in item else ""
        lines.append(f"  {item['action']:<8} {item['memory_id']}{target}  ({item['reason']})")
        if item["memory_id"] in texts:
            lines.append(f"           {shorten(texts[item['memory_id']], 100, placeholder='…')}")
    if len(report.planned) > SHOWN:
        lines.append(f"  … and {len(report.planned) - SHOWN:,} more (--json lists every one)")
    return "\n".join(lines)
