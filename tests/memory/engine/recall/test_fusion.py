"""The default recall lane (memory/engine/recall/fusion.py): stems, feedback expansion, n-grams, fusion."""

import copy
import math

import numpy as np
import pytest

from memory.engine.facts.records import Origin
from memory.engine.recall.core import FactColumns, FactRow, explain, recall, recall_hybrid
from memory.engine.recall.fusion import FusionSettings, blend, unit_max

NOW = 1_750_000_000_000
OWNER = Origin.owner()
PEER = Origin("channel", "wa", "c1", "s1")
NO_EXPANSION = FusionSettings(expansion_weight=0.0)
NO_NGRAMS = FusionSettings(ngram_weight=0.0)


def fact(memory_id, content, **fields):
    fields.setdefault("created_at", NOW)
    return FactRow(memory_id, content, **fields)


def columns(*rows):
    return FactColumns.from_rows(list(rows))


def ids(hits):
    return [hit.memory_id for hit in hits]


# ---------------------------------------------------------------- fusion arithmetic


def test_unit_max_scales_the_best_to_one_and_leaves_nothing_when_nothing_is_positive():
    assert unit_max(np.array([1.0, 4.0, 0.0])).tolist() == [0.25, 1.0, 0.0]
    assert unit_max(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]
    assert unit_max(np.zeros(0)).size == 0


def test_blend_gives_the_lexical_lane_what_the_other_weights_leave():
    lexical, ngram, cosine = np.array([2.0, 1.0]), np.array([0.5, 1.0]), np.array([1.0, 0.0])
    mixed = blend(lexical, ngram, cosine, FusionSettings(ngram_weight=0.25))
    assert mixed.tolist() == pytest.approx([0.75 * 1.0 + 0.25 * 0.5, 0.75 * 0.5 + 0.25 * 1.0])
    with_vectors = blend(lexical, ngram, cosine, FusionSettings(ngram_weight=0.2, vector_weight=0.3))
    assert with_vectors.tolist() == pytest.approx([0.5 + 0.1 + 0.3, 0.25 + 0.2])


@pytest.mark.parametrize("weights", [(-0.1, 0.0), (0.6, 0.4), (1.0, 0.0), (0.0, -1.0)])
def test_settings_must_leave_the_lexical_lane_a_share(weights):
    with pytest.raises(ValueError):
        FusionSettings(ngram_weight=weights[0], vector_weight=weights[1])


# ---------------------------------------------------------------- the three ideas


def test_stemming_finds_other_inflections_that_exact_words_miss():
    cols = columns(fact("a", "Maria volunteered at the shelter."), fact("b", "John likes basketball."))
    assert ids(recall_hybrid(cols, "volunteering", NOW, OWNER, min_sim=2.0)) == []
    assert ids(recall(cols, "volunteering", NOW, OWNER, settings=NO_NGRAMS)) == ["a"]


def test_expansion_reaches_a_fact_that_shares_words_with_the_best_match_but_not_with_the_query():
    """The query "faith" finds fact a; a's other words ("church") lead to fact b, which never says it."""
    cols = columns(
        fact("a", "Maria joined a church to feel closer to her faith."),
        fact("b", "Maria sings in the church choir on Sundays."),
        fact("c", "John plays basketball on Sundays."),
    )
    only_lexical = FusionSettings(ngram_weight=0.0)
    assert ids(recall(cols, "faith", NOW, OWNER, settings=only_lexical)) == ["a", "b"]
    assert ids(
        recall(cols, "faith", NOW, OWNER, settings=FusionSettings(ngram_weight=0.0, expansion_weight=0))
    ) == ["a"]
    first, second = recall(cols, "faith", NOW, OWNER)
    assert first.components["matched_terms"] == ["faith"] and second.components["matched_terms"] == []
    assert "church" in second.components["expansion_terms"] and second.components["bm25"] == 0.0
    # c shares only "sundays" with b, and b is not feedback (it never matched the query): c stays out.


TYPO_MEMORY = (
    fact("bread", "Sourdough recipe from grandma."),
    fact("fest", "Caroline loved the pride festival."),
    fact("cold", "Weather in the mountains is cold."),
    fact("car", "I drive a blue Hyundai."),
)


@pytest.mark.parametrize(("query", "expected"), [("sourdogh recipie", "bread"), ("mountian wether", "cold")])
def test_the_ngram_lane_finds_misspelt_queries_that_share_no_stem(query, expected):
    cols = columns(*TYPO_MEMORY)
    assert ids(recall(cols, query, NOW, OWNER)) == [expected]
    assert recall(cols, query, NOW, OWNER, settings=FusionSettings(ngram_weight=0.0)) == []


def test_the_default_recall_is_the_fused_lane_not_the_original_hybrid():
    """A misspelt query: the default recall finds the fact through the fused n-gram lane; the original
    hybrid lane (exact words only) finds nothing."""
    cols = columns(*TYPO_MEMORY)
    assert ids(recall(cols, "sourdogh recipie", NOW, OWNER)) == ["bread"]
    assert recall_hybrid(cols, "sourdogh recipie", NOW, OWNER) == []


