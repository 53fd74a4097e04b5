"""django-q2 entry points: importable functions that call exactly one service each.

The `…_everywhere` functions are what the schedules start: each queues one task per workspace, so a
million-fact workspace's pass (the dream takes about ten minutes there) runs under its own, longer
timeout (`TIDELINE_MAINTENANCE_TIMEOUT`) instead of the cluster's ten minutes for every workspace
together, and one workspace's failure leaves the others' runs alone. (The queueing helper lives in
`memory.services.maintenance.passes`: every public function here may be named by a schedule.)
"""

from __future__ import annotations

from memory.models import Workspace
from memory.services.maintenance import due
from memory.services.maintenance import passes as maintenance
from memory.services.recall import index


def run_gc(workspace_id: int) -> dict:
    workspace = Workspace.objects.get(pk=workspace_id)
    return maintenance.run_gc(workspace, actor="task:gc", progress=maintenance.logged("gc", workspace)).to_dict()


def run_dream(workspace_id: int) -> dict:
    workspace = Workspace.objects.get(pk=workspace_id)
    return maintenance.run_dream(workspace, actor="task:dream", progress=maintenance.logged("dream", workspace)).to_dict()


def write_recall_snapshots(workspace_id: int) -> list[str]:
    """After a bulk import: the recall index snapshots of the workspace's large origins."""
    return index.write_snapshots(workspace_id)


def run_gc_everywhere() -> list[str]:
    """Hourly: decay GC for every workspace that changed since its last GC or where a fact's score has
    decayed to a threshold since (`maintenance.due`), one queued task each."""
    return maintenance.queue_for_each_workspace("memory.tasks.run_gc", "decay GC", due.GC)


def run_dream_everywhere() -> list[str]:
    """The dream for every workspace, one queued task each (the nightly schedule runs governance's
    `run_nightly_everywhere`, which adds contradiction detection after each workspace's dream)."""
    return maintenance.queue_for_each_workspace("memory.tasks.run_dream", "dream", due.DREAM)
