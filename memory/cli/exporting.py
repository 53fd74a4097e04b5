"""`tideline export --workspace W --format jsonl [--origin O] [--output FILE]`"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from memory.cli.common import emit, origin_option, progress_bar
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace
from memory.services.writes.interchange import count_facts, export_facts

HELP = "export facts as facts.jsonl (every lifecycle)"
FORMATS = ("jsonl", "graph-json", "graphml")


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--format", default="jsonl",
                        help="jsonl (the original engine's facts.jsonl), graph-json or graphml (the Memory Graph)")
    parser.add_argument("--max-nodes", type=int, help="graph formats: keep the most important facts only")
    parser.add_argument("--origin", help="only this origin: owner or channel:CHANNEL/CONVERSATION/SESSION")
    parser.add_argument("--output", "-o", help="write to this file instead of standard output")


def run(options: dict) -> None:
    if options["format"] not in FORMATS:
        raise RequestError(f"unknown format {options['format']!r} (available: {', '.join(FORMATS)})", kind="validation")
    workspace = get_workspace(options["workspace"])
    if options["format"] != "jsonl":
        _export_graph(options, workspace)
        return
    origin = origin_option(options.get("origin"))
    total = count_facts(workspace, origin)
    records = export_facts(workspace=workspace, origin=origin)
    if not options.get("output"):
        if options.get("json"):
            facts = list(records)  # the count says what the output holds (a shredded origin's facts are skipped)
            emit(options, {"workspace": workspace.name, "count": len(facts), "facts": facts}, "")
            return
        for record in records:
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    path = Path(options["output"])
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    written = 0
    with progress_bar(total, "exporting") as bar, open(tmp, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
            bar.update(1)
    tmp.replace(path)  # a crash half-way never leaves a truncated export behind
    emit(options, {"workspace": workspace.name, "count": written, "output": str(path)},
         f"exported {written} fact(s) from {workspace.name} to {path}")  # fmt: skip


def _export_graph(options: dict, workspace) -> None:
    from memory.engine.maintenance.graph_export import to_graphml, to_json
    from memory.services.maintenance.graph import export_graph

    export = export_graph(workspace, max_nodes=options.get("max_nodes"))
    text = to_graphml(export) if options["format"] == "graphml" else json.dumps(to_json(export), ensure_ascii=False)
    if not options.get("output"):
        sys.stdout.write(text + ("" if text.endswith("\n") else "\n"))
        return
    path = Path(options["output"])
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    stats = export.stats
    emit(options, {"workspace": workspace.name, "output": str(path), "nodes": len(export.nodes), "edges": len(export.edges),
                   "clusters": stats.clusters, "modularity": stats.modularity},
         f"wrote {len(export.nodes)} nodes, {len(export.edges)} edges, {stats.clusters} clusters to {path}")  # fmt: skip
