"""Query expansion from the memory's own words: a relevance model over the first pass's best facts.

A question and the fact that answers it often share only part of their wording: "What does Maria do
to feel closer to her faith?" against "Maria joined a nearby church…". The facts that the first
pass ranks highest tend to be about the same thing, and the words they add (here "church") are
evidence about the topic. Pseudo-relevance feedback (Lavrenko and Croft's relevance model, the
"RM3" recipe) turns those words into a weighted second query:

* feedback facts: the first pass's top few facts that share at least one query term, each weighted
  by its first-pass score (the weights sum to 1);
* each term's weight is `Σ_feedback weight(d) · count(t, d) / length(d)`, the chance of drawing t
  from the feedback facts, multiplied by the term's BM25 IDF over the candidates, so words that are
  everywhere in this memory (a name that is in half the facts) add little;
* the query's own terms are left out (they are scored already), and only the heaviest `n_terms`
  are kept, renormalised to sum to 1. As in RM3, a term only one feedback fact holds is kept: the
  feedback facts are taken as relevant, so their own specific words may lift them too.

The caller scores the expansion with `Bm25Index.score_weighted` and adds it, damped, to the
query's own BM25: expansion can reorder and extend what the query found, but a memory in which the
query matches nothing gets no feedback and so no expansion.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from memory.engine.recall.bm25 import Bm25Index


def relevance_model(
    index: Bm25Index,
    feedback_rows: np.ndarray,
    feedback_weights: np.ndarray,
    candidates: np.ndarray,
    *,
    n_terms: int,
    exclude: Collection[str] = (),
) -> dict[str, float]:
    """Expansion terms and their weights (summing to 1), heaviest first; empty without feedback.

    `feedback_rows` are document rows of `index`, `feedback_weights` their non-negative first-pass
    scores (only their proportions matter). Ties in weight keep vocabulary order.
    """
    rows = np.asarray(feedback_rows, dtype=np.int64)
    weights = np.asarray(feedback_weights, dtype=np.float64)
    if rows.size == 0 or n_terms <= 0 or weights.sum() <= 0:
        return {}
    share = weights / weights.sum() / np.maximum(index.doc_len[rows], 1.0)
    doc_idx, term_cols, counts = index.document_postings(rows)
    columns, inverse = np.unique(term_cols, return_inverse=True)
    drawn = np.bincount(inverse, weights=counts * share[doc_idx], minlength=columns.size)
    value = drawn * index.idf(columns, candidates)
    names = index.term_names()
    excluded = set(exclude)
    value[[i for i, col in enumerate(columns) if names[col] in excluded]] = 0.0
    order = np.argsort(-value, kind="stable")[:n_terms]
    order = order[value[order] > 0]
    if order.size == 0:
        return {}
    total = float(value[order].sum())
    return {names[columns[i]]: float(value[i] / total) for i in order}
