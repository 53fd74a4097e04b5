"""The duplicate lookup a write runs under its workspace lock (`find_duplicates`) agrees exactly with
a brute-force scan: every active fact of the same origin and trust class at token Jaccard ≥ 0.85, and
every active fact with the same keyed content hash, whatever the mix of writes, archives and origins."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory import sealing
from memory.engine.facts import records as R
from memory.engine.recall.tokenize import jaccard, token_set
from memory.models import Fact
from memory.services.workspaces import create_workspace
from memory.services.writes.near_duplicates import find_duplicates, index_facts, unindex_facts

pytestmark = pytest.mark.django_db
_names = itertools.count()

WORDS = ["tea", "coffee", "porto", "lisbon", "runs", "daily", "prefers", "strict", "vegetarian", "diet", "deploys",
         "fridays", "dark", "mode", "editor", "lives", "works", "lumen", "freight", "the", "and"]  # fmt: skip
ORIGINS = [R.Origin.owner(), R.Origin("channel", "wa", "c1", "s1")]
NOW = datetime(2026, 1, 1, tzinfo=UTC)
SOURCES = [None, "owner_message", "tool_output", "retrieved_document"]

facts = st.lists(
    st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9), st.sampled_from(range(len(ORIGINS))),
              st.sampled_from(SOURCES), st.booleans()),  # fmt: skip
    min_size=1,
    max_size=25,
)


def _store(workspace, words, origin, source, active) -> Fact:
    fact = Fact(workspace=workspace, memory_id=R.make_memory_id(), origin=origin, content=" ".join(words) + ".",
                segment="knowledge", tier="long", importance=0.5, decay_rate=0.01, source_type=source,
                lifecycle="active", created_at=NOW, last_accessed_at=NOW)  # fmt: skip
    fact.save()
    index_facts([fact])
    if not active:  # archived later, as a supersession would: its postings go
        fact.lifecycle = "archived"
        fact.save(update_fields=["lifecycle"])
        unindex_facts([fact.pk])
    return fact


def _near(words: list[str]):
    """Another fact's words with one added or dropped: the Jaccard boundary cases (a subset or a
    superset one token apart sits right at the size window's edges)."""
    return st.one_of(st.just(words), st.just(words[:-1] or words),
                     st.sampled_from(WORDS).map(lambda extra: [*words, extra]))  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=facts, data=st.data(), origin_index=st.sampled_from(range(len(ORIGINS))), trusted=st.booleans())
def test_the_lookup_finds_exactly_what_a_scan_finds(stored, data, origin_index, trusted):
    probe = data.draw(st.one_of(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9),
                                st.sampled_from([words for words, *_ in stored]).flatmap(_near)))  # fmt: skip
    workspace = create_workspace(f"dup-{next(_names)}")
    rows = [_store(workspace, words, ORIGINS[o], source, active) for words, o, source, active in stored]
    origin, content = ORIGINS[origin_index], " ".join(probe) + "."
    digest = sealing.content_hash(workspace.pk, origin.key, R.normalize_for_hash(content))

    found = find_duplicates(workspace_id=workspace.pk, origin_key=origin.key, trusted=trusted, content=content,
                            content_hash=digest)  # fmt: skip

    same_class = [f for f in rows if f.lifecycle == "active" and f.origin_key == origin.key
                  and R.is_untrusted_source(f.source_type) != trusted]  # fmt: skip
    assert sorted(found.exact) == sorted(f.pk for f in same_class if f.content_hash == digest)
    if found.exact:
        assert found.near == []  # an exact repeat answers first; no second statement is needed
        return
    expected = {f.pk: jaccard(token_set(content), token_set(f.content)) for f in same_class}
    expected = {pk: s for pk, s in expected.items() if s >= R.DEDUP_SIMILARITY}
    assert {d.fact_id: round(d.similarity, 9) for d in found.near} == {pk: round(s, 9) for pk, s in expected.items()}
    assert [d.similarity for d in found.near] == sorted((d.similarity for d in found.near), reverse=True)


def test_all_stopword_content_only_ever_matches_exactly(workspace):
    """Jaccard of two empty token sets is 0 (ENGINE-SPEC §2 step 6), so only the hash can match."""
    origin = R.Origin.owner()
    stored = _store(workspace, ["the", "and"], origin, None, True)
    digest = sealing.content_hash(workspace.pk, origin.key, R.normalize_for_hash("the and."))
    found = find_duplicates(workspace_id=workspace.pk, origin_key=origin.key, trusted=True, content="the and.",
                            content_hash=digest)  # fmt: skip
    assert found.exact == [stored.pk] and found.near == []
    assert find_duplicates(workspace_id=workspace.pk, origin_key=origin.key, trusted=True, content="and the!").near == []


@pytest.mark.parametrize("stored_words, probe_words", [
    (["tea", "coffee", "porto", "lisbon", "runs", "daily"], ["tea", "coffee", "porto", "lisbon", "runs", "daily", "diet"]),
    (["tea", "coffee", "porto", "lisbon", "runs", "daily", "diet", "mode"], ["tea", "coffee", "porto", "lisbon", "runs",
                                                                             "daily", "diet"]),
])  # fmt: skip
def test_candidates_at_both_edges_of_the_size_window_are_found(workspace, stored_words, probe_words):
    """6 of 7 tokens (Jaccard 0.857) is the smallest candidate a 7-token content can match, 8 tokens
    holding all 7 (0.875) the largest: both sit on the window's bounds and must be found."""
    origin = R.Origin.owner()
    stored = _store(workspace, stored_words, origin, None, True)
    found = find_duplicates(workspace_id=workspace.pk, origin_key=origin.key, trusted=True,
                            content=" ".join(probe_words) + ".")  # fmt: skip
    assert [d.fact_id for d in found.near] == [stored.pk]
