"""Synonymy: pairs of facts whose vectors point the same way (ENGINE-SPEC §5.6 `synonymyEdges`).

The dream merges the pairs above its consolidate bar and links those above its relate bar. The
original compares all pairs of at most 500 facts; here `similarity.cosine_pair_chunks` covers any number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.engine.maintenance.plans import MaintFact
from memory.engine.maintenance.similarity import (
    DEFAULT_EXACT_LIMIT,
    DEFAULT_SEED,
    DEFAULT_TARGET_MISS,
    LshParams,
    PairSet,
    cosine_pair_chunks,
)
from memory.engine.recall.hrr import HrrEmbedder

RELATES_THRESHOLD = 0.8


@dataclass(frozen=True)
class BucketStats:
    """How one origin's similar pairs were found (for the run event and the benchmark)."""

    origin_key: str
    active: int
    method: str
    candidates: int
    pairs: int
    lsh: LshParams | None


def bucket_vectors(bucket: Sequence[MaintFact], embedder: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The bucket's vectors as (bucket rows, matrix) groups, one per vector length (lengths never pair).

    Vectors are the stored embeddings; a missing one is embedded from the content (`HrrEmbedder`
    unless another embedder is given). The usual case from the database (nothing stored) is one
    float32 matrix, kept float32: the searches widen blocks to float64 where they score."""
    vectors: list[Any] = [fact.embedding for fact in bucket]
    missing = [k for k, vector in enumerate(vectors) if vector is None or len(vector) == 0]
    if missing:
        embedded = (embedder or HrrEmbedder()).embed([bucket[k].content for k in missing])
        if len(missing) == len(bucket) and isinstance(embedded, np.ndarray) and embedded.ndim == 2:
            return [(np.arange(len(bucket)), np.asarray(embedded))] if len(bucket) >= 2 else []
        for k, vector in zip(missing, embedded, strict=True):
            vectors[k] = vector
    groups = []
    if len(bucket) >= 2:
        by_length: dict[int, list[int]] = defaultdict(list)
        for k, vector in enumerate(vectors):
            by_length[len(vector)].append(k)
        for rows in by_length.values():
            if len(rows) >= 2:
                # float32 rows stay float32; the search widens any other type (`similarity._prepare`).
                groups.append((np.asarray(rows), np.asarray([vectors[k] for k in rows])))
    return groups


def similar_pair_chunks(
    groups: Sequence[tuple[np.ndarray, np.ndarray]],
    bar: float,
    exact_limit: int,
    target_miss: float,
    seed: int,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, PairSet]]:
    """(left rows, right rows, cosines, the search's pair set) in pieces, left < right in bucket rows.

    The pieces partition the pairs at or above `bar` (see `similarity.cosine_pair_chunks`), in no
    particular order; `progress(done, total)` hears of each piece of each vector-length group."""
    for index, matrix in groups:
        for result in cosine_pair_chunks(matrix, bar, exact_limit=exact_limit, seed=seed,
                                         target_miss=target_miss, workers=workers, progress=progress):  # fmt: skip
            # `result.i < result.j` and the rows are ascending, so the left row is the smaller id.
            yield index[result.i], index[result.j], result.score, result


def similar_pair_arrays(
    bucket: Sequence[MaintFact],
    bar: float,
    embedder: Any,
    exact_limit: int,
    target_miss: float,
    seed: int,
    workers: int,
    groups: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, BucketStats]:
    """Bucket rows `i < j` whose vectors have cosine ≥ bar, and the cosines, strongest first.

    Arrays, not fact tuples: a large origin has hundreds of thousands of pairs. Facts whose vectors
    differ in length never pair (their cosine is 0). Bucket rows are in memory-id order, so ties in
    similarity fall to the ids. `groups` are the bucket's vectors when already computed;
    `progress(done, total)` hears of each slice of the search.
    """
    groups = bucket_vectors(bucket, embedder) if groups is None else groups
    lefts, rights, scores = [], [], []
    stats = PairStats()
    for left, right, sims, result in similar_pair_chunks(groups, bar, exact_limit, target_miss, seed, workers, progress):
        lefts.append(left)
        rights.append(right)
        scores.append(sims)
        stats.add(result)
    if lefts:
        left, right, sims = np.concatenate(lefts), np.concatenate(rights), np.concatenate(scores)
    else:
        left, right, sims = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    order = np.lexsort((right, left, -sims))
    key = bucket[0].origin_key if bucket else ""
    return left[order], right[order], sims[order], stats.of(key, len(bucket))


@dataclass
class PairStats:
    """Running totals of the searches over one bucket, for its `BucketStats`."""

    method: str = "exact"
    candidates: int = 0
    pairs: int = 0
    params: LshParams | None = None

    def add(self, result: PairSet) -> None:
        self.candidates += result.candidates
        self.pairs += len(result)
        if result.method == "lsh":
            self.method, self.params = "lsh", result.lsh

    def of(self, key: str, active: int) -> BucketStats:
        return BucketStats(key, active, self.method, self.candidates, self.pairs, self.params)


def similar_pairs(
    bucket: Sequence[MaintFact],
    bar: float,
    embedder: Any,
    exact_limit: int,
    target_miss: float,
    seed: int,
    workers: int,
) -> tuple[list[tuple[MaintFact, MaintFact, float]], BucketStats]:
    """`similar_pair_arrays` as (a, b, cosine) fact tuples, a.memory_id < b.memory_id, strongest first."""
    left, right, sims, stats = similar_pair_arrays(bucket, bar, embedder, exact_limit, target_miss, seed, workers)
    rows = zip(left.tolist(), right.tolist(), sims.tolist(), strict=True)
    pairs = [(bucket[i], bucket[j], sim) for i, j, sim in rows]
    return pairs, stats


@dataclass(frozen=True)
class SynonymyEdge:
    """Two facts whose vectors have cosine ≥ the bar; `source` < `target` in id order."""

    source: str
    target: str
    similarity: float


def synonymy_edges(
    facts: Sequence[MaintFact],
    threshold: float = RELATES_THRESHOLD,
    *,
    embedder: Any = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    target_miss: float = DEFAULT_TARGET_MISS,
    seed: int = DEFAULT_SEED,
) -> list[SynonymyEdge]:
    """Every pair of the given facts with cosine ≥ `threshold`, strongest first (§5.6 `synonymyEdges`).

    Stored embeddings are used, missing ones embedded from the content. Unlike the original there is
    no 500-fact cap: candidates come from `cosine_pairs`. Callers pass one origin's facts.
    """
    bucket = sorted(facts, key=lambda f: f.memory_id)
    pairs, _ = similar_pairs(bucket, threshold, embedder, exact_limit, target_miss, seed, workers=2)
    return [SynonymyEdge(a.memory_id, b.memory_id, sim) for a, b, sim in pairs]
