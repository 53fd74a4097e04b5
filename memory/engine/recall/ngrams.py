"""A character n-gram lane: TF-IDF cosine over the pieces of words, for near-miss spellings and forms.

Stemming joins regular inflections, but not "grandma" and "grandmother", "pup" and "puppy", or a
typo such as "festval". Those still share most of their letters. Each word (recall tokens, so no
stopwords) contributes its own feature `w:<word>` and every 3- and 4-character window of `^word$`,
so a shared word counts for a lot and a shared word piece for a little. Words are cut to the recall
indexes' `MAX_INDEX_TOKEN_LENGTH`, so a word brings at most ~260 features.

Rules:

* term weight: `1 + ln(count)` (sublinear, so a repeated piece does not dominate a sentence);
* IDF: `ln(n + 1) + 1 − b(df)` over the candidate set (n candidates, df of them holding the
  feature), where b(df) is `ln(df + 1)` on a grid of 1/`B_STEPS` (below). Statistics follow origin
  isolation as BM25's do: one principal's facts never shift another's weights;
* score: the cosine between the query's and each fact's weighted feature vectors, in [0, 1].

A query's cost is the postings of its own features. What the cosine needs of the candidate set (its
size n, each feature's df, each document's norm) is kept per set as sums that follow the set as it
changes. With A = ln(n + 1) + 1 and b = ln(df + 1), a feature's IDF is A − b, so a document's squared
norm is A²·S0 − 2A·S1 + S2 where S0 = Σ w², S1 = Σ w²·b and S2 = Σ w²·b² over its features. A new
n is then free, and a set that differs from a known one by a few facts (a write, an archive) is
derived from it by updating df and the sums of the documents sharing the features whose df moved:
the postings of those features whose b moved, never the whole matrix. Derived sums equal recomputed
ones up to float rounding (a full pass is made again once the updates have touched as many postings
as the matrix holds, so rounding never accumulates past that).

Why b lies on a grid (a decision; the exact `ln((n + 1) / (df + 1)) + 1` was used before): with the
exact b, one write moves the df of each of its ~80 features by one, and each common 3-gram is held by
a third of a million facts at a million, so every write corrected ~3.4 million postings' sums before
the next recall (20–30 ms). On a grid of 1/`B_STEPS`, a df of d moves its b across a grid line about
once per d/`B_STEPS` changes, so a write corrects about `B_STEPS` postings per feature on average,
whatever the workspace's size; b is never more than 1/(2·`B_STEPS`) from the exact value, so an IDF
(at least 1) moves by at most 0.05%. A full pass puts b on the same grid, so a derived set still
equals a fresh build.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import sparse

from memory.engine.recall.appendable import AppendableCsc, Growing, stack_rows
from memory.engine.recall.bm25 import PerCandidateSet, PickledWithoutLock, at_rows
from memory.engine.recall.tokenize import capped_tokens

GRAM_SIZES = (3, 4)
BUILD_ROWS = 100_000  # documents weighed at a time when an index is built
STATS_CACHE = 4  # candidate sets remembered (scopes and filtered views of one index)
DERIVE_ROWS = 512  # facts a candidate set may differ by from a remembered one to be derived from it
ENTRY_CHUNK = 1 << 22  # postings per step of a full pass (bounds its scratch memory)
# Derived sums are recomputed in full once their updates have touched DRIFT_PASSES times as many
# postings as the matrix holds (and at least DRIFT_MIN): each update adds a rounding of ~1e-16 to a
# document's sums, so this bounds the drift from a fresh pass far below any score difference
# (measured: under 1e-10 relative), while a million-fact index recomputes once per ~2,000 writes.
DRIFT_PASSES = 64
DRIFT_MIN = 1 << 22
B_STEPS = 1024  # grid of b = ln(df + 1) (see the module docstring)
# Words whose n-grams are remembered (about 1 KB each, 16 MB in all: a word of seven letters has
# 13 features, each a string of its own).
WORDS_REMEMBERED = 16_384


def _word_features(word: str) -> tuple[str, ...]:
    """`w:<word>` and every 3- and 4-character window of `^word$`, duplicates kept."""
    out = ["w:" + word]
    framed = "^" + word + "$"
    for size in GRAM_SIZES:
        out += ["g:" + framed[i : i + size] for i in range(len(framed) - size + 1)]
    return tuple(out)


def _shared_features(word: str) -> tuple[str, ...]:
    """`_word_features`, interned: the vocabularies of the many small indexes of a process (restored
    from snapshots too, which intern theirs) share one copy of each feature."""
    return tuple(map(sys.intern, _word_features(word)))


# A few documents (a write's, a small workspace's) bring mostly common words, cut again by every
# small build and append: their features are remembered. A large build cuts each distinct word once
# anyway, and its long tail of rare words would only churn the cache.
_remembered_features = lru_cache(maxsize=WORDS_REMEMBERED)(_shared_features)
REMEMBER_UP_TO = 5_000  # documents weighed at once up to which features are looked up there


def grid_log(df: np.ndarray) -> np.ndarray:
    """b = ln(df + 1) rounded to the nearest multiple of 1/`B_STEPS` (0 stays 0)."""
    return np.rint(np.log1p(df) * B_STEPS) / B_STEPS


def gram_features(text: str) -> list[str]:
    """`w:<word>` and `g:<window>` for each recall token of the text, duplicates kept."""
    out: list[str] = []
    for word in capped_tokens(text):
        out.extend(_remembered_features(word))
    return out


@dataclass(frozen=True)
class CandidateSums:
    """What the cosine needs of one candidate set (see the module docstring): its size, df and b
    per feature, and per document S1 = Σ w²·b and S2 = Σ w²·b² with b = `grid_log(df)`."""

    mask: np.ndarray
    n: int
    df: np.ndarray
    b: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    drift: int  # postings updated since the last full pass
    # Every document's norm, computed at a set's second query: a set queried once (the first recall
    # after a write) pays only for the rows it matched, a set queried again reads them (`at_rows`).
    cached: dict = field(default_factory=dict, compare=False, repr=False)

    def norms(self, s0: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The norms of documents `rows` (their IDF-weighted feature vectors over this set)."""
        a = self.a
        return at_rows(self.cached, "norms", rows,
                       lambda at: np.sqrt(np.maximum(a * a * s0[at] - 2.0 * a * self.s1[at] + self.s2[at], 0.0)))

    @property
    def a(self) -> float:
        return float(np.log(self.n + 1.0) + 1.0)

    def idf(self, columns) -> np.ndarray:
        return self.a - self.b[columns]


