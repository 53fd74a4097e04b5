"""Candidate filtering, origin isolation, lexical search, hybrid fusion and explain (ENGINE-SPEC §3.2–§3.10)."""

import math

import numpy as np
import pytest

from memory.engine.facts.records import Origin
from memory.engine.recall.core import (
    EVERY_ORIGIN,
    FactColumns,
    FactRow,
    candidate_mask,
    explain,
    recall_hybrid,
    search,
)

NOW = 1_750_000_000_000
OWNER = Origin.owner()
PEER = Origin("channel", "wa", "c1", "s1")
PEER_OTHER_SESSION = Origin("channel", "wa", "c1", "s2")
PEER_B = Origin("channel", "tg", "c9", "s1")


def fact(memory_id, content, **fields):
    fields.setdefault("created_at", NOW)
    return FactRow(memory_id, content, **fields)


def columns(*rows, embedder=None):
    return FactColumns.from_rows(list(rows), embedder=embedder)


def ids(hits):
    return [hit.memory_id for hit in hits]


class StubEmbedder:
    """Maps known texts to fixed vectors; anything else gets a vector orthogonal to all of them."""

    dims = 2

    def __init__(self, vectors):
        self.vectors = vectors

    def embed(self, texts):
        return np.array([self.vectors.get(text, [0.0, 0.0]) for text in texts], dtype=np.float64)


def unit(cos):
    return [cos, math.sqrt(1 - cos * cos)]


# ---------------------------------------------------------------- candidate filtering


def test_only_active_facts_are_candidates():
    cols = columns(fact("a", "x"), fact("b", "x", lifecycle="archived"), fact("c", "x", lifecycle="pruned"))
    assert candidate_mask(cols, NOW, OWNER).tolist() == [True, False, False]


def test_a_fact_whose_validity_ends_at_or_before_now_is_excluded_and_a_future_end_is_kept():
    """BEHAVIOURS 52 and ENGINE-SPEC §13.18: excluded once validTo <= now."""
    cols = columns(
        fact("ended", "x", valid_to=NOW - 1),
        fact("ends-now", "x", valid_to=NOW),
        fact("ends-later", "x", valid_to=NOW + 1),
        fact("open", "x"),
    )
    assert candidate_mask(cols, NOW, OWNER).tolist() == [False, False, True, True]


def test_the_injected_clock_decides_validity():
    """Decision 7: the same fact is visible before its validTo and gone after, by the `now` passed in."""
    cols = columns(fact("a", "deploy fridays", valid_to=NOW))
    assert ids(search(cols, "deploy", NOW - 1, OWNER)) == ["a"]
    assert search(cols, "deploy", NOW, OWNER) == []


# ---------------------------------------------------------------- origin isolation


def three_principals():
    return columns(
        fact("owner", "I deploy on Fridays", origin=OWNER),
        fact("peer-a", "I deploy on Fridays", origin=PEER),
        fact("peer-b", "I deploy on Fridays", origin=PEER_B),
    )


def test_every_principal_sees_exactly_its_own_fact_and_maintenance_sees_all():
    """BEHAVIOURS 53."""
    cols = three_principals()
    assert ids(search(cols, "deploy fridays", NOW, EVERY_ORIGIN)) == ["owner", "peer-a", "peer-b"]
    for scope, expected in ((OWNER, "owner"), (PEER, "peer-a"), (PEER_B, "peer-b")):
        assert ids(search(cols, "deploy fridays", NOW, scope)) == [expected]
        assert ids(recall_hybrid(cols, "deploy fridays", NOW, scope)) == [expected]
        assert ids(explain(cols, "deploy fridays", NOW, scope)) == [expected]


def test_a_peer_never_recalls_an_owner_fact_and_the_owner_never_recalls_a_peer_fact():
    """BEHAVIOURS 54."""
    cols = columns(fact("o", "my salary is secret", origin=OWNER), fact("p", "peer likes jazz", origin=PEER))
    assert search(cols, "salary secret", NOW, PEER) == []
    assert search(cols, "jazz", NOW, OWNER) == []


