"""The event log is append-only, and every mutation is stamped with a gap-free revision."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from memory.models import AppendOnlyError, MemoryEvent, Workspace
from memory.services.mutation import mutate

pytestmark = pytest.mark.django_db


def _event(workspace) -> MemoryEvent:
    with mutate(workspace, actor="test") as m:
        m.record("created", fact_ids=["mem_1"], reason="test")
    return MemoryEvent.objects.filter(workspace=workspace).order_by("-revision").first()


def test_the_model_layer_refuses_to_update_an_event(workspace):
    event = _event(workspace)
    event.reason = "rewritten history"
    with pytest.raises(AppendOnlyError):
        event.save()


def test_the_model_layer_refuses_to_delete_an_event(workspace):
    event = _event(workspace)
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        MemoryEvent.objects.filter(pk=event.pk).delete()
    with pytest.raises(AppendOnlyError):
        MemoryEvent.objects.filter(pk=event.pk).update(reason="x")
    assert MemoryEvent.objects.filter(pk=event.pk, reason="test").exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's; SQLite relies on the model layer")
def test_postgresql_refuses_raw_update_and_delete_of_events(workspace):
    event = _event(workspace)
    for sql in ("UPDATE memory_memoryevent SET reason = 'x' WHERE id = %s", "DELETE FROM memory_memoryevent WHERE id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [event.pk])
    assert MemoryEvent.objects.filter(pk=event.pk, reason="test").exists()


def test_each_mutation_bumps_the_revision_once_and_stamps_its_events(workspace):
    start = Workspace.objects.get(pk=workspace.pk).revision
    for _ in range(3):
        with mutate(workspace, actor="test") as m:
            m.record("created", fact_ids=["a"])
            m.record("linked", fact_ids=["a", "b"])
    revisions = list(MemoryEvent.objects.filter(workspace=workspace, revision__gt=start).values_list("revision", flat=True))
    assert revisions == [start + 1, start + 1, start + 2, start + 2, start + 3, start + 3]
    assert Workspace.objects.get(pk=workspace.pk).revision == start + 3


def test_a_failed_mutation_leaves_no_event_and_no_revision(workspace):
    start = Workspace.objects.get(pk=workspace.pk).revision
    with pytest.raises(RuntimeError), mutate(workspace, actor="test") as m:
        m.record("created", fact_ids=["a"])
        raise RuntimeError("crash half-way")
    assert Workspace.objects.get(pk=workspace.pk).revision == start
    assert not MemoryEvent.objects.filter(workspace=workspace, revision__gt=start).exists()


def test_creating_a_workspace_records_its_first_event(workspace):
    first = MemoryEvent.objects.get(workspace=workspace)
    assert (first.kind, first.revision) == ("workspace_created", 1)
