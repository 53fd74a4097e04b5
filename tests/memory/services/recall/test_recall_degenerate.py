"""No stored fact can break recall for its origin: degenerate contents are recalled or
ignored like any other text, and a fact written before them is still found, every time."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

DEGENERATE = [
    "y" * 1000,  # the reproduction: the old stemmer recursed once per y
    "ay" * 500,
    "by" * 500,
    "z" * 1000,
    "9" * 1000,
    "喜" * 1000,
    "e\u0301" * 500,  # a letter and a combining accent, repeated
    "\u200b".join("y" * 10 for _ in range(90)),  # zero-width spaces between runs
]


@pytest.mark.parametrize("content", DEGENERATE, ids=lambda c: f"{c[:4]!r}x{len(c)}")
def test_a_normal_fact_is_still_found_after_a_degenerate_one_is_stored(tl, content):
    normal = tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add(content, segment="knowledge")
    for _ in range(2):  # the second recall used to answer from a half-built index: 0 hits
        assert normal.id in [h.id for h in tl.recall("vegetarian diet")]


def test_the_degenerate_fact_itself_can_be_recalled(tl):
    fact = tl.add("y" * 1000, segment="knowledge")
    assert [h.id for h in tl.recall("y" * 1000)] == [fact.id]


# ---------------------------------------------------------------- a failed build raises, then retries


class _Fault(Exception):
    pass


def _failing(monkeypatch, target, name):
    original = getattr(target, name)

    def fail(*args, **kwargs):
        raise _Fault("index build fault")

    monkeypatch.setattr(target, name, fail)
    return lambda: monkeypatch.setattr(target, name, original)


def test_a_failed_first_build_raises_every_time_and_the_next_recall_builds_again(tl, monkeypatch):
    from memory.engine.recall.candidates import FactColumns
    from memory.services.recall.index import RecallIndexUnavailable

    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    restore = _failing(monkeypatch, FactColumns, "from_rows")
    for _ in range(2):  # never an empty answer from the half-built index the first failure left
        with pytest.raises(RecallIndexUnavailable) as raised:
            tl.recall("vegetarian diet")
        assert raised.value.kind == "index_unavailable" and isinstance(raised.value.__cause__, _Fault)
    restore()
    assert [h.id for h in tl.recall("vegetarian diet")] == [fact.id]


def test_a_failed_sync_after_a_write_raises_and_the_next_recall_sees_every_fact(tl, monkeypatch):
    from memory.engine.recall.candidates import FactColumns
    from memory.services.recall.index import RecallIndexUnavailable

    first = tl.add("I keep a strict vegetarian diet.", segment="preference")
    assert [h.id for h in tl.recall("vegetarian diet")] == [first.id]
    second = tl.add("My vegetarian diet allows eggs.", segment="preference")
    restore = _failing(monkeypatch, FactColumns, "append")
    with pytest.raises(RecallIndexUnavailable):
        tl.recall("vegetarian diet")
    restore()
    assert {h.id for h in tl.recall("vegetarian diet")} == {first.id, second.id}


def test_an_index_emptied_by_a_concurrent_failure_is_never_read_as_no_facts(tl, workspace):
    from memory.engine.facts import records as R
    from memory.services.recall import verbs as recall_service
    from memory.services.recall.index import RecallIndexUnavailable, registry

    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    held = registry.get(workspace, R.Origin.owner())  # another request fetched it, then a sync failed
    held.forget()
    with pytest.raises(RecallIndexUnavailable):
        recall_service._view(held, 0, recall_service.RecallFilters())
    registry.clear()
    assert [h.id for h in tl.recall("vegetarian diet")] == [fact.id]