def test_the_same_peer_in_another_session_sees_nothing():
    """BEHAVIOURS 55."""
    cols = three_principals()
    assert search(cols, "deploy", NOW, PEER_OTHER_SESSION) == []


def test_a_different_account_on_the_same_session_is_another_principal():
    cols = columns(fact("p", "deploy fridays", origin=PEER))
    assert search(cols, "deploy", NOW, Origin("channel", "wa", "c1", "s1", "acct-2")) == []


def test_a_legacy_fact_without_origin_is_the_owners_and_invisible_to_a_peer():
    """BEHAVIOURS 56."""
    cols = columns(fact("legacy", "I deploy on Fridays", origin=None))
    assert ids(search(cols, "deploy", NOW, OWNER)) == ["legacy"]
    assert search(cols, "deploy", NOW, PEER) == []


def test_an_unresolved_or_malformed_scope_sees_nothing():
    """BEHAVIOURS 57 / ENGINE-SPEC §3.8: an unknown peer resolves to None, which means no results."""
    cols = three_principals()
    for scope in (None, "nobody", Origin("channel", "wa", "", "s1"), Origin("robot")):
        assert not candidate_mask(cols, NOW, scope).any()
        assert recall_hybrid(cols, "deploy", NOW, scope) == []


def test_a_scope_may_be_given_in_its_text_form():
    cols = three_principals()
    assert ids(search(cols, "deploy", NOW, "owner")) == ["owner"]
    assert ids(search(cols, "deploy", NOW, "channel:wa/c1/s1")) == ["peer-a"]


def test_idf_is_computed_per_principal():
    """Isolation happens before scoring, so a peer's facts cannot change the owner's scores."""
    alone = columns(fact("o", "deploy fridays", origin=OWNER), fact("o2", "coffee daily", origin=OWNER))
    crowded = columns(
        fact("o", "deploy fridays", origin=OWNER),
        fact("o2", "coffee daily", origin=OWNER),
        *[fact(f"p{i}", "deploy again", origin=PEER) for i in range(5)],
    )
    assert search(alone, "deploy", NOW, OWNER)[0].score == search(crowded, "deploy", NOW, OWNER)[0].score


# ---------------------------------------------------------------- lexical search


def test_with_identical_text_higher_importance_ranks_first_unless_modulation_is_off():
    """BEHAVIOURS 33."""
    cols = columns(
        fact("low", "tabs over spaces", importance=0.3), fact("high", "tabs over spaces", importance=0.9)
    )
    assert ids(search(cols, "tabs", NOW, OWNER)) == ["high", "low"]
    plain = search(cols, "tabs", NOW, OWNER, modulate=False)
    assert plain[0].score == plain[1].score
    assert all(hit.components["modulator"] == 1.0 for hit in plain)


def test_relevance_beats_importance():
    """BEHAVIOURS 34."""
    cols = columns(fact("rep", "alpha alpha", importance=0.3), fact("mix", "alpha beta", importance=0.5))
    assert ids(search(cols, "alpha", NOW, OWNER)) == ["rep", "mix"]


def test_more_than_twice_the_bm25_wins_whatever_the_importance():
    """BEHAVIOURS 35: the modulator ratio stays below 2."""
    cols = columns(
        fact("strong", "alpha beta", importance=0.0001),
        fact("weak", "alpha gamma", importance=0.99),
        fact("f1", "delta"),
        fact("f2", "epsilon"),
    )
    hits = search(cols, "alpha beta", NOW, OWNER)
    assert ids(hits) == ["strong", "weak"]
    assert hits[0].components["bm25"] > 2 * hits[1].components["bm25"]
    assert hits[1].components["modulator"] / hits[0].components["modulator"] < 2


def test_empty_or_all_stopword_queries_and_empty_stores_return_nothing():
    """BEHAVIOURS 36."""
    cols = columns(fact("a", "tabs over spaces"))
    assert search(cols, "", NOW, OWNER) == []
    assert search(cols, "the of is", NOW, OWNER) == []
    assert recall_hybrid(cols, "the of is", NOW, OWNER, min_sim=2.0) == []
    assert search(columns(), "tabs", NOW, OWNER) == []
    assert recall_hybrid(columns(), "tabs", NOW, OWNER) == []


