"""`tideline import FILE --workspace W [--create] [--strict]`"""

from __future__ import annotations

import sys
from pathlib import Path

from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError
from memory.services.interchange import import_facts
from memory.services.workspaces import get_workspace

HELP = "import a facts.jsonl file (the original engine's format)"


def add_arguments(parser) -> None:
    parser.add_argument("file", help="path to facts.jsonl, or - for standard input")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--create", action="store_true", help="create the workspace if it does not exist")
    parser.add_argument("--strict", action="store_true", help="all or nothing: any bad line refuses the file")
    parser.add_argument("--gate", action="store_true",
                        help="run every record through the write path (gate, threat scan, dedup, slots)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"], create=options["create"], actor="cli")
    if options["file"] == "-":
        lines, total, source = sys.stdin.readlines(), None, "stdin"
        total = len(lines)
    else:
        path = Path(options["file"])
        if not path.is_file():
            raise RequestError(f"no such file: {path}", kind="not_found")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise RequestError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})", kind="invalid_input") from exc
        total, source = len(lines), path.name
    with progress_bar(total, "importing") as bar:
        report = import_facts(
            workspace=workspace, lines=lines, actor="cli:import", strict=options["strict"], gate=options["gate"],
            source_name=source, progress=bar.update,
        )  # fmt: skip
    human = [f"imported {report.imported} fact(s) and {report.links} link(s) into {workspace.name}"]
    if report.gated:
        human.append(f"through the write path: {report.reinforced} reinforced an existing fact, "
                     f"{report.confined} held for review")
    if report.dangling_links:
        human.append(f"kept {report.dangling_links} link(s) whose target is not in the workspace")
    if report.refused:
        human.append(f"refused {len(report.refused)} line(s):")
        human += [f"  line {r.line}: {r.reason}" for r in report.refused[:50]]
    emit(options, report.to_dict(), "\n".join(human))
