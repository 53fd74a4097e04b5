"""The recall benchmark reports the recall that follows a write (bench/memory/recall.py)."""

from __future__ import annotations

import pytest

from bench.memory.recall import run_recall_bench, time_recall_after_write
from bench.memory.writes import seed_workspace
from memory.models import Fact
from memory.services.recall.index import registry

pytestmark = pytest.mark.django_db


def test_recall_after_write_is_timed_once_per_write_and_keeps_the_written_facts():
    workspace, _ = seed_workspace(60, seed=7)
    bench = run_recall_bench(workspace, count=4, seed=7)
    assert bench.recall_after_write is not None and bench.recall_after_write.count == 4
    assert 0 < bench.recall_after_write.min_ms <= bench.recall_after_write.p50_ms
    assert Fact.objects.filter(workspace=workspace).count() > 60  # new facts, not only reinforcements
    summary = time_recall_after_write(workspace, 3, seed=8)
    assert summary.count == 3
    registry.clear()


def test_no_writes_when_asked_for_none():
    workspace, _ = seed_workspace(20, seed=7)
    assert run_recall_bench(workspace, count=2, seed=7, after_writes=0).recall_after_write is None
    assert Fact.objects.filter(workspace=workspace).count() == 20
    registry.clear()