def test_the_breakdown_reconciles_and_a_fresh_0_7_fact_has_modulator_0_85():
    """BEHAVIOURS 37."""
    cols = columns(fact("pref", "I prefer tabs over spaces when coding", segment="preference"))
    (hit,) = search(cols, "tabs spaces coding", NOW, OWNER)
    parts = hit.components
    assert parts["modulator"] == 0.85 and parts["effective"] == 0.7
    assert parts["matched_terms"] == ["tabs", "spaces", "coding"]
    assert hit.score == parts["bm25"] * parts["modulator"] == parts["score"]


def test_score_ties_go_to_the_newest_fact_then_to_column_order():
    # Permanent facts do not decay, so the older one ties on score instead of losing on decay.
    cols = columns(
        fact("old", "deploy fridays", created_at=NOW - 10, tier="permanent"),
        fact("first", "deploy fridays", created_at=NOW, tier="permanent"),
        fact("second", "deploy fridays", created_at=NOW, tier="permanent"),
    )
    assert ids(search(cols, "deploy", NOW, OWNER)) == ["first", "second", "old"]
    assert ids(recall_hybrid(cols, "deploy", NOW, OWNER, min_sim=2.0)) == ["first", "second", "old"]


def test_a_non_positive_limit_means_eight_and_none_means_every_hit():
    cols = columns(*[fact(f"f{i}", f"deploy note {i}") for i in range(12)])
    assert len(search(cols, "deploy", NOW, OWNER, limit=0)) == 8
    assert len(search(cols, "deploy", NOW, OWNER, limit=-3)) == 8
    assert len(search(cols, "deploy", NOW, OWNER, limit=None)) == 12
    assert len(recall_hybrid(cols, "deploy", NOW, OWNER, limit=0)) == 8


# ---------------------------------------------------------------- hybrid


def test_the_vector_lane_recovers_a_fact_bm25_missed_and_bm25_still_finds_unembedded_facts():
    """BEHAVIOURS 42."""
    query = "where is my home"
    embedder = StubEmbedder({query: [1.0, 0.0]})
    cols = columns(
        fact("city", "I reside in Hyderabad, India", embedding=[1.0, 0.0]),
        fact("noise", "I like green tea", embedding=[0.0, 1.0]),
        fact("plain", "my home has a red door", embedding=None),
    )
    hits = recall_hybrid(cols, query, NOW, OWNER, embedder=embedder)
    assert ids(hits) == ["plain", "city"]
    assert hits[0].components["lex_rank"] == 1 and hits[0].components["vec_rank"] is None
    assert hits[1].components["vec_rank"] == 1 and hits[1].components["lane"] == "vector"


def test_a_recovered_fact_ranks_strictly_below_the_lexical_hit():
    """BEHAVIOURS 43."""
    query = "deploy day"
    embedder = StubEmbedder({query: [1.0, 0.0]})
    cols = columns(
        fact("lex", "deploy happens on friday", importance=0.1, embedding=[0.0, 1.0]),
        fact("vec", "releases ship at week end", importance=1.0, embedding=[1.0, 0.0]),
    )
    hits = recall_hybrid(cols, query, NOW, OWNER, embedder=embedder)
    assert ids(hits) == ["lex", "vec"]
    assert hits[1].score < hits[0].score
    assert hits[0].components["lex_rank"] == 1


def test_trust_beats_cosine_rank_among_recovered_facts():
    """BEHAVIOURS 44."""
    query = "zzz"
    embedder = StubEmbedder({query: [1.0, 0.0]})
    cols = columns(
        fact("doc", "retrieved text", source_type="retrieved_document", embedding=unit(0.6)),
        fact("owner", "owner message", source_type="owner_message", embedding=unit(0.5)),
    )
    hits = recall_hybrid(cols, query, NOW, OWNER, embedder=embedder)
    assert ids(hits) == ["owner", "doc"]
    assert hits[1].components["vec_rank"] == 1 and hits[0].components["vec_rank"] == 2


