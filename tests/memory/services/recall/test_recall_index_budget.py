"""The recall indexes a process holds stay within their memory budget, counted as they grow, and an
index's analysed texts go with it."""

from __future__ import annotations

import pickle

import pytest

from memory.engine.facts import records as R
from memory.services.recall.index import ROW_BYTES, registry
from memory.services.workspaces import create_workspace
from memory.services.writes.write_path import NewFact, write_fact

pytestmark = pytest.mark.django_db

OWNER = R.Origin.owner()


def _fill(workspace, count: int, topic: str) -> None:
    for i in range(count):
        write_fact(workspace=workspace, new=NewFact(content=f"Note {i} about the {topic} rota for week {i}.",
                                                    segment="knowledge"), actor="test")  # fmt: skip


def _sum_of_sizes() -> int:
    return sum(index.size_bytes for index in registry._indexes.values())


def test_the_running_total_is_the_sum_of_what_each_index_holds(settings):
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    registry.clear()
    spaces = [create_workspace(f"budget-{n}") for n in range(3)]
    for n, space in enumerate(spaces):
        _fill(space, 5 + 5 * n, f"topic{n}")
        registry.get(space, OWNER)
    assert registry.held_bytes() == _sum_of_sizes() > 0
    # A write grows one index: the total follows at its next use, without measuring the others.
    _fill(spaces[0], 3, "late")
    registry.get(spaces[0], OWNER)
    assert registry.held_bytes() == _sum_of_sizes()


def test_the_estimate_counts_each_facts_objects_and_text_not_only_the_arrays(workspace, settings):
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    _fill(workspace, 20, "garden")
    index = registry.get(workspace, OWNER)
    texts = sum(len(row.content) for row in index.rows.values())
    assert index.size_bytes >= ROW_BYTES * len(index.rows) + texts


def test_least_recently_used_indexes_go_when_the_budget_is_passed(settings):
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    registry.clear()
    spaces = [create_workspace(f"lru-{n}") for n in range(4)]
    for n, space in enumerate(spaces):
        _fill(space, 10, f"subject{n}")
    registry.get(spaces[0], OWNER)
    one = registry.held_bytes()
    settings.TIDELINE_RECALL_INDEX_BUDGET_MB = (2.5 * one) / (1024 * 1024)  # room for two, not three
    for space in spaces[1:]:
        registry.get(space, OWNER)
    held = [key[0] for key in registry._indexes]
    assert held == [spaces[2].pk, spaces[3].pk]  # the two most recently used
    assert registry.held_bytes() == _sum_of_sizes() <= 2.5 * one


def test_an_index_keeps_its_analysed_texts_and_they_go_with_it(workspace, settings):
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    _fill(workspace, 4, "boiler")
    index = registry.get(workspace, OWNER)
    assert index.lexical_tokens == {}  # the spec lanes' index is built on first use only
    index.cols.bm25.vocabulary  # noqa: B018 - build it
    assert set(index.lexical_tokens) == {row.content for row in index.rows.values()}
    # A snapshot keeps the analyzer, never the texts it remembered.
    analyzer = index.cols.bm25._target.analyzer
    restored = pickle.loads(pickle.dumps(analyzer))
    assert restored.cache == {} and restored("the boiler rota") == analyzer("the boiler rota")
    # Let go (evicted, shredded): no process-wide cache keeps the plaintext.
    index.drop_content()
    assert index.lexical_tokens == {}


def test_a_small_index_let_go_is_freed_even_after_a_large_build_froze_the_heap(workspace, settings):
    """A large build freezes every object alive (`_building`), small indexes held then included; once
    let go, such an index must be freed by reference counting alone: no cycle may hold its plaintext."""
    import gc

    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    registry.clear()
    secret = "The vault code for the east wing is 4471-kestrel."
    write_fact(workspace=workspace, new=NewFact(content=secret, segment="knowledge"), actor="test")
    _fill(workspace, 3, "vault")
    index = registry.get(workspace, OWNER)
    index.cols.bm25.vocabulary  # noqa: B018 - the spec lanes' index too, with its analysed texts
    del index
    gc.collect()
    gc.freeze()  # as a large build elsewhere in the process would
    try:
        registry.clear()
    finally:
        gc.unfreeze()  # back where the collector (and this test) can see them, nothing collected yet
    def holds(obj) -> bool:
        # By type(), never isinstance(): a lazy object an earlier test left in memory (a request's
        # CSP nonce) evaluates itself when asked its class, and raises once its response is gone.
        kind = type(obj)
        values = obj.values() if issubclass(kind, dict) else obj if issubclass(kind, list | tuple) else ()
        return any(issubclass(type(value), str) and value == secret for value in values)

    assert [obj for obj in gc.get_objects() if holds(obj)] == []
