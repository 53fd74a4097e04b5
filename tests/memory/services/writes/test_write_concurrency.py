"""Concurrent writers on PostgreSQL: the workspace lock makes dedup, slots and revisions race-free."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from memory.models import Fact, Link, MemoryEvent, Workspace
from memory.tideline import Tideline

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need a server database"),
]
THREADS = 8


def _run_in_threads(work) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def runner(index: int) -> None:
        try:
            start.wait()
            work(index)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_eight_threads_writing_the_same_fact_leave_one_fact_with_every_reinforcement_counted(workspace):
    writes_per_thread = 200

    def work(index: int) -> None:
        tl = Tideline(Workspace.objects.get(pk=workspace.pk), actor=f"thread-{index}")
        for _ in range(writes_per_thread):
            tl.add("I keep a strict vegetarian diet.", segment="preference")

    assert _run_in_threads(work) == []
    facts = Fact.objects.filter(workspace=workspace)
    assert facts.count() == 1
    assert facts.get().access_count == THREADS * writes_per_thread - 1  # every write but the first reinforced


def test_eight_threads_writing_one_slot_leave_one_active_value_and_the_rest_archived_with_links(workspace):
    def work(index: int) -> None:
        tl = Tideline(Workspace.objects.get(pk=workspace.pk), actor=f"thread-{index}")
        tl.add(f"My standup is at {9 + index}:00 on weekdays.", segment="preference", subject_key="standup_time")

    assert _run_in_threads(work) == []
    slot = Fact.objects.filter(workspace=workspace, subject_key="standup_time")
    assert slot.count() == THREADS
    assert slot.filter(lifecycle="active").count() == 1
    archived = slot.filter(lifecycle="archived")
    assert archived.count() == THREADS - 1 and all(f.valid_to is not None for f in archived)
    for fact in archived:  # each archived value is linked from the value that replaced it
        kinds = set(Link.objects.filter(to_fact=fact).values_list("kind", flat=True))
        assert kinds == {"contradicts", "transition"}


def test_revisions_are_gap_free_under_concurrent_writers(workspace):
    def work(index: int) -> None:
        tl = Tideline(Workspace.objects.get(pk=workspace.pk), actor=f"thread-{index}")
        for n in range(20):
            tl.add(f"Thread {index} observed event number {n} in the routing service.", segment="project")

    assert _run_in_threads(work) == []
    revisions = sorted(set(MemoryEvent.objects.filter(workspace=workspace).values_list("revision", flat=True)))
    assert revisions == list(range(1, Workspace.objects.get(pk=workspace.pk).revision + 1))
    assert len(revisions) == 1 + THREADS * 20
