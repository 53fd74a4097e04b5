"""BM25 over a sparse term-frequency matrix (ENGINE-SPEC §3.2), scored with numpy.

The original recomputes document frequencies per query by scanning every record. Here the documents
are tokenized once into a CSC matrix (documents × vocabulary, values = term counts); a query touches
only the columns of its own terms, so its cost is the number of postings of those terms, not the
size of the corpus.

Statistics are per candidate set. `N`, each term's document frequency and the average length are
computed over the candidates passed in, exactly as the original computes them over the records it is
given; origin isolation happens before scoring, so one principal's facts never shift another's IDF.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from memory.engine.recall.appendable import (
    AppendableCsc,
    Growing,
    GrowingCsr,
    major_runs,
    stack_rows,
    with_columns,
)
from memory.engine.recall.tokenize import index_tokens

K1 = 1.2
B = 0.75
BUILD_ROWS = 100_000  # documents counted at a time when an index is built
SUMMARY_CACHE = 8  # candidate sets whose size and average length are remembered


def mask_key(mask: np.ndarray) -> bytes:
    """A short digest naming a candidate set, for caches of per-set statistics.

    Packed bits pad to whole bytes, so the length is hashed too: a mask and the same mask with
    trailing False rows (after the index grew) must not share a key.
    """
    return hashlib.blake2b(
        np.packbits(mask).tobytes(), digest_size=16, salt=mask.size.to_bytes(16, "little")
    ).digest()


class PerCandidateSet:
    """Statistics computed once per candidate set and remembered for the `size` sets used last.

    A scope asks about the same set again and again (its active facts; a filtered view), so each
    set's statistics (BM25's lengths, the n-gram lane's IDF and norms) are one pass per set, not per
    query. Any change to the documents makes every entry stale: the owner calls `clear`."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, mask: np.ndarray, compute: Callable[[], Any]) -> Any:
        key = mask_key(mask)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = compute()  # outside the lock: another set's lookup need not wait for this pass
        with self._lock:
            self._entries[key] = value
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def recent(self) -> list[Any]:
        """The remembered values, most recently used first."""
        with self._lock:
            return list(reversed(self._entries.values()))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __getstate__(self) -> dict:
        return {"size": self.size}  # a snapshot keeps no entries (they are rebuilt on use), nor the lock

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["size"])

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class CandidateSummary:
    """What every score over one candidate set needs: its size, its average length (at least 1),
    and whether it is every document (then postings need no filtering)."""

    n: int
    avg_len: float
    every: bool
    # `k1·(1 − b + b·L/avgLen)` of every document, computed at the set's second query (a set queried
    # once, as after a write, normalises only the documents its postings reach): see `at_rows`.
    cached: dict = field(default_factory=dict, compare=False, repr=False)


def query_terms(tokens: Sequence[str]) -> tuple[str, ...]:
    """The distinct tokens of a query in first-occurrence order (the original's `Q`)."""
    return tuple(dict.fromkeys(tokens))


@dataclass(frozen=True)
class TermStats:
    """One query term's contribution inputs over the candidate set, for explanations."""

    term: str
    document_frequency: int
    idf: float


@dataclass(frozen=True)
class Bm25Scores:
    """Raw BM25 per document of the index (0 where a document is not a candidate or matches nothing).

    `terms` are the query's distinct terms in query order; `stats` holds the IDF of each term over the
    candidate set; `avg_len` is the candidate set's average length (at least 1), `n_candidates` its size.
    """

    scores: np.ndarray
    terms: tuple[str, ...]
    stats: tuple[TermStats, ...]
    avg_len: float
    n_candidates: int


class PickledWithoutLock:
    """Pickles (a recall index snapshot) without its `_lock`, and gets a fresh one when loaded.

    A loaded `vocabulary` has its words interned, as the indexes built in this process have theirs
    (the n-gram lane interns every feature it cuts): unpickled, every small index held its own copy
    of every word and letter run, and 500 indexes of 40–199 facts took 309 MB resident where the same
    indexes built from the database took 234 (docs/BENCHMARKS.md, "Ten thousand workspaces: the
    collector's pauses")."""

    _lock: threading.Lock

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict) -> None:
        vocabulary = state.get("vocabulary")
        if isinstance(vocabulary, dict):
            state = {**state, "vocabulary": {sys.intern(word): column for word, column in vocabulary.items()}}
            if state.get("_terms") is not None:  # the same words, in column order
                state["_terms"] = list(state["vocabulary"])
        self.__dict__.update(state)
        self._lock = threading.Lock()