def test_the_ngram_lane_ranks_a_related_form_above_an_unrelated_fact_with_the_same_lexical_match():
    """Both facts match only "caroline"; "grandmother" shares its first letters with "grandma"."""
    cols = columns(
        fact("hike", "Caroline went hiking with friends."),
        fact("gran", "Caroline got a necklace from her grandmother."),
    )
    assert ids(recall(cols, "Caroline grandma", NOW, OWNER)) == ["gran", "hike"]
    with_ngrams = {h.memory_id: h.score for h in recall(cols, "Caroline grandma", NOW, OWNER)}
    assert with_ngrams["gran"] > with_ngrams["hike"]
    without = {h.memory_id: h.score for h in recall(cols, "Caroline grandma", NOW, OWNER, settings=NO_NGRAMS)}
    assert without["gran"] <= without["hike"]  # without the lane only relevance's spelling tells them apart


# ---------------------------------------------------------------- which facts come back


def test_a_query_sharing_nothing_with_the_memory_returns_nothing():
    """Abstention: no stem, no expansion (there is no feedback), no n-gram cosine at the floor."""
    cols = columns(fact("a", "My blood type is O negative."), fact("b", "My emergency contact is Anna."))
    assert recall(cols, "what is my shoe size", NOW, OWNER) == []
    assert recall(cols, "what is my zodiac sign", NOW, OWNER) == []
    assert recall(cols, "the of is", NOW, OWNER) == []


def test_a_fact_reached_only_by_ngrams_must_clear_the_floor():
    """One misspelt word against a whole sentence stays under the default floor (0.3): typo tolerance
    without a shared stem needs most of the wording to be close, which keeps abstention safe."""
    cols = columns(*TYPO_MEMORY)
    assert recall(cols, "festivel", NOW, OWNER) == []
    assert ids(recall(cols, "festivel", NOW, OWNER, settings=FusionSettings(ngram_floor=0.2))) == ["fest"]
    assert recall(cols, "sourdogh recipie", NOW, OWNER, settings=FusionSettings(ngram_floor=0.99)) == []
    # Even with no floor a fact must share a word piece: "zzz" reaches nothing.
    assert recall(cols, "zzz qqq", NOW, OWNER, settings=FusionSettings(ngram_floor=0.0)) == []


def test_only_candidates_are_scored_and_another_principals_facts_never_come_back():
    cols = columns(
        fact("owner", "I deploy on fridays."),
        fact("peer", "I deploy on fridays too.", origin=PEER),
        fact("old", "I deploy on fridays.", lifecycle="archived"),
        fact("ended", "Deploy freeze on fridays.", valid_to=NOW),
    )
    assert ids(recall(cols, "deploy fridays", NOW, OWNER)) == ["owner"]
    assert ids(recall(cols, "deploy fridays", NOW, PEER)) == ["peer"]
    assert recall(cols, "deploy fridays", NOW, None) == []
    assert recall(columns(), "deploy", NOW, OWNER) == []


def test_trust_and_importance_act_as_in_the_hybrid():
    """An untrusted fact repeating the query words ranks below the owner's; a low-importance fact that
    repeats them ranks below the important one."""
    cols = columns(
        fact("doc", "User editor: Emacs editor.", source_type="retrieved_document", segment="knowledge"),
        fact("mine", "My preferred editor is Helix.", segment="preference"),
        fact("chart", "Blood type chart; blood type guide.", importance=0.05, segment="knowledge"),
        fact("blood", "My blood type is O negative.", importance=0.97, segment="context"),
    )
    assert ids(recall(cols, "what editor do I use", NOW, OWNER))[:2] == ["mine", "doc"]
    assert ids(recall(cols, "what is my blood type", NOW, OWNER))[:2] == ["blood", "chart"]


def test_limits_follow_the_hybrids_rules():
    cols = columns(*[fact(f"f{i}", f"deploy note {i}") for i in range(12)])
    assert len(recall(cols, "deploy", NOW, OWNER)) == 8
    assert len(recall(cols, "deploy", NOW, OWNER, limit=0)) == 8
    assert len(recall(cols, "deploy", NOW, OWNER, limit=3)) == 3
    assert len(recall(cols, "deploy", NOW, OWNER, limit=None)) == 12


def test_ties_fall_to_the_newest_fact_then_to_column_order():
    cols = columns(
        fact("old", "deploy", created_at=NOW - 10),
        fact("new-1", "deploy", created_at=NOW),
        fact("new-2", "deploy", created_at=NOW),
    )
    assert ids(recall(cols, "deploy", NOW, OWNER)) == ["new-1", "new-2", "old"]


# ---------------------------------------------------------------- explanation


