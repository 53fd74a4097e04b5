"""Feedback expansion (memory/engine/recall/expansion.py) and the weighted BM25 it is scored with."""

import numpy as np
import pytest

from memory.engine.recall.bm25 import Bm25Index
from memory.engine.recall.expansion import relevance_model
from memory.engine.recall.tokenize import recall_terms

DOCS = [
    "Maria joined a church to feel closer to her faith.",  # 0
    "Maria bought a cross necklace for her faith.",  # 1
    "Maria goes to church every Sunday.",  # 2
    "Maria likes aerial yoga.",  # 3
    "John plays basketball.",  # 4
]
ALL = np.ones(len(DOCS), dtype=bool)


def index():
    return Bm25Index(DOCS, analyzer=recall_terms)


def test_weights_sum_to_one_heaviest_first_and_the_query_terms_are_left_out():
    terms = relevance_model(
        index(), np.array([0, 1]), np.array([2.0, 1.0]), ALL, n_terms=10, exclude={"faith"}
    )
    assert sum(terms.values()) == pytest.approx(1.0)
    assert "faith" not in terms
    weights = list(terms.values())
    assert weights == sorted(weights, reverse=True)


def test_the_best_feedback_fact_lends_most_and_words_everywhere_lend_least():
    """Fact 0 has twice fact 1's weight, so "church" outweighs "necklace"; "maria" is in every fact
    but one, so its IDF (and its weight) is the lowest."""
    terms = relevance_model(index(), np.array([0, 1]), np.array([2.0, 1.0]), ALL, n_terms=20, exclude=())
    assert terms["church"] > terms["necklac"]
    assert terms["maria"] == min(terms.values())


def test_only_the_heaviest_n_terms_are_kept():
    terms = relevance_model(index(), np.array([0, 1]), np.array([1.0, 1.0]), ALL, n_terms=3, exclude=())
    assert len(terms) == 3


def test_no_feedback_means_no_expansion():
    assert relevance_model(index(), np.array([], dtype=int), np.array([]), ALL, n_terms=5) == {}
    assert relevance_model(index(), np.array([0]), np.array([0.0]), ALL, n_terms=5) == {}
    assert relevance_model(index(), np.array([0]), np.array([1.0]), ALL, n_terms=0) == {}


def test_idf_is_over_the_candidates():
    """A term whose other holders are hidden is rarer for this caller, so it weighs more."""
    ix = index()
    church = np.array([ix.vocabulary["church"]])
    hide_fact_2 = np.array([True, True, False, True, True])
    assert ix.idf(church, hide_fact_2)[0] > ix.idf(church, ALL)[0]
    assert ix.idf(church, ALL)[0] == pytest.approx(ix.score("church", ALL).stats[0].idf)


def test_weighted_bm25_with_unit_weights_equals_plain_bm25():
    ix = index()
    plain = ix.score(["church", "faith"], ALL).scores
    weighted = ix.score_weighted({"church": 1.0, "faith": 1.0}, ALL)
    assert weighted == pytest.approx(plain)


def test_weighted_bm25_scales_each_terms_contribution_and_ignores_unknown_terms():
    ix = index()
    church = ix.score(["church"], ALL).scores
    faith = ix.score(["faith"], ALL).scores
    weighted = ix.score_weighted({"church": 0.25, "faith": 2.0, "nowhere": 5.0}, ALL)
    assert weighted == pytest.approx(0.25 * church + 2.0 * faith)
    assert not ix.score_weighted({"nowhere": 1.0}, ALL).any()


def test_document_postings_and_columns_read_a_facts_own_terms():
    ix = index()
    names = ix.term_names()
    assert {names[c] for c in ix.document_columns(3)} == {"maria", "like", "aerial", "yoga"}
    doc_idx, columns, counts = ix.document_postings([4, 3])
    assert counts[doc_idx == 0].sum() == len(recall_terms(DOCS[4]))
    assert {names[c] for c in columns[doc_idx == 1]} == {"maria", "like", "aerial", "yoga"}
    assert ix.document_postings([]).__len__() == 3 and ix.document_postings([])[0].size == 0
