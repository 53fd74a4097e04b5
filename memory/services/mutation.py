"""The one way to change a workspace (ARCHITECTURE.md §3).

`mutate()` opens a transaction, locks the workspace row, bumps its revision, lets the caller do its
work, then appends the caller's events stamped with that revision. Because every writer of a
workspace queues on the same row lock, dedup, slot supersession and counters are race-free, and
revisions form a gap-free, commit-ordered history that recall indexes can follow (auto-increment
ids are not commit-ordered on PostgreSQL, so nothing syncs from them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from memory.models import MemoryEvent, Workspace
from memory.services.writes import bulk_copy
from tideline_kit import request_ids

# A mutation logging at least this many events streams them in with COPY (a dream batch logs 2,000
# changes, each with its before/after); a write's one or two go in with a plain INSERT.
COPY_EVENTS_FROM = 200


@dataclass
class Mutation:
    """What a caller gets inside `mutate()`: the locked workspace, its new revision and an event buffer."""

    workspace: Workspace
    revision: int
    actor: str
    now: datetime
    events: list[MemoryEvent] = field(default_factory=list)

    def record(
        self, kind: str, *, fact_ids: Sequence[str] = (), reason: str = "", **data: Any
    ) -> MemoryEvent:
        """Queue an event; it is written with the revision when the mutation commits, stamped with the
        id of the request or task that wrote it (`tideline_kit.request_ids`) when there is one."""
        request_id = request_ids.current.get()
        if request_id is not None and "request_id" not in data:
            data["request_id"] = request_id
        event = MemoryEvent(
            workspace=self.workspace,
            revision=self.revision,
            at=self.now,
            kind=kind,
            actor=self.actor,
            reason=reason[:1000],
            fact_ids=list(fact_ids),
            data=data,
        )
        self.events.append(event)
        return event


@contextmanager
def mutate(workspace: Workspace | int, *, actor: str, now: datetime | None = None) -> Iterator[Mutation]:
    """Run the body as one mutation of `workspace`: lock, bump revision, work, append events, commit."""
    workspace_id = workspace.pk if isinstance(workspace, Workspace) else workspace
    with transaction.atomic():
        locked = _lock_and_bump(workspace_id)
        mutation = Mutation(workspace=locked, revision=locked.revision, actor=actor, now=now or timezone.now())
        yield mutation
        if len(mutation.events) >= COPY_EVENTS_FROM:
            bulk_copy.create_all(MemoryEvent, mutation.events)
        elif mutation.events:
            MemoryEvent.objects.bulk_create(mutation.events)
    if isinstance(workspace, Workspace):
        workspace.revision = locked.revision


def _lock_and_bump(workspace_id: int) -> Workspace:
    """Lock the workspace row and take the next revision in one statement (UPDATE … RETURNING, on
    PostgreSQL and SQLite alike). A write holds this lock until it commits, so every statement saved
    inside it is time other writers of the workspace stop waiting."""
    table = connection.ops.quote_name(Workspace._meta.db_table)
    rows = list(Workspace.objects.raw(f"UPDATE {table} SET revision = revision + 1 WHERE id = %s RETURNING *",
                                      [workspace_id]))  # fmt: skip
    if not rows:
        raise Workspace.DoesNotExist(f"no workspace with id {workspace_id}")
    return rows[0]
