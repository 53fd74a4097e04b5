"""A character n-gram lane: TF-IDF cosine over the pieces of words, for near-miss spellings and forms.

Stemming joins regular inflections, but not "grandma" and "grandmother", "pup" and "puppy", or a
typo such as "festval". Those still share most of their letters. Each word (recall tokens, so no
stopwords) contributes its own feature `w:<word>` and every 3- and 4-character window of `^word$`,
so a shared word counts for a lot and a shared word piece for a little. Words are cut to the recall
indexes' `MAX_INDEX_TOKEN_LENGTH`, so a word brings at most ~260 features.

Rules:

* term weight: `1 + ln(count)` (sublinear, so a repeated piece does not dominate a sentence);
* IDF: `ln((n + 1) / (df + 1)) + 1` over the candidate set (n candidates, df of them holding the
  feature). Statistics follow origin isolation as BM25's do: one principal's facts never shift
  another's weights;
* score: the cosine between the query's and each fact's weighted feature vectors, in [0, 1].

A query's cost is the postings of its own features plus, once per candidate set, one pass over the
matrix for the IDF and the row norms (cached per set, since a scope queries the same set again).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from memory.engine.bm25 import PerCandidateSet, append_rows
from memory.engine.tokenize import capped_tokens

GRAM_SIZES = (3, 4)
STATS_CACHE = 8  # candidate sets remembered (scopes and filtered views of one index)


def _word_features(word: str) -> list[str]:
    """`w:<word>` and every 3- and 4-character window of `^word$`, duplicates kept."""
    out = ["w:" + word]
    framed = "^" + word + "$"
    for size in GRAM_SIZES:
        out.extend("g:" + framed[i : i + size] for i in range(len(framed) - size + 1))
    return out


def gram_features(text: str) -> list[str]:
    """`w:<word>` and `g:<window>` for each recall token of the text, duplicates kept."""
    out: list[str] = []
    for word in capped_tokens(text):
        out.extend(_word_features(word))
    return out


class NgramIndex:
    """Feature weights of a list of documents (`extend` appends more); `cosine` scores one query
    against the candidates."""

    def __init__(self, documents: Sequence[str]) -> None:
        self.vocabulary: dict[str, int] = {}
        # One copy only, in float32: at 10,000 facts this is ~6 MB; df and norms come from its postings.
        self.weights = self._weigh(documents)
        self._stats = PerCandidateSet(STATS_CACHE)
        self._lock = threading.Lock()

    def _weigh(self, documents: Sequence[str]) -> sparse.csc_matrix:
        """The weighted feature matrix of `documents` (float32 CSC, one column per vocabulary feature,
        at least one), growing the vocabulary with the features they bring in word order."""
        # Features depend only on the word, and words repeat (Zipf): build a documents × words count
        # matrix and a words × features matrix, and multiply. Only distinct words are cut into pieces.
        word_index: dict[str, int] = {}
        doc_rows: list[int] = []
        doc_words: list[int] = []
        for row, text in enumerate(documents):
            for word in capped_tokens(text):
                doc_words.append(word_index.setdefault(word, len(word_index)))
                doc_rows.append(row)
        # A word seen before adds no feature: the vocabulary grows exactly as if every document
        # had been indexed at once, so appended documents keep the columns of a one-go build.
        vocabulary = self.vocabulary
        feature_rows: list[int] = []
        feature_cols: list[int] = []
        for word, index in word_index.items():
            for feature in _word_features(word):
                feature_cols.append(vocabulary.setdefault(feature, len(vocabulary)))
                feature_rows.append(index)
        n_words, n_features = max(1, len(word_index)), max(1, len(vocabulary))
        by_word = sparse.csr_matrix(
            (np.ones(len(doc_rows)), (doc_rows, doc_words)), shape=(len(documents), n_words)
        )
        pieces = sparse.csr_matrix(
            (np.ones(len(feature_rows)), (feature_rows, feature_cols)), shape=(n_words, n_features)
        )
        counts = (by_word @ pieces).tocsc()
        counts.sum_duplicates()
        weights = counts.astype(np.float32)
        weights.data = (1.0 + np.log(counts.data)).astype(np.float32)
        return weights

    def extend(self, documents: Sequence[str]) -> None:
        """Append documents (rows `n_docs`, …): the index then equals one built from the old
        documents followed by these (same vocabulary and weights, so the same cosines).

        Only the new documents are cut into features; the matrix grows by a copy of its arrays in C
        and the per-candidate-set statistics are dropped. Callers serialise against scoring.
        """
        if len(documents) == 0:
            return
        with self._lock:
            self.weights = append_rows(self.weights, self._weigh(documents))
            self._stats.clear()

    @property
    def n_docs(self) -> int:
        return self.weights.shape[0]

    def _candidate_stats(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(IDF per feature, row norm per document) over the candidate set `mask`, cached per set."""
        return self._stats.get(mask, lambda: self._compute_stats(mask))

    def _compute_stats(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = self.weights
        n_features = w.shape[1]
        if w.nnz == 0:
            return np.ones(n_features), np.zeros(self.n_docs)
        # CSC postings: `indices` are the rows holding each feature, column by column; every
        # column has at least one posting, so reduceat sums exactly each column's candidates.
        # This runs after every write (the candidate set grew), over every posting: one scratch
        # array, filled in place (each step is the same float64 arithmetic as spelling it out).
        df = np.add.reduceat(mask[w.indices], w.indptr[:-1], dtype=np.float64)
        idf = np.log((mask.sum() + 1.0) / (df + 1.0)) + 1.0
        weighted = np.repeat(idf, np.diff(w.indptr))  # each posting's feature IDF
        np.multiply(weighted, w.data, out=weighted)
        np.square(weighted, out=weighted)
        norms = np.sqrt(np.bincount(w.indices, weights=weighted, minlength=self.n_docs))
        return idf, norms

    def cosine(self, query: str, candidates: np.ndarray) -> np.ndarray:
        """Cosine of the query with every document; 0 outside the candidates or without shared features.

        The query's norm counts its features the memory has never seen too (at the IDF of a feature
        no candidate holds): a query half made of unknown words is only half like anything here.
        """
        mask = np.asarray(candidates, dtype=bool)
        scores = np.zeros(self.n_docs, dtype=np.float64)
        counts: dict[str, int] = {}
        for feature in gram_features(query):
            counts[feature] = counts.get(feature, 0) + 1
        known = {self.vocabulary[f]: c for f, c in counts.items() if f in self.vocabulary}
        if not known or not mask.any():
            return scores
        idf, norms = self._candidate_stats(mask)
        cols = np.fromiter(known, dtype=np.int64, count=len(known))
        query_weight = (1.0 + np.log(np.fromiter(known.values(), dtype=np.float64))) * idf[cols]
        unseen_idf = np.log(mask.sum() + 1.0) + 1.0
        unseen = np.array([c for f, c in counts.items() if f not in self.vocabulary], dtype=np.float64)
        unseen_weight = (1.0 + np.log(unseen)) * unseen_idf
        query_norm = float(np.sqrt(query_weight @ query_weight + unseen_weight @ unseen_weight))
        # A fact's vector is its term weights times the same IDF, so the IDF enters the dot product
        # twice. The query's columns times its weights in scipy's C loop: a common 3-gram has a
        # posting in most facts, and gathering ~250,000 postings by hand cost three times as much.
        dots = self.weights[:, cols] @ (query_weight * idf[cols])
        ok = mask & (norms > 0)
        np.divide(dots, norms * query_norm, out=scores, where=ok)
        return scores
