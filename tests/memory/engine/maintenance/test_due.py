"""When the next pass has time-driven work: the crossing times agree with the plans they predict."""

from __future__ import annotations

import math

import numpy as np

from memory.engine.maintenance.decay import effective_score
from memory.engine.maintenance.decay_gc import plan_decay_gc
from memory.engine.maintenance.dream import plan_dream
from memory.engine.maintenance.due import HORIZON_MS, crossing_times, eviction_due, gc_due
from tests.memory.engine.maintenance.maint_factory import DAY, NOW, fact


def _score(f, at):
    return effective_score(f.importance, f.decay_rate, f.access_count, f.last_accessed_at, at, f.tier == "permanent")


def test_a_crossing_is_the_first_millisecond_below_the_threshold():
    facts = [fact("a", "We met at the cafe.", segment="context"),
             fact("b", "The deploy is on Friday.", importance=0.9, access_count=7),
             fact("c", "Old note.", segment="context", last_accessed_at=NOW - 40 * DAY)]  # fmt: skip
    times = crossing_times(facts, NOW + DAY, 0.15)
    for f, t in zip(facts, times, strict=True):
        assert math.isfinite(t) and t >= NOW + DAY
        assert _score(f, t) < 0.15
        assert t == NOW + DAY or _score(f, t - 1) >= 0.15


def test_a_permanent_fact_never_crosses_and_a_slow_one_waits_for_the_horizon():
    facts = [fact("p", "My name is Maya.", tier="permanent"), fact("s", "A fact.", importance=1.0, decay_rate=0.0,
                                                                     access_count=1000)]  # fmt: skip
    times = crossing_times(facts, NOW, 0.05, horizon_ms=10 * DAY)
    assert np.isinf(times).all()


def test_a_fact_already_below_is_due_now():
    stale = fact("x", "Old.", segment="context", last_accessed_at=NOW - 365 * DAY)
    assert crossing_times([stale], NOW, 0.15).tolist() == [NOW]


def test_gc_is_due_exactly_when_its_plan_first_archives_something():
    facts = [fact("a", "Lunch at noon.", segment="context"), fact("b", "I like tea.", segment="preference"),
             fact("p", "My name is Maya.", tier="permanent"), fact("c", "Confirmed.", status="confirmed",
                                                                    segment="context")]  # fmt: skip
    due = gc_due(facts, NOW, archive_below=0.15, prune_below=0.05)
    assert due is not None and due > NOW
    assert plan_decay_gc(facts, due - 1).fact_changes() == []
    first = plan_decay_gc(facts, due)
    assert [c.memory_id for c in first.fact_changes()] == ["a"]


def test_nothing_to_collect_within_the_horizon_is_none():
    assert gc_due([fact("p", "My name is Maya.", tier="permanent")], NOW, archive_below=0.15, prune_below=0.05) is None
    assert gc_due([], NOW, archive_below=0.15, prune_below=0.05) is None
    assert HORIZON_MS >= 300 * DAY


def test_eviction_waits_for_the_minimum_age_as_the_dream_does():
    young = fact("y", "A passing remark about the weather.", segment="context", importance=0.04)
    due = eviction_due([young], NOW, below=0.05, min_age_ms=30 * DAY)
    assert due == NOW + 30 * DAY  # already below the score, but too young until then
    assert plan_dream([young], [], due - 1).evictions == ()
    assert [e.memory_id for e in plan_dream([young], [], due).evictions] == ["y"]
    assert eviction_due([young], NOW, below=0.05, min_age_ms=math.inf) is None
