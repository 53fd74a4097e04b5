"""Which workspaces a scheduled pass must visit: those that changed since its last run there, and
those where time alone has given it work (`memory.engine.maintenance.due`).

Each run of a pass over a workspace leaves a `PassMark`: the workspace's revision when the run began
(or when it ended, if every change in between was the run's own), and when time alone next gives the
pass work. The schedule then queues only the workspaces whose revision moved past the mark, whose
time has come, or that the pass has never seen, so the night over ten thousand workspaces costs what
changed in them, not ten thousand runs. A run that fails leaves the old mark: the next one goes again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db.models import Exists, F, FilteredRelation, OuterRef, Q
from django.utils import timezone

from memory.models import MemoryEvent, PassMark, Workspace
from memory.timestamps import from_ms

GC = "gc"
DREAM = "dream"
NIGHTLY = "nightly"  # governance's night: the dream, then contradiction detection

# Events that record that something ran, not that anything changed: a pass that finds nothing still
# writes its run event, and counting those as changes would have each pass wake the others for ever
# (the night's dream_run making the next hour's GC due, its gc_run the next night).
BOOKKEEPING = (MemoryEvent.Kind.GC_RUN, MemoryEvent.Kind.DREAM_RUN, MemoryEvent.Kind.RETENTION_RUN,
               MemoryEvent.Kind.EXPORTED)  # fmt: skip


def revision_of(workspace: Workspace | int) -> int:
    """The workspace's committed revision now (read before a pass reads its facts)."""
    pk = workspace.pk if isinstance(workspace, Workspace) else workspace
    return Workspace.objects.values_list("revision", flat=True).get(pk=pk)


def record(workspace: Workspace | int, name: str, *, began_at_revision: int, own_actors: Sequence[str],
           due_ms: int | float | None, now: datetime | None = None) -> PassMark:  # fmt: skip
    """Note that pass `name` finished over the workspace. `own_actors`: the actor prefixes of the
    events the run itself wrote; a change by anyone else while it ran keeps the workspace due."""
    pk = workspace.pk if isinstance(workspace, Workspace) else workspace
    ended = revision_of(pk)
    own = Q()
    for prefix in own_actors:
        own |= Q(actor__startswith=prefix)
    foreign = (MemoryEvent.objects.filter(workspace_id=pk, revision__gt=began_at_revision, revision__lte=ended)
               .exclude(own).exclude(kind__in=BOOKKEEPING).exists())  # fmt: skip
    mark, _ = PassMark.objects.update_or_create(
        workspace_id=pk, name=name,
        defaults={"revision": began_at_revision if foreign else ended,
                  "due_at": None if due_ms is None else from_ms(due_ms), "ran_at": now or timezone.now()},
    )  # fmt: skip
    return mark


def due_workspaces(name: str, now: datetime | None = None) -> list[tuple[int, str]]:
    """(id, name) of every workspace pass `name` must visit now, in id order: one query, whatever the
    number of workspaces (a left join on the marks; the events are looked at only for a workspace
    whose revision moved past its mark, through the log's (workspace, revision) index)."""
    now = now or timezone.now()
    changed = (MemoryEvent.objects.filter(workspace_id=OuterRef("pk"), revision__gt=OuterRef("seen"))
               .exclude(kind__in=BOOKKEEPING))  # fmt: skip
    return list(
        Workspace.objects.annotate(mark=FilteredRelation("pass_marks", condition=Q(pass_marks__name=name)),
                                   seen=F("mark__revision"))
        .filter(Q(mark__id__isnull=True) | Q(mark__due_at__lte=now) | (Q(seen__lt=F("revision")) & Exists(changed)))
        .order_by("pk").values_list("pk", "name")
    )  # fmt: skip