def test_the_similarity_floor_is_inclusive_at_0_3():
    """BEHAVIOURS 45."""
    query = "zzz"
    embedder = StubEmbedder({query: [1.0, 0.0]})
    cols = columns(fact("above", "one", embedding=unit(0.31)), fact("below", "two", embedding=unit(0.29)))
    assert ids(recall_hybrid(cols, query, NOW, OWNER, embedder=embedder)) == ["above"]


def test_an_owner_fact_outranks_an_identical_retrieved_document_in_either_order():
    """BEHAVIOURS 46."""
    for order in (0, 1):
        rows = [
            fact("owner", "the vpn password rotates monthly", source_type="owner_message"),
            fact("doc", "the vpn password rotates monthly", source_type="retrieved_document"),
        ]
        cols = columns(*(rows if order == 0 else rows[::-1]))
        assert ids(recall_hybrid(cols, "vpn password", NOW, OWNER, min_sim=2.0)) == ["owner", "doc"]


def test_mmr_at_lambda_one_keeps_score_order_and_at_0_7_pushes_a_near_duplicate_down():
    """BEHAVIOURS 47."""
    embedder = StubEmbedder({"alpha beta": [1.0, 0.0]})
    cols = columns(
        fact("dupA", "alpha beta", embedding=[1.0, 0.0]),
        fact("dupB", "alpha beta gamma", embedding=[1.0, 0.0]),
        fact("distinct", "alpha beta delta", embedding=[0.0, 1.0]),
    )
    assert ids(recall_hybrid(cols, "alpha beta", NOW, OWNER, embedder=embedder)) == [
        "dupA",
        "dupB",
        "distinct",
    ]
    diverse = recall_hybrid(cols, "alpha beta", NOW, OWNER, embedder=embedder, mmr_lambda=0.7)
    assert ids(diverse) == ["dupA", "distinct", "dupB"]


def test_an_async_or_failing_embedder_degrades_recall_to_bm25():
    """BEHAVIOURS 48: recall must never crash because the vector lane has nothing to give."""

    class AsyncLike:
        dims = 2

        def embed(self, texts):
            return object()  # what a coroutine looks like to synchronous code

    class Broken:
        dims = 2

        def embed(self, texts):
            raise RuntimeError("model not loaded")

    cols = columns(
        fact("a", "deploy on fridays", embedding=[1.0, 0.0]), fact("b", "tea", embedding=[1.0, 0.0])
    )
    for embedder in (AsyncLike(), Broken()):
        hits = recall_hybrid(cols, "deploy", NOW, OWNER, embedder=embedder)
        assert ids(hits) == ["a"] and hits[0].components["vec_rank"] is None


def test_a_fact_without_a_vector_of_the_query_length_is_not_in_the_vector_lane():
    cols = columns(fact("a", "one", embedding=[1.0, 0.0, 0.0]))
    assert recall_hybrid(cols, "zzz", NOW, OWNER, query_vector=[1.0, 0.0]) == []


def test_hybrid_components_multiply_to_the_score():
    query = "deploy friday"
    embedder = StubEmbedder({query: [1.0, 0.0]})
    cols = columns(
        fact("lex", "deploy on friday", source_type="tool_output", confidence=0.8, embedding=[0.0, 1.0]),
        fact("vec", "ship at week end", source_type="retrieved_document", embedding=unit(0.7)),
        fact("vec2", "release train", embedding=unit(0.5)),
    )
    hits = recall_hybrid(cols, query, NOW, OWNER, embedder=embedder)
    assert ids(hits) == ["lex", "vec2", "vec"]
    lex = hits[0].components
    assert lex["trust"] == lex["source_weight"] * lex["confidence_factor"] == 0.65 * 0.8
    assert hits[0].score == lex["bm25"] * lex["modulator"] * lex["trust"]
    for hit in hits[1:]:
        c = hit.components
        assert c["position_decay"] == 0.9 ** c["recovery_index"]
        assert hit.score == c["min_primary"] * 0.5 * c["position_decay"] * c["trust"] * c["modulator"]
        assert c["min_primary"] == hits[0].score


