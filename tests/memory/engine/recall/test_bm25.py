"""BM25 over the sparse term matrix (ENGINE-SPEC §3.2)."""

import math

import numpy as np
import pytest

from memory.engine.recall.bm25 import Bm25Index, query_terms, term_contribution
from memory.engine.recall.tokenize import tokenize


def test_only_documents_sharing_a_query_term_score_above_zero():
    """BEHAVIOURS 32."""
    index = Bm25Index(["tabs over spaces", "dark mode editor", "spaces in paths"])
    scores = index.score("spaces").scores
    assert scores[0] > 0 and scores[2] > 0
    assert scores[1] == 0


def test_a_rare_query_term_outranks_a_common_one():
    """BEHAVIOURS 32."""
    index = Bm25Index(["coffee every morning", "coffee at noon", "coffee and espresso", "espresso tonic"])
    scores = index.score("coffee tonic").scores
    assert scores[3] > max(scores[0], scores[1], scores[2])


def test_the_score_follows_the_spec_formula_with_k1_1_2_and_b_0_75():
    docs = ["alpha beta", "alpha alpha gamma delta", "epsilon"]
    index = Bm25Index(docs)
    lengths = [2, 4, 1]
    avg_len = sum(lengths) / 3
    idf_alpha = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    expected = [
        idf_alpha * (1 * 2.2) / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / avg_len)),
        idf_alpha * (2 * 2.2) / (2 + 1.2 * (1 - 0.75 + 0.75 * 4 / avg_len)),
        0.0,
    ]
    assert index.score("alpha").scores.tolist() == pytest.approx(expected, rel=1e-15)


def test_idf_is_never_negative_even_for_a_term_in_every_document():
    index = Bm25Index(["same word", "same thing", "same again"])
    result = index.score("same")
    assert result.stats[0].idf == pytest.approx(math.log(1 + 0.5 / 3.5))
    assert (result.scores > 0).all()


def test_statistics_are_computed_over_the_candidates_only():
    """Isolation happens before scoring, so one principal's facts never shift another's IDF (§3.4)."""
    docs = ["rare word here", "rare word there", "other text", "more text"]
    index = Bm25Index(docs)
    subset = np.array([True, False, True, False])
    alone = Bm25Index(["rare word here", "other text"]).score("rare").scores
    scored = index.score("rare", subset)
    assert scored.n_candidates == 2
    assert scored.scores[[0, 2]].tolist() == alone.tolist()
    assert scored.scores[1] == 0  # matches, but is not a candidate


def test_average_length_is_at_least_one():
    index = Bm25Index(["the of is", "a an"])  # all stopwords: zero-length documents
    assert index.score("anything").avg_len == 1.0


def test_empty_query_empty_corpus_and_all_stopword_query_score_nothing():
    """BEHAVIOURS 36."""
    index = Bm25Index(["tabs over spaces"])
    assert not index.score("").scores.any()
    assert not index.score("the of is").scores.any()
    assert Bm25Index([]).score("tabs").scores.size == 0


def test_query_terms_are_distinct_in_first_occurrence_order():
    assert query_terms(tokenize("spaces Tabs spaces tabs coding")) == ("spaces", "tabs", "coding")
    assert Bm25Index(["x"]).score("spaces tabs spaces").terms == ("spaces", "tabs")


def test_a_repeated_query_term_counts_once():
    index = Bm25Index(["tabs over spaces", "dark mode"])
    assert index.score("tabs tabs tabs").scores.tolist() == index.score("tabs").scores.tolist()


def test_term_frequency_raises_the_score_with_saturation():
    index = Bm25Index(["alpha beta", "alpha alpha"])
    scores = index.score("alpha").scores
    assert scores[1] > scores[0]
    assert scores[1] < 2 * scores[0]


def test_per_term_contributions_add_up_to_the_score_in_query_order():
    index = Bm25Index(["tabs over spaces while coding", "tabs only", "coding music"])
    result = index.score("tabs spaces coding")
    for doc in range(3):
        counts = index.term_counts(doc, result.terms)
        parts = [
            term_contribution(stat.idf, count, index.doc_len[doc], result.avg_len)
            for stat, count in zip(result.stats, counts, strict=True)
        ]
        total = 0.0
        for part in parts:
            total += part
        assert total == result.scores[doc]


def test_cjk_text_is_found_by_a_word_inside_the_run():
    """Decision 14: the index analyzer adds bigrams, so 咖啡 finds a sentence that contains it."""
    index = Bm25Index(["用户喜欢咖啡", "用户喜欢茶", "deploy on fridays"])
    scores = index.score("咖啡").scores
    assert scores[0] > 0
    assert scores[1] == 0 and scores[2] == 0


def test_the_index_scores_a_large_corpus_without_touching_non_matching_documents():
    docs = [f"fact number {i} about topic{i % 100}" for i in range(20_000)]
    index = Bm25Index(docs)
    scores = index.score("topic7").scores
    assert np.count_nonzero(scores) == 200
    assert index.matrix.shape[0] == 20_000
