"""django-q2 entry points: importable functions that call exactly one service each."""

from __future__ import annotations

from memory.models import Workspace
from memory.services import maintenance


def run_gc(workspace_id: int) -> dict:
    workspace = Workspace.objects.get(pk=workspace_id)
    return maintenance.run_gc(workspace, actor="task:gc", progress=maintenance.logged("gc", workspace)).to_dict()


def run_gc_everywhere() -> list[dict]:
    """Hourly: decay GC for every workspace."""
    return [run_gc(pk) for pk in Workspace.objects.values_list("pk", flat=True)]


def run_dream_everywhere() -> list[dict]:
    """The dream for every workspace (the nightly schedule runs governance's `run_nightly_everywhere`,
    which adds contradiction detection after it)."""
    return [maintenance.run_dream(workspace, actor="task:dream", progress=maintenance.logged("dream", workspace)).to_dict()
            for workspace in Workspace.objects.all()]  # fmt: skip
