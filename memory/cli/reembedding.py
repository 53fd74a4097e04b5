"""`tideline reembed --workspace W [--batch N]`: bring a workspace's vectors to the configured embedder."""

from __future__ import annotations

from memory.cli.common import emit, progress_bar
from memory.services.recall import embedding
from memory.services.workspaces import get_workspace

HELP = "embed every fact that lacks a vector from the configured learned embedder (TIDELINE_EMBEDDER)"


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--batch", type=int, default=embedding.REEMBED_BATCH, help="facts per committed batch")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    embedder = embedding.configured()
    if embedder is None:
        embedding.reembed(workspace, actor="cli:reembed")  # raises the "no embedder configured" error
    pending = embedding.stale_facts(workspace, embedder.fingerprint).count()
    with progress_bar(pending, f"embedding {workspace.name}") as bar:
        report = embedding.reembed(workspace, actor="cli:reembed", embedder=embedder, batch_size=options["batch"],
                                   progress=bar.update)  # fmt: skip
    emit(options, {"workspace": workspace.name, **report.to_dict()},
         f"reembed {workspace.name}: {report.embedded} fact(s) embedded, {report.already_current} already current "
         f"({report.fingerprint})")  # fmt: skip
