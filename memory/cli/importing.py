"""`tideline import FILE --workspace W [--create] [--strict] [--gate]`: exits 3 when some lines were
refused and the rest imported (2 is for a call refused whole: a bad option, an unknown workspace,
a failed `--strict` import)."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path

from django.db import transaction

from memory.cli.common import CliExit, emit, progress_bar
from memory.engine.safety.sensitive import LABELS
from memory.models import Workspace
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace
from memory.services.writes.interchange import REPORTED_REFUSALS, import_facts

PARTLY_IMPORTED = 3  # the exit code when some lines were refused and the others imported

HELP = "import a facts.jsonl file (the original engine's format)"


def add_arguments(parser) -> None:
    parser.add_argument("file", help="path to facts.jsonl, or - for standard input")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--create", action="store_true", help="create the workspace if it does not exist")
    parser.add_argument("--strict", action="store_true", help="all or nothing: any bad line refuses the file")
    parser.add_argument("--gate", action="store_true",
                        help="run every record through the write path (gate, threat scan, dedup, slots)")


def run(options: dict) -> None:
    # A strict import into a workspace it creates is one transaction with the creation: refused,
    # it leaves no empty workspace behind.
    creates = options["create"] and options["strict"] and not Workspace.objects.filter(name=options["workspace"]).exists()
    with transaction.atomic() if creates else nullcontext():
        _run(options)


def _run(options: dict) -> None:
    workspace = get_workspace(options["workspace"], create=options["create"], actor="cli")
    # Lines are read as bytes and decoded one by one, so a line that is not UTF-8 is refused on its
    # own (and only \n, \r\n or \r end a line, never a U+2028 inside a JSON string).
    if options["file"] == "-":
        lines, source = sys.stdin.buffer.read().splitlines(), "stdin"
    else:
        path = Path(options["file"])
        if not path.is_file():
            raise RequestError(f"no such file: {path}", kind="not_found")
        lines, source = path.read_bytes().splitlines(), path.name
    with progress_bar(len(lines), "importing") as bar:
        report = import_facts(
            workspace=workspace, lines=lines, actor="cli:import", strict=options["strict"], gate=options["gate"],
            source_name=source, progress=bar.update,
        )  # fmt: skip
    human = [f"imported {report.imported} fact(s) and {report.links} link(s) into {workspace.name}"]
    if report.skipped:
        human.append(f"skipped {report.skipped} fact(s) already present (their links ensured)")
    if report.links_resolved:
        human.append(f"resolved {report.links_resolved} link(s) whose target is now present")
    if report.gated:
        human.append(f"through the write path: {report.reinforced} reinforced an existing fact, "
                     f"{report.confined} kept as down-weighted evidence, {report.held} held for review")
    if report.dangling_links:
        human.append(f"kept {report.dangling_links} link(s) whose target is not in the workspace")
    if report.detected:
        found = ", ".join(f"{n} {LABELS[kind]}" for kind, n in sorted(report.detected.items()))
        human.append(f"personal data and secrets found: {found} (personal data stored as PII; secrets replaced in "
                     "trusted lines, refused in untrusted ones and by --strict)")
    payload = report.to_dict()
    if report.refused:
        human.append(f"refused {len(report.refused)} line(s) (exit code {PARTLY_IMPORTED}):")
        human += [f"  line {r.line}: {r.reason}" for r in report.refused[:REPORTED_REFUSALS]]
        if len(report.refused) > REPORTED_REFUSALS:
            human.append(f"  … and {len(report.refused) - REPORTED_REFUSALS} more")
        message = f"{len(report.refused)} line(s) refused; the other lines were imported (exit code {PARTLY_IMPORTED})"
        payload["error"] = {"kind": "refused_lines", "message": message}
    emit(options, payload, "\n".join(human))
    if report.refused:
        # Some lines were not imported: a code of its own, so a script tells "look at the refusals"
        # from "nothing was done" (2).
        raise CliExit(PARTLY_IMPORTED)