def test_components_rebuild_every_score():
    cols = columns(
        fact("a", "Maria joined a church to feel closer to her faith."),
        fact("b", "Maria sings in the church choir.", source_type="tool_output", segment="knowledge"),
        fact("c", "Maria has faith in her church friends.", confidence=0.5),
    )
    for hit in recall(cols, "faith church", NOW, OWNER):
        c = hit.components
        assert c["lane"] == "fused" and c["formula"] == "blend * modulator * trust"
        lexical = c["bm25"] / c["bm25_max"] + c["expansion_weight"] * (
            c["expansion"] / c["expansion_max"] if c["expansion_max"] > 0 else 0.0
        )
        assert lexical == pytest.approx(c["lexical"])
        blended = (1 - c["ngram_weight"] - c["vector_weight"]) * c["lexical"] / c["lexical_max"] + c[
            "ngram_weight"
        ] * c["ngram"] / c["ngram_max"]
        assert blended == pytest.approx(c["blend"])
        assert c["trust"] == c["source_weight"] * c["confidence_factor"]
        assert c["modulator"] == 0.5 + 0.5 * c["effective"]
        assert hit.score == c["score"] == c["blend"] * c["modulator"] * c["trust"]


def test_hits_carry_their_bm25_rank_and_no_vector_rank_without_vectors():
    cols = columns(fact("a", "deploy deploy fridays"), fact("b", "deploy"), fact("c", "fridays off"))
    by_id = {hit.memory_id: hit.components for hit in recall(cols, "deploy fridays", NOW, OWNER)}
    assert by_id["a"]["lex_rank"] == 1 and by_id["a"]["vec_rank"] is None and by_id["a"]["cosine"] is None


def test_explain_in_default_mode_returns_the_default_recall():
    cols = columns(fact("a", "Maria volunteered at the shelter."))
    assert ids(explain(cols, "volunteering", NOW, OWNER, mode="default")) == ["a"]
    with pytest.raises(ValueError):
        explain(cols, "x", NOW, OWNER, mode="nope")


# ---------------------------------------------------------------- the optional vector lane


class StubEmbedder:
    """Maps known texts to fixed 2-d vectors; anything else gets the zero vector."""

    dims = 2
    min_sim = 0.3

    def __init__(self, vectors):
        self.vectors = vectors

    def embed(self, texts):
        return np.array([self.vectors.get(text, [0.0, 0.0]) for text in texts], dtype=np.float64)


def test_with_a_vector_weight_the_embedders_cosine_joins_and_may_add_facts():
    embedder = StubEmbedder(
        {"where do I reside": [1.0, 0.0], "I live in Hyderabad.": [1.0, 0.0], "I like tea.": [0.0, 1.0]}
    )
    cols = FactColumns.from_rows(
        [fact("home", "I live in Hyderabad."), fact("tea", "I like tea.")], embedder=embedder
    )
    assert recall(cols, "where do I reside", NOW, OWNER, embedder=embedder) == []
    hits = recall(
        cols, "where do I reside", NOW, OWNER, embedder=embedder, settings=FusionSettings(vector_weight=0.4)
    )
    assert ids(hits) == ["home"]
    assert hits[0].components["vec_rank"] == 1 and hits[0].components["cosine"] == pytest.approx(1.0)


def test_a_broken_embedder_degrades_to_the_lexical_lanes():
    class Broken:
        def embed(self, texts):
            raise RuntimeError("model offline")

    cols = columns(fact("a", "deploy on fridays"))
    hits = recall(cols, "deploy", NOW, OWNER, embedder=Broken(), settings=FusionSettings(vector_weight=0.3))
    assert ids(hits) == ["a"]


# ---------------------------------------------------------------- indexes


def test_the_lanes_indexes_are_built_once_and_shared_by_shallow_copies():
    """The service layer filters by shallow-copying the columns per query; that must not re-index."""
    cols = columns(fact("a", "deploy on fridays"), fact("b", "lunch at noon"))
    view = copy.copy(cols)
    view.lifecycle = np.array(["active", "hidden"], dtype=object)
    assert ids(recall(view, "deploy lunch", NOW, OWNER)) == ["a"]
    assert cols.text is view.text and cols.text._stems is not None and cols.text._ngrams is not None
    assert set(ids(recall(cols, "deploy lunch", NOW, OWNER))) == {"a", "b"}


def test_mmr_diversifies_the_cut_when_asked():
    """a and b say the same and have the same vector; λ < 1 prefers c over b's repetition."""
    cols = FactColumns.from_rows(
        [fact("a", "alpha beta"), fact("b", "alpha beta"), fact("c", "alpha gamma")],
        embedder=StubEmbedder({"alpha beta": [1.0, 0.0], "alpha gamma": [0.0, 1.0]}),
    )
    lexical_only = FusionSettings(ngram_weight=0.0, expansion_weight=0.0)
    plain = recall(cols, "alpha beta", NOW, OWNER, settings=lexical_only)
    diverse = recall(cols, "alpha beta", NOW, OWNER, settings=lexical_only, mmr_lambda=0.5)
    assert ids(plain) == ["a", "b", "c"] and ids(diverse) == ["a", "c", "b"]
    assert not any(math.isnan(hit.score) for hit in diverse)
