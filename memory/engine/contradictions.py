"""Contradiction candidates: same origin, same segment, shared subject, diverging claim (ENGINE-SPEC §4.3).

Surface-only: the result goes to a review queue and nothing is invalidated. The original compares all
pairs of the list it is given; here every (origin, segment) group is joined on token Jaccard with
prefix filtering (`jaccard_join.iter_jaccard_pairs`), which is exact, and only the joined pairs are
scored. Because a pair's score is at most its overlap, the join can use the larger of `min_overlap`
and `threshold` as its bar without losing anything.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.engine.jaccard_join import iter_jaccard_pairs
from memory.engine.maintenance import MaintFact, origin_order
from memory.engine.tokenize import token_set

THRESHOLD = 0.12
MIN_OVERLAP = 0.2
# Above this share of a block's (rows × group) cells, one matrix product beats gathering pairs.
_DENSE_SHARE = 1 / 24


@dataclass(frozen=True)
class Contradiction:
    """`a` (the newer fact) may contradict `b`. score = overlap · divergence.

    `basis` says where the divergence came from: "embedding" (1 − max(0, cosine)) when both facts
    carry vectors of the same length, else "tokens" (|A △ B| / |A ∪ B|).
    """

    a: str
    b: str
    origin_key: str
    segment: str
    overlap: float
    divergence: float
    score: float
    basis: str


@dataclass(frozen=True)
class ContradictionReport:
    """The candidates, best first; `found` counts all that qualified even when `limit` kept fewer."""

    items: tuple[Contradiction, ...]
    found: int
    candidates: int
    threshold: float
    min_overlap: float


def find_contradictions(
    facts: Sequence[MaintFact],
    *,
    threshold: float = THRESHOLD,
    min_overlap: float = MIN_OVERLAP,
    limit: int | None = None,
) -> ContradictionReport:
    """Pairs of active facts of the same origin and segment that share words but say different things.

    For each such pair: overlap = Jaccard of the token sets (0 if either is empty), skipped below
    `min_overlap`; divergence = 1 − max(0, cosine) of the embeddings when both have one of equal
    length, else the token symmetric-difference ratio; kept when overlap · divergence ≥ `threshold`.
    Never across origins (a principal's facts are only compared with its own). `a` is the newer fact
    (larger created_at; a tie goes to the larger memory id). Sorted by score, best first, then by the
    ids of `a` and `b`; `limit` keeps only the first `limit` (memory stays bounded on huge scopes).
    """
    bar = max(min_overlap, threshold)
    if bar <= 0:
        raise ValueError("min_overlap or threshold must be above 0")
    groups: dict[tuple[str, str], list[MaintFact]] = defaultdict(list)
    for fact in sorted((f for f in facts if f.is_active), key=lambda f: f.memory_id):
        groups[(fact.origin_key, fact.segment)].append(fact)
    kept: list[tuple[float, str, str, Contradiction]] = []
    found = candidates = 0
    for key in origin_order(k for k, _ in groups):
        for segment in sorted(s for k, s in groups if k == key):
            group = groups[(key, segment)]
            vectors = _Vectors(group)
            created = np.array([f.created_at for f in group], dtype=np.int64)
            for block in iter_jaccard_pairs([token_set(f.content) for f in group], bar):
                candidates += block.candidates
                overlap = block.overlap / block.union
                has_vectors = vectors.comparable(block.i, block.j)
                divergence = (block.union - block.overlap) / block.union
                if has_vectors.any():
                    cosine = vectors.cosines(block.i[has_vectors], block.j[has_vectors])
                    divergence[has_vectors] = 1.0 - np.maximum(0.0, cosine)
                score = overlap * divergence
                good = np.flatnonzero((overlap >= min_overlap) & (score >= threshold))
                found += len(good)
                if limit is not None and len(good) > limit:
                    # Only the best `limit` of a block can make the final list; ties at the cut stay in.
                    cut = np.partition(score[good], len(good) - limit)[len(good) - limit]
                    good = good[score[good] >= cut]
                x, y = block.i[good], block.j[good]
                # Rows are in memory-id order, so on equal created_at the larger row is the larger id.
                x_newer = (created[x] > created[y]) | ((created[x] == created[y]) & (x > y))
                newer, older = np.where(x_newer, x, y), np.where(x_newer, y, x)
                for k, a, b in zip(good.tolist(), newer.tolist(), older.tolist(), strict=True):
                    item = Contradiction(
                        group[a].memory_id, group[b].memory_id, key, segment, float(overlap[k]),
                        float(divergence[k]), float(score[k]), "embedding" if has_vectors[k] else "tokens",
                    )  # fmt: skip
                    kept.append((-item.score, item.a, item.b, item))
                if limit is not None and len(kept) > 2 * limit + 1024:
                    kept = sorted(kept)[:limit]
    kept.sort()
    if limit is not None:
        kept = kept[:limit]
    return ContradictionReport(tuple(item for *_, item in kept), found, candidates, threshold, min_overlap)


class _Vectors:
    """The group's embeddings by length, for the cosine of many pairs at once."""

    def __init__(self, group: Sequence[MaintFact]) -> None:
        lengths = [len(f.embedding) if f.embedding is not None else 0 for f in group]
        self.length = np.asarray(lengths, dtype=np.int64)
        self.row = np.full(len(group), -1, dtype=np.int64)
        self.matrix: dict[int, np.ndarray] = {}
        self.norm: dict[int, np.ndarray] = {}
        for size in set(lengths) - {0}:
            members = [k for k, n in enumerate(lengths) if n == size]
            self.row[members] = np.arange(len(members))
            matrix = np.asarray([group[k].embedding for k in members], dtype=np.float64)
            self.matrix[size] = matrix
            self.norm[size] = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))

    def comparable(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return (self.length[i] > 0) & (self.length[i] == self.length[j])

    def cosines(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """a·b / (|a|·|b|) per pair (0 when a norm is 0), by matrix product when the pairs are dense."""
        out = np.zeros(len(i), dtype=np.float64)
        for size, matrix in self.matrix.items():
            mine = np.flatnonzero(self.length[i] == size)
            if len(mine) == 0:
                continue
            ri, rj = self.row[i[mine]], self.row[j[mine]]
            norms = self.norm[size][ri] * self.norm[size][rj]
            rows = np.unique(ri)
            if len(mine) > _DENSE_SHARE * len(rows) * len(matrix):
                dots = np.empty(len(mine), dtype=np.float64)
                where = np.searchsorted(rows, ri)
                for start in range(0, len(rows), 256):
                    part = (where >= start) & (where < start + 256)
                    block = matrix[rows[start : start + 256]] @ matrix.T
                    dots[part] = block[where[part] - start, rj[part]]
            else:
                dots = np.empty(len(mine), dtype=np.float64)
                for start in range(0, len(mine), 1024):
                    stop = start + 1024
                    dots[start:stop] = np.einsum("ij,ij->i", matrix[ri[start:stop]], matrix[rj[start:stop]])
            cos = np.zeros(len(mine), dtype=np.float64)
            np.divide(dots, norms, out=cos, where=norms > 0)
            out[mine] = cos
        return out
