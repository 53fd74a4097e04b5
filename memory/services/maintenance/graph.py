"""The Memory Graph's communities, kept per workspace so nobody waits for Louvain.

python-louvain costs seconds on a workspace of 10,000 linked facts. Each run's partition (fact id →
cluster id, no text) is kept in `GraphPartition` with the revision it saw:

* an export at that revision reuses it as it is (no Louvain);
* otherwise Louvain runs again, warm-started from it, and the new partition is kept;
* the console draws with the kept partition straight away (facts added since stand alone) and asks
  the worker to recompute (`recompute_later`, at most once per revision), so its page says
  "updated … ago, recomputing" instead of making the reader wait. A small workspace is computed in
  the request: that is quicker than a round trip through the queue.
"""

from __future__ import annotations

import time
from datetime import datetime

from django.utils import timezone

from memory.engine.maintenance.graph_export import GraphExport, export_memory_graph
from memory.models import GraphPartition, Workspace
from memory.services.maintenance.passes import maint_facts, workspace_links
from memory.services.queueing import enqueue_once
from memory.timestamps import to_ms

IN_REQUEST_LIMIT = 2000  # active facts up to which the console computes the graph itself


def kept(workspace: Workspace) -> GraphPartition | None:
    return GraphPartition.objects.filter(workspace=workspace).first()


def is_current(partition: GraphPartition, revision: int) -> bool:
    """Whether the kept communities were found at the workspace's revision (any change since may
    have added or removed facts or links)."""
    return partition.revision >= revision


def export_graph(workspace: Workspace, *, max_nodes: int | None = None, now: datetime | None = None) -> GraphExport:
    """The Memory Graph (ENGINE-SPEC §5.7): active facts, typed edges, Louvain communities, stats.
    Louvain runs only when the workspace changed since its kept partition."""
    return export(workspace, max_nodes=max_nodes, now=now)[0]


def export(workspace: Workspace, *, max_nodes: int | None = None, now: datetime | None = None,
           recompute: bool = True) -> tuple[GraphExport, GraphPartition | None]:  # fmt: skip
    """The graph and the partition it was drawn with. `recompute`: run Louvain when the kept
    partition is older than the workspace (warm-started from it) and keep the result; otherwise
    draw with whatever is kept (a workspace never computed runs Louvain anyway)."""
    revision = Workspace.objects.values_list("revision", flat=True).get(pk=workspace.pk)
    previous = kept(workspace)
    facts, links = maint_facts(workspace), workspace_links(workspace, active_only=True)
    moment = int(to_ms(now or timezone.now()))
    if previous is not None and (not recompute or is_current(previous, revision)):
        graph = export_memory_graph(facts, links, moment, max_nodes=max_nodes, previous=previous.communities, fixed=True)
        return graph, previous
    started = time.perf_counter()
    graph = export_memory_graph(facts, links, moment, max_nodes=max_nodes,
                                previous=previous.communities if previous else None)  # fmt: skip
    partition, _ = GraphPartition.objects.update_or_create(workspace=workspace, defaults={
        "revision": revision, "computed_at": timezone.now(), "seconds": time.perf_counter() - started,
        "communities": dict(graph.communities), "modularity": graph.stats.modularity})  # fmt: skip
    return graph, partition


def recompute(workspace_id: int) -> None:
    """The worker's task: bring the workspace's kept partition up to its revision."""
    workspace = Workspace.objects.filter(pk=workspace_id).first()
    if workspace is not None:
        export(workspace, max_nodes=0)


def recompute_later(workspace: Workspace) -> bool | None:
    """Queue `recompute` for the worker once per workspace revision: True when queued now, False when
    queued already, None when the broker could not take it (logged; the next request tries again)."""
    key = f"tideline:graph-queued:{workspace.pk}:{workspace.created_at.timestamp()}:{workspace.revision}"
    return enqueue_once(key, 3600, "memory.services.maintenance.graph.recompute", workspace.pk,
                        task_name=f"memory-graph-{workspace.pk}")  # fmt: skip