class NgramIndex(PickledWithoutLock):
    """Feature weights of a list of documents (`extend` appends more); `cosine` scores one query
    against the candidates."""

    def __init__(self, documents: Sequence[str]) -> None:
        self.vocabulary: dict[str, int] = {}
        self._texts = list(documents)  # re-cut when a candidate set changes (see `_derive`)
        # Weights in float32 (~600 B per fact at a million): grows by rows without copying.
        # Weighed a block of documents at a time: the scratch matrices of a one-go product at a
        # million facts held three copies of the weights.
        blocks = [self._weigh_rows(documents[i : i + BUILD_ROWS]) for i in range(0, len(documents), BUILD_ROWS)]
        weights = stack_rows(blocks or [self._weigh_rows([])])
        self.postings = AppendableCsc(weights)
        self._growing = Growing()
        self._s0 = self._growing.extend("s0", np.zeros(0), _square_sums(weights))
        self._stats = PerCandidateSet(STATS_CACHE)
        self._lock = threading.Lock()

    @property
    def weights(self):
        """The weights as one CSC matrix (merging appended rows in): for tests and one-off use."""
        return self.postings.tocsc()

    @property
    def nbytes(self) -> int:
        return self.postings.nbytes + self._growing.nbytes

    def _weigh(self, documents: Sequence[str]) -> sparse.csc_matrix:
        """The weighted feature matrix of `documents` (float32 CSC, one column per vocabulary feature,
        at least one), growing the vocabulary with the features they bring in word order."""
        return self._weigh_rows(documents).tocsc()

    def _weigh_rows(self, documents: Sequence[str]) -> sparse.csr_matrix:
        """`_weigh` as a CSR matrix (rows in document order; column order within a row unspecified)."""
        # Features depend only on the word, and words repeat (Zipf): build a documents × words count
        # matrix and a words × features matrix, and multiply. Only distinct words are cut into pieces.
        word_index: dict[str, int] = {}
        number = word_index.setdefault
        doc_rows: list[int] = []
        doc_words: list[int] = []
        for row, text in enumerate(documents):
            words = capped_tokens(text)
            doc_words += [number(word, len(word_index)) for word in words]
            doc_rows += [row] * len(words)
        # A word seen before adds no feature: the vocabulary grows exactly as if every document
        # had been indexed at once, so appended documents keep the columns of a one-go build.
        vocabulary = self.vocabulary
        column = vocabulary.setdefault
        feature_rows: list[int] = []
        feature_cols: list[int] = []
        cut = _remembered_features if len(documents) <= REMEMBER_UP_TO else _word_features
        for word, index in word_index.items():
            features = cut(word)
            feature_cols += [column(feature, len(vocabulary)) for feature in features]
            feature_rows += [index] * len(features)
        n_words, n_features = max(1, len(word_index)), max(1, len(vocabulary))
        by_word = sparse.csr_matrix(
            (np.ones(len(doc_rows)), (doc_rows, doc_words)), shape=(len(documents), n_words)
        )
        pieces = sparse.csr_matrix(
            (np.ones(len(feature_rows)), (feature_rows, feature_cols)), shape=(n_words, n_features)
        )
        counts = by_word @ pieces
        counts.sum_duplicates()  # sorts too: `astype` below would, and the data must follow it
        weights = counts.astype(np.float32)
        weights.data = (1.0 + np.log(counts.data)).astype(np.float32)
        return weights

    def extend(self, documents: Sequence[str]) -> None:
        """Append documents (rows `n_docs`, …): the index then equals one built from the old
        documents followed by these (same vocabulary and weights, so the same cosines).

        Only the new documents are cut into features and nothing stored is copied (amortised: see
        `AppendableCsc`). Remembered candidate sets stay valid for the rows they cover; a set over
        the new rows is derived from one of them. Callers serialise against scoring.
        """
        if len(documents) == 0:
            return
        with self._lock:
            tail = self._weigh(documents)
            self.postings.append(tail)
            self._texts.extend(documents)
            self._s0 = self._growing.extend("s0", self._s0, _square_sums(tail))

    @property
    def n_docs(self) -> int:
        return self.postings.shape[0]

    def candidate_sums(self, mask: np.ndarray) -> CandidateSums:
        """The sums of the candidate set `mask`: remembered, derived from a remembered set that
        differs by a few facts, or computed in one pass over the postings."""
        return self._stats.get(mask, lambda: self._derived(mask) or self._full(mask))

    def statistics(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(IDF per feature, norm per document) over the candidate set `mask` (a pass over every
        document: for explanations and tests; scoring computes norms of the matching rows only)."""
        sums = self.candidate_sums(mask)
        return sums.idf(slice(None)), sums.norms(self._s0, np.arange(self.n_docs))

    def _full(self, mask: np.ndarray) -> CandidateSums:
        """The sums of `mask` in two passes over the postings, a few million at a time: the df of
        every feature (a running count of candidates down each column), then S1 and S2 (the rows'
        squared weights times b and b², as sparse products in scipy's C loop)."""
        n_docs, n_features = self.n_docs, self.postings.shape[1]
        df = np.zeros(n_features, dtype=np.float64)
        for first, part in self.postings.parts:
            inside = mask[first : first + part.shape[0]]
            for c0, c1, lo, hi in _column_chunks(part):
                counted = np.zeros(hi - lo + 1, dtype=np.int64)
                np.cumsum(inside[part.indices[lo:hi]], out=counted[1:])
                df[c0:c1] += counted[part.indptr[c0 + 1 : c1 + 1] - lo] - counted[part.indptr[c0:c1] - lo]
        b = grid_log(df)
        b2 = np.square(b)
        s1 = np.zeros(n_docs, dtype=np.float64)
        s2 = np.zeros(n_docs, dtype=np.float64)
        for first, part in self.postings.parts:
            end = first + part.shape[0]
            for c0, c1, lo, hi in _column_chunks(part):
                squared = sparse.csc_matrix(
                    (np.square(part.data[lo:hi], dtype=np.float64), part.indices[lo:hi], part.indptr[c0 : c1 + 1] - lo),
                    shape=(part.shape[0], c1 - c0),
                )
                s1[first:end] += squared @ b[c0:c1]
                s2[first:end] += squared @ b2[c0:c1]
        return CandidateSums(mask.copy(), int(np.count_nonzero(mask)), df, b, s1, s2, 0)

    def _derived(self, mask: np.ndarray) -> CandidateSums | None:
        """The sums of `mask` from a remembered set it differs from by at most `DERIVE_ROWS` facts
        (rows whose membership changed, plus rows appended since), or None."""
        n_docs = mask.size
        for known in self._stats.recent():
            if known.mask.size > n_docs or known.drift > max(DRIFT_PASSES * self.postings.nnz, DRIFT_MIN):
                continue
            old_docs = known.mask.size
            changed = np.flatnonzero(known.mask != mask[:old_docs])
            if changed.size + n_docs - old_docs > DERIVE_ROWS:
                continue
            return self._derive(known, mask, changed)
        return None

    def _derive(self, known: CandidateSums, mask: np.ndarray, changed: np.ndarray) -> CandidateSums:
        n_docs, old_docs, n_features = mask.size, known.mask.size, self.postings.shape[1]
        appended = np.arange(old_docs, n_docs)
        rows = np.concatenate((changed, appended))
        # The changed rows' weights, cut again from their texts: the same float32 values as stored
        # (the same function of the same words), without a row-major copy of the whole matrix.
        mine = self._weigh([self._texts[i] for i in rows]).tocsr()
        sign = np.where(mask[rows], 1.0, -1.0)
        sign[changed.size :] = mask[appended]  # an appended row counts only if it is a candidate
        entries = np.diff(mine.indptr)
        delta = np.bincount(mine.indices, weights=np.repeat(sign, entries), minlength=n_features)
        df, b = np.zeros(n_features, dtype=np.float64), np.zeros(n_features, dtype=np.float64)
        df[: known.df.size], b[: known.b.size] = known.df, known.b
        touched = np.flatnonzero(delta)
        df[touched] += delta[touched]
        grid = grid_log(df[touched])
        crossed = grid != b[touched]  # most common features' b stays on its grid line
        moved = touched[crossed]
        # Every document holding a feature whose b moved: its sums move by w²·Δb and w²·Δ(b²)
        # (appended rows too, overwritten below). The features' columns in scipy's C loops.
        d1 = grid[crossed] - b[moved]
        d2 = grid[crossed] ** 2 - b[moved] ** 2
        b[touched] = grid
        s1, s2 = np.empty(n_docs, dtype=np.float64), np.empty(n_docs, dtype=np.float64)
        s1[:old_docs], s2[:old_docs] = known.s1, known.s2
        s1[old_docs:], s2[old_docs:] = 0.0, 0.0
        work = 0
        if moved.size:
            for first, part in self.postings.parts:
                inside = moved < part.shape[1]
                columns = part[:, moved[inside]]
                columns.data = np.square(columns.data, dtype=np.float64)
                end = first + part.shape[0]
                # Two products, not one with two columns: scipy's loop over several vectors was
                # slower than two passes over the same postings.
                s1[first:end] += columns @ d1[inside]
                s2[first:end] += columns @ d2[inside]
                work += columns.nnz
        if appended.size:  # the appended rows' sums in full, with the new df
            first = changed.size
            doc = np.repeat(np.arange(rows.size), entries)[mine.indptr[first] :] - first
            cols = mine.indices[mine.indptr[first] :]
            squared = np.square(mine.data[mine.indptr[first] :], dtype=np.float64)
            bb = b[cols]
            s1[old_docs:] = np.bincount(doc, weights=squared * bb, minlength=appended.size)
            s2[old_docs:] = np.bincount(doc, weights=squared * bb * bb, minlength=appended.size)
        return CandidateSums(mask.copy(), int(np.count_nonzero(mask)), df, b, s1, s2, known.drift + work)

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
        sums = self.candidate_sums(mask)
        cols = np.fromiter(known, dtype=np.int64, count=len(known))
        idf = sums.idf(cols)
        query_weight = (1.0 + np.log(np.fromiter(known.values(), dtype=np.float64))) * idf
        unseen_idf = sums.a
        unseen = np.array([c for f, c in counts.items() if f not in self.vocabulary], dtype=np.float64)
        unseen_weight = (1.0 + np.log(unseen)) * unseen_idf
        query_norm = float(np.sqrt(query_weight @ query_weight + unseen_weight @ unseen_weight))
        # A fact's vector is its term weights times the same IDF, so the IDF enters the dot product
        # twice. The query's columns times its weights in scipy's C loop: a common 3-gram has a
        # posting in most facts, and gathering ~250,000 postings by hand cost three times as much.
        dots = self.postings.columns_dot(cols, query_weight * idf)
        rows = np.flatnonzero(mask & (dots > 0))  # only the facts that share a feature need a norm
        scores[rows] = dots[rows] / (sums.norms(self._s0, rows) * query_norm)
        return scores


def _square_sums(weights) -> np.ndarray:
    """Σ w² per row of a CSC weight matrix (S0: it depends on the weights only).

    A few million entries at a time: squaring all of them in float64 at once (and the int64 copy of
    their rows `bincount` makes) held 1.2 GB at a million facts. `add.at` adds in entry order, as one
    `bincount` would, so the sums are the same to the last bit."""
    sums = np.zeros(weights.shape[0], dtype=np.float64)
    for start in range(0, weights.nnz, ENTRY_CHUNK):
        end = start + ENTRY_CHUNK
        np.add.at(sums, weights.indices[start:end], np.square(weights.data[start:end], dtype=np.float64))
    return sums


def _column_chunks(part):
    """(first column, end column, first entry, end entry) of a CSC part, a few million entries
    (`ENTRY_CHUNK`) at a time, whole columns per step (bounds a pass's scratch memory)."""
    indptr = part.indptr
    n_columns = part.shape[1]
    start_col = 0
    while start_col < n_columns:
        limit = int(indptr[start_col]) + ENTRY_CHUNK
        end_col = max(start_col + 1, int(np.searchsorted(indptr, limit, side="right")) - 1)
        end_col = min(end_col, n_columns)
        yield start_col, end_col, int(indptr[start_col]), int(indptr[end_col])
        start_col = end_col
