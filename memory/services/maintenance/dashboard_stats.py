"""The workspace dashboard's figures, kept between revisions.

Each figure is an aggregate over the whole workspace: about six seconds at a million facts, and any
write moves the revision. So the page shows the last figures computed (saying of which revision and
when) while the worker computes the current ones, for at most `STALE_SECONDS`; past that, or with
nothing computed yet, the request computes them itself. A quiet workspace always shows exact ones.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache

from memory import selectors
from memory.models import Workspace
from memory.services.queueing import enqueue_once

STALE_SECONDS = 300  # how old shown figures may be while newer ones are computed
KEEP_SECONDS = 3600


def _key(workspace: Workspace) -> str:
    # The embedder setting is part of the key: the "Recall" card depends on it, not on the revision.
    embedder = f"{settings.TIDELINE_EMBEDDER}:{settings.TIDELINE_EMBEDDER_PATH}"
    return f"tideline:dashboard:5:{workspace.pk}:{workspace.created_at.timestamp()}:{embedder}"


def current(workspace: Workspace) -> dict:
    """The figures to show now: exact, or at most `STALE_SECONDS` old while the worker refreshes them
    (`as_of_revision` and `computed_at` then say which)."""
    kept = cache.get(_key(workspace))
    if kept is not None and kept["revision"] == workspace.revision:
        return {**kept["stats"], "as_of_revision": None}
    if kept is not None and time.time() - kept["computed_at"] <= STALE_SECONDS:
        _refresh_later(workspace)
        fresh = cache.get(_key(workspace))  # a worker run in-process (TIDELINE_Q_SYNC) is done already
        if fresh is not None and fresh["revision"] == workspace.revision:
            return {**fresh["stats"], "as_of_revision": None}
        computed_at = datetime.fromtimestamp(kept["computed_at"], tz=UTC)
        return {**kept["stats"], "as_of_revision": kept["revision"], "computed_at": computed_at}
    return {**compute(workspace), "as_of_revision": None}


def compute(workspace: Workspace) -> dict:
    """Compute the figures at the workspace's revision now and keep them."""
    revision = workspace.revision
    stats = selectors.dashboard(workspace)
    stats["maintenance_runs"], stats["recent_events"] = list(stats["maintenance_runs"]), list(stats["recent_events"])
    cache.set(_key(workspace), {"revision": revision, "computed_at": time.time(), "stats": stats}, timeout=KEEP_SECONDS)
    return stats


def refresh(workspace_id: int) -> None:
    """The worker's task: the figures at the workspace's current revision."""
    workspace = Workspace.objects.filter(pk=workspace_id).first()
    if workspace is not None:
        compute(workspace)


def _refresh_later(workspace: Workspace) -> bool:
    """Queue `refresh` once per revision; False if it is queued already, or the broker could not take
    it (logged; the page shows the kept figures and the next request tries again)."""
    return bool(enqueue_once(f"{_key(workspace)}:queued:{workspace.revision}", STALE_SECONDS,
                             "memory.services.maintenance.dashboard_stats.refresh", workspace.pk,
                             task_name=f"memory-dashboard-{workspace.pk}"))  # fmt: skip