def test_without_lexical_hits_recovery_starts_from_one():
    embedder = StubEmbedder({"zzz": [1.0, 0.0]})
    cols = columns(fact("v", "one", embedding=[1.0, 0.0], tier="permanent"))
    (hit,) = recall_hybrid(cols, "zzz", NOW, OWNER, embedder=embedder)
    assert hit.components["min_primary"] == 1.0 and hit.score == 0.5


def test_an_unknown_source_type_weighs_0_9_and_confidence_scales_trust():
    cols = columns(fact("u", "deploy", source_type="carrier_pigeon"), fact("c", "deploy", confidence=0.5))
    hits = {hit.memory_id: hit.components for hit in recall_hybrid(cols, "deploy", NOW, OWNER, min_sim=2.0)}
    assert hits["u"]["trust"] == 0.9
    assert hits["c"]["trust"] == 0.5


def test_confirming_a_belief_never_lowers_its_trust():
    """Decision 6 / ENGINE-SPEC §13.2: confirmation stores confidence 0.9, which must not cost trust."""
    cols = columns(fact("c", "deploy fridays", status="confirmed", confidence=0.9))
    (hit,) = recall_hybrid(cols, "deploy", NOW, OWNER, min_sim=2.0)
    assert hit.components["trust"] == 1.0


def test_the_default_embedder_is_hrr_and_embeds_rows_that_lack_vectors():
    from memory.engine.recall.hrr import HrrEmbedder

    cols = columns(fact("a", "I live in Hyderabad, India."), embedder=HrrEmbedder())
    assert cols.embeddings.shape == (1, 256) and cols.embedded.all()
    assert ids(recall_hybrid(cols, "where do I live", NOW, OWNER)) == ["a"]


# ---------------------------------------------------------------- explain


def test_explain_ranks_exactly_like_search_and_never_changes_the_columns():
    """BEHAVIOURS 60 / ENGINE-SPEC §3.10."""
    cols = columns(
        fact("a", "tabs over spaces"), fact("b", "spaces in paths", importance=0.9), fact("c", "tabs")
    )
    before = cols.access_count.copy(), cols.last_accessed_at.copy()
    assert ids(explain(cols, "tabs spaces", NOW, OWNER)) == ids(search(cols, "tabs spaces", NOW, OWNER))
    assert (cols.access_count == before[0]).all() and (cols.last_accessed_at == before[1]).all()


def test_explained_term_contributions_add_up_to_bm25_and_bm25_times_modulator_is_the_score():
    cols = columns(
        fact("a", "I prefer tabs over spaces when coding tabs"), fact("b", "spaces"), fact("c", "x")
    )
    for hit in explain(cols, "tabs spaces coding", NOW, OWNER):
        parts = hit.components
        total = 0.0
        for term in parts["terms"]:
            total += term["contribution"]
        assert total == parts["bm25"]
        assert hit.score == parts["bm25"] * parts["modulator"]
        assert [t["term"] for t in parts["terms"]] == parts["matched_terms"]
    tabs = explain(cols, "tabs spaces coding", NOW, OWNER)[0].components["terms"][0]
    assert (tabs["term"], tabs["count"], tabs["document_frequency"]) == ("tabs", 2, 1)
    assert tabs["idf"] == pytest.approx(math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)))


def test_explain_in_hybrid_mode_explains_recall():
    embedder = StubEmbedder({"deploy": [1.0, 0.0]})
    cols = columns(fact("a", "deploy fridays", embedding=[0.0, 1.0]), fact("b", "ship", embedding=[1.0, 0.0]))
    hits = explain(cols, "deploy", NOW, OWNER, mode="hybrid", embedder=embedder)
    assert ids(hits) == ["a", "b"]
    assert "terms" in hits[0].components and hits[1].components["lane"] == "vector"
    with pytest.raises(ValueError):
        explain(cols, "deploy", NOW, OWNER, mode="vibes")
