"""Decay GC as a plan (ENGINE-SPEC §4.1)."""

from memory.engine.maintenance.decay_gc import plan_decay_gc
from memory.engine.maintenance.plans import apply_plan, undo_plan
from tests.memory.engine.maintenance.maint_factory import DAY, NOW, fact


def stale(days, **fields):
    return {"last_accessed_at": NOW - days * DAY, "created_at": NOW - days * DAY, **fields}


def test_a_context_fact_unused_for_a_year_is_pruned_and_a_fresh_one_kept():
    """H70: pruned 1, archived 0, kept 1."""
    facts = [
        fact("old", "the build ran at 3pm", "context", **stale(365)),
        fact("new", "standup at 10", "context"),
    ]
    plan = plan_decay_gc(facts, NOW)
    assert plan.summary() == {"archived": 0, "pruned": 1, "kept": 1}
    assert [a.memory_id for a in plan.pruned] == ["old"]
    assert plan.pruned[0].change.before == {"lifecycle": "active"}
    assert plan.pruned[0].change.after == {"lifecycle": "pruned"}


def test_a_long_tier_fact_below_the_prune_bar_is_archived_never_pruned():
    """H70: long-tier facts can at most be archived."""
    plan = plan_decay_gc([fact("k", "Lisbon is 300 km from Porto", "knowledge", **stale(400))], NOW)
    assert [a.memory_id for a in plan.archived] == ["k"]
    assert plan.pruned == ()
    assert plan.archived[0].score < 0.05


def test_a_short_tier_fact_between_the_bars_is_archived():
    """H70: 0.05 ≤ score < 0.15 archives a context fact (context reaches 0.15 after ~26 days)."""
    plan = plan_decay_gc([fact("c", "I am in Porto until Friday", "context", **stale(35))], NOW)
    assert [a.memory_id for a in plan.archived] == ["c"]
    assert 0.05 <= plan.archived[0].score < 0.15


def test_confirmed_and_permanent_facts_are_never_touched():
    """H71: a stale confirmed belief and a 1000-day-old identity fact are kept."""
    facts = [
        fact("belief", "I prefer tea", "context", status="confirmed", **stale(3000)),
        fact("me", "My name is Ada", "identity", **stale(1000)),
    ]
    plan = plan_decay_gc(facts, NOW)
    assert plan.summary() == {"archived": 0, "pruned": 0, "kept": 2}


def test_only_active_facts_are_considered_and_a_second_pass_finds_nothing():
    """H70: the pass is idempotent once applied."""
    facts = [
        fact("a", "old note", "context", **stale(365)),
        fact("b", "gone", "context", lifecycle="pruned", **stale(900)),
    ]
    plan = plan_decay_gc(facts, NOW)
    assert [a.memory_id for a in plan.pruned] == ["a"]
    after, links = apply_plan(facts, [], plan)
    assert plan_decay_gc(after, NOW).summary() == {"archived": 0, "pruned": 0, "kept": 0}
    restored, _ = undo_plan(after, links, plan)
    assert restored == facts


def test_the_plan_is_the_same_whatever_the_input_order():
    facts = [fact(f"f{k}", f"note {k}", "context", **stale(k * 9)) for k in range(12)]
    assert plan_decay_gc(facts, NOW) == plan_decay_gc(list(reversed(facts)), NOW)


def test_thresholds_are_arguments():
    facts = [fact("c", "fresh note", "context")]  # scores 0.4 today
    assert plan_decay_gc(facts, NOW, archive_below=0.5).summary()["archived"] == 1
    assert plan_decay_gc(facts, NOW, prune_below=0.5, archive_below=0.6).summary()["pruned"] == 1