def at_rows(cached: dict, name: str, rows: np.ndarray, values: Callable[[Any], np.ndarray]) -> np.ndarray:
    """A per-document quantity of one candidate set at `rows`, where `values(index)` computes it.

    A set's first query computes only its own rows (the first recall after a write touches a new set
    once); from its second query on, every document's values are computed once and kept in `cached`.
    """
    every = cached.get(name)
    if every is None:
        if not cached.get(f"{name}:asked"):
            cached[f"{name}:asked"] = True
            return values(rows)
        every = cached[name] = values(slice(None))
    return every[rows]


class Bm25Index(PickledWithoutLock):
    """A BM25 index over a list of documents; build once, score many queries, `extend` with more.

    `analyzer` turns a text into tokens (default `index_tokens`, which adds bigrams for space-less
    scripts); queries go through the same analyzer so both sides agree.
    """

    def __init__(self, documents: Sequence[str], analyzer: Callable[[str], list[str]] = index_tokens) -> None:
        self.analyzer = analyzer
        self.vocabulary: dict[str, int] = {}
        self._added: list[str] = []  # terms new to the vocabulary since `extend` last looked
        blocks, lengths = [], []
        for start in range(0, len(documents), BUILD_ROWS):  # a block at a time: see `stack_rows`
            block, block_len = self._count_rows(documents[start : start + BUILD_ROWS])
            blocks.append(block)
            lengths.append(block_len)
        if not blocks:
            block, block_len = self._count_rows([])
            blocks, lengths = [block], [block_len]
        matrix, doc_len = stack_rows(blocks), np.concatenate(lengths)
        self._added.clear()
        # Term counts, documents × terms: grows by rows without copying (memory.engine.recall.appendable).
        self.counts = AppendableCsc(matrix)
        self._lengths = Growing()
        self.doc_len = self._lengths.extend("doc_len", np.zeros(0), doc_len)
        # Row-major copy and column → term list, built on first use by query expansion only.
        self._rows: GrowingCsr | None = None
        self._terms: list[str] | None = None
        self._summaries = PerCandidateSet(SUMMARY_CACHE)
        self._lock = threading.Lock()

    def _count(self, documents: Sequence[str]) -> tuple[sparse.csc_matrix, np.ndarray]:
        """(term counts, lengths) of `documents`, growing the vocabulary with their new terms.

        The matrix has one column per vocabulary term (at least one), rows in document order.
        """
        matrix, doc_len = self._count_rows(documents)
        return matrix.tocsc(), doc_len

    def _count_rows(self, documents: Sequence[str]) -> tuple[sparse.csr_matrix, np.ndarray]:
        """`_count` with the counts as a CSR matrix."""
        rows: list[int] = []
        cols: list[int] = []
        vocabulary, analyzer, added = self.vocabulary, self.analyzer, self._added
        known = vocabulary.get
        for row, text in enumerate(documents):
            tokens = analyzer(text)
            ids = [known(token) for token in tokens]
            if None in ids:  # a term new to the vocabulary: numbered in order of first occurrence
                for i, token in enumerate(tokens):
                    if ids[i] is None:
                        col = known(token)  # perhaps numbered a moment ago, earlier in this document
                        if col is None:
                            col = vocabulary[token] = len(vocabulary)
                            added.append(token)
                        ids[i] = col
            cols += ids
            rows += [row] * len(tokens)
        shape = (len(documents), max(1, len(vocabulary)))
        ones = np.ones(len(rows), dtype=np.float64)
        # COO → CSR sums duplicate (row, col) pairs, which turns token occurrences into term counts.
        matrix = sparse.csr_matrix((ones, (rows, cols)), shape=shape)
        matrix.sum_duplicates()
        doc_len = np.bincount(np.asarray(rows, dtype=np.int64), minlength=len(documents)).astype(np.float64)
        return matrix, doc_len

    def extend(self, documents: Sequence[str]) -> None:
        """Append documents (rows `n_docs`, `n_docs + 1`, …): the index then equals one built from the
        old documents followed by these (same vocabulary, matrix, lengths and so scores).

        Only the new documents are analysed, and nothing already stored is copied (amortised: see
        `AppendableCsc`). Not safe against concurrent scoring: callers serialise (the recall index
        holds its lock).
        """
        if len(documents) == 0:
            return
        with self._lock:
            self._added.clear()
            tail, tail_len = self._count(documents)
            self.counts.append(tail)
            self.doc_len = self._lengths.extend("doc_len", self.doc_len, tail_len)
            if self._rows is not None:
                self._rows.append(tail.tocsr())
            if self._terms is not None:
                self._terms.extend(self._added)
            self._summaries.clear()

    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @property
    def matrix(self) -> sparse.csc_matrix:
        """The term counts as one CSC matrix (merging appended rows in): for tests and one-off use."""
        return self.counts.tocsc()

    @property
    def nbytes(self) -> int:
        """Memory of the term counts, the lengths and the row-major copy once built."""
        rows = 0 if self._rows is None else self._rows.nbytes
        return self.counts.nbytes + self._lengths.nbytes + rows

    def summary(self, mask: np.ndarray) -> CandidateSummary:
        """Size, average length and completeness of the candidate set `mask`, cached per set.

        A scope queries the same set again and again, and each of a query's passes (its terms, the
        expansion's, the feedback IDF) needs these: one pass over the lengths per set, not per call.
        """
        return self._summaries.get(mask, lambda: self._summarise(mask))

    def _summarise(self, mask: np.ndarray) -> CandidateSummary:
        n = int(np.count_nonzero(mask))
        # A sum over the mask, not a gather: no copy of a million lengths per new candidate set.
        avg_len = max(1.0, float(np.sum(self.doc_len, where=mask)) / n) if n else 1.0
        return CandidateSummary(n, avg_len, n == mask.size)

    def _length_norm(self, rows: np.ndarray, summary: CandidateSummary) -> np.ndarray:
        """`k1·(1 − b + b·L/avgLen)` of the given documents over the candidate set of `summary`."""
        return at_rows(summary.cached, "length_norm", rows,
                       lambda at: K1 * (1.0 - B + B * self.doc_len[at] / summary.avg_len))  # fmt: skip

    def score(self, query: str | Sequence[str], candidates: np.ndarray | None = None) -> Bm25Scores:
        """Score every document against the query; only `candidates` (a boolean mask) take part.

        For each distinct query term t: `idf(t) = ln(1 + (N − n_t + 0.5) / (n_t + 0.5))`, and a
        document with count f of t and length L gains `idf · f·(k1+1) / (f + k1·(1 − b + b·L/avgLen))`
        with k1 = 1.2, b = 0.75, avgLen = max(1, mean candidate length). Terms outside the vocabulary
        contribute nothing. Contributions are summed in query-term order, as the original does.
        """
        tokens = self.analyzer(query) if isinstance(query, str) else list(query)
        terms = query_terms(tokens)
        mask = np.ones(self.n_docs, dtype=bool) if candidates is None else np.asarray(candidates, bool)
        summary = self.summary(mask)
        n_candidates, avg_len = summary.n, summary.avg_len
        scores = np.zeros(self.n_docs, dtype=np.float64)
        known = [(term, self.vocabulary[term]) for term in terms if term in self.vocabulary]
        if not known or n_candidates == 0:
            return Bm25Scores(scores, terms, self._zero_stats(terms, n_candidates), avg_len, n_candidates)

        rows, term_idx, freq = self._postings([col for _, col in known], mask, summary.every)
        df = np.bincount(term_idx, minlength=len(known))
        idf = np.log(1.0 + (n_candidates - df + 0.5) / (df + 0.5))
        contribution = idf[term_idx] * (freq * (K1 + 1.0)) / (freq + self._length_norm(rows, summary))
        # Postings come term by term in query order, and bincount adds in array order: each
        # document's sum runs in query-term order, as the original's does, with no sort.
        scores += np.bincount(rows, weights=contribution, minlength=self.n_docs)

        by_term = {term: (int(df[i]), float(idf[i])) for i, (term, _) in enumerate(known)}
        stats = tuple(TermStats(term, *by_term.get(term, (0, _idf(n_candidates, 0)))) for term in terms)
        return Bm25Scores(scores, terms, stats, avg_len, n_candidates)

    def score_weighted(self, weights: Mapping[str, float], candidates: np.ndarray) -> np.ndarray:
        """BM25 of a weighted query: each term's contribution (as in `score`) times its weight.

        Used for expansion terms, which carry weights from the relevance model instead of each
        counting once. IDF, N and the average length are over the candidates, as in `score`.
        """
        mask = np.asarray(candidates, dtype=bool)
        scores = np.zeros(self.n_docs, dtype=np.float64)
        known = [(self.vocabulary[t], w) for t, w in weights.items() if t in self.vocabulary and w > 0]
        summary = self.summary(mask)
        n_candidates = summary.n
        if not known or n_candidates == 0:
            return scores
        rows, term_idx, freq = self._postings([col for col, _ in known], mask, summary.every)
        df = np.bincount(term_idx, minlength=len(known))
        idf = np.log(1.0 + (n_candidates - df + 0.5) / (df + 0.5))
        weighted_idf = np.array([w for _, w in known], dtype=np.float64) * idf  # per term, then per posting
        contribution = weighted_idf[term_idx] * (freq * (K1 + 1.0)) / (freq + self._length_norm(rows, summary))
        return scores + np.bincount(rows, weights=contribution, minlength=self.n_docs)

    def document_frequency(self, columns: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """How many candidates hold each vocabulary column in `columns`."""
        mask = np.asarray(candidates, dtype=bool)
        if self.summary(mask).every:  # every document: a column's posting count is its frequency
            return self.counts.column_counts(columns)
        _, term_idx, _ = self._postings(columns, mask)
        return np.bincount(term_idx, minlength=len(columns))

    def _postings(self, columns, mask: np.ndarray, every: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(document, position in `columns`, count) of every candidate posting of the given columns.

        Read straight from the CSC arrays: a query has a handful of terms, and slicing the matrix
        through scipy costs more in bookkeeping than the gather itself. `every`: the mask holds
        every document, so nothing is filtered.
        """
        rows, term_idx, freq = self.counts.column_entries(columns)
        if every:
            return rows, term_idx, freq
        keep = mask[rows]
        return rows[keep], term_idx[keep], freq[keep]

    def idf(self, columns: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """The BM25 IDF over the candidates of each vocabulary column in `columns`."""
        df = self.document_frequency(columns, candidates).astype(np.float64)
        n = float(self.summary(np.asarray(candidates, dtype=bool)).n)
        return np.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def document_postings(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(position in `docs`, vocabulary column, count) of every term the given documents hold."""
        rows = self._row_major()
        positions, doc_idx = major_runs(rows.indptr, docs)
        return doc_idx, rows.indices[positions], rows.data[positions]

    def document_columns(self, doc: int) -> np.ndarray:
        """The vocabulary columns document `doc` holds (a slice of the row-major index, no copy)."""
        rows = self._row_major()
        return rows.indices[rows.indptr[doc] : rows.indptr[doc + 1]]

    def _row_major(self) -> GrowingCsr:
        if self._rows is None:
            with self._lock:
                if self._rows is None:
                    self._rows = GrowingCsr(_with_columns_csr(self.counts))
        return self._rows

    def term_names(self) -> list[str]:
        """The term of each vocabulary column, in column order."""
        if self._terms is None:
            with self._lock:
                if self._terms is None:
                    self._terms = list(self.vocabulary)
                    self._added.clear()
        return self._terms

    def term_counts(self, doc: int, terms: Sequence[str]) -> list[int]:
        """How often each of `terms` occurs in document `doc` (0 for unknown terms)."""
        counts = []
        for term in terms:
            col = self.vocabulary.get(term)
            counts.append(0 if col is None else int(self._row_count(doc, col)))
        return counts

    def _row_count(self, doc: int, col: int) -> float:
        rows = self._row_major()
        start, end = rows.indptr[doc], rows.indptr[doc + 1]
        hit = np.flatnonzero(rows.indices[start:end] == col)
        return rows.data[start + hit[0]] if hit.size else 0

    def _zero_stats(self, terms: tuple[str, ...], n_candidates: int) -> tuple[TermStats, ...]:
        return tuple(TermStats(term, 0, _idf(n_candidates, 0)) for term in terms)


def _idf(n: int, df: int) -> float:
    return float(np.log(1.0 + (n - df + 0.5) / (df + 0.5)))


def term_contribution(idf: float, freq: int, doc_len: float, avg_len: float) -> float:
    """One term's BM25 contribution to one document, written out for explanations.

    Same arithmetic as `Bm25Index.score`, so the explained parts add up to the scored total.
    """
    if freq <= 0:
        return 0.0
    norm = K1 * (1.0 - B + B * doc_len / avg_len)
    return idf * (freq * (K1 + 1.0)) / (freq + norm)


def _with_columns_csr(counts: AppendableCsc) -> sparse.csr_matrix:
    """The row-major copy of the term counts, part by part (no merged CSC is made for it)."""
    n_columns = counts.shape[1]
    parts = [with_columns(matrix, n_columns).tocsr() for _, matrix in counts.parts]
    return parts[0] if len(parts) == 1 else sparse.vstack(parts, format="csr")
