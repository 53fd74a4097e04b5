"""Every pair of token sets with Jaccard similarity above a bar, exactly, without comparing all pairs.

Used by contradiction detection (ENGINE-SPEC §4.3), whose candidates must share at least a fifth of
their words. See `iter_jaccard_pairs` for the method (prefix filtering).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from memory.engine.maintenance.similarity import PairSet


def _at_least(fraction: float, size: np.ndarray) -> np.ndarray:
    """ceil(fraction · size), rounded DOWN across float noise: a smaller bound keeps prefixes safe."""
    return np.ceil(fraction * size - 1e-9).astype(np.int64)


@dataclass(frozen=True)
class JaccardBlock:
    """One block of `iter_jaccard_pairs`: pairs `(i, j)` (i < j) with their overlap and union sizes."""

    i: np.ndarray
    j: np.ndarray
    overlap: np.ndarray
    union: np.ndarray
    candidates: int

    @property
    def jaccard(self) -> np.ndarray:
        return self.overlap / self.union


def jaccard_pairs(sets: Sequence[Collection[str]], threshold: float, *, block_rows: int = 2048) -> PairSet:
    """Every pair of token sets with Jaccard |A∩B| / |A∪B| ≥ `threshold`, exactly, sorted by (i, j).

    See `iter_jaccard_pairs` for the method; this collects its blocks.
    """
    lefts, rights, scores = [], [], []
    candidates = 0
    for block in iter_jaccard_pairs(sets, threshold, block_rows=block_rows):
        lefts.append(block.i)
        rights.append(block.j)
        scores.append(block.jaccard)
        candidates += block.candidates
    if not lefts:
        none = np.zeros(0, dtype=np.int64)
        return PairSet(none, none.copy(), np.zeros(0, dtype=np.float64), "prefix", candidates)
    left, right, score = np.concatenate(lefts), np.concatenate(rights), np.concatenate(scores)
    order = np.lexsort((right, left))
    return PairSet(left[order], right[order], score[order], "prefix", candidates)


def iter_jaccard_pairs(
    sets: Sequence[Collection[str]], threshold: float, *, block_rows: int = 2048
) -> Iterator[JaccardBlock]:
    """Yield, block by block, every pair of token sets with Jaccard ≥ `threshold`: exact, never all pairs.

    Prefix filtering: order all tokens by how many sets hold them (rarest first) and sort every set
    that way. If J(x, y) ≥ t and |y| ≤ |x|, the overlap o = |x∩y| is at least t·|x| and at least
    2t/(1+t)·|y|; the rarest shared token then lies among the first |x| − ⌈t·|x|⌉ + 1 tokens of x
    AND among the first |y| − ⌈2t/(1+t)·|y|⌉ + 1 tokens of y (every shared token sits at or after it
    in both sets, and there are o of them). So only pairs whose two prefixes share a token can
    qualify; those candidates come from one sparse product per block of rows and are then counted
    exactly. A size filter (|y| ≥ t·|x|) prunes further. Frequent tokens fall out of the prefixes,
    which is what keeps the candidates few. An empty set never pairs (its Jaccard is 0).

    Streaming keeps memory bounded by one block when the answer itself is huge.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError("a Jaccard threshold must lie in (0, 1]")
    n = len(sets)
    document_frequency: dict[str, int] = {}
    for tokens in sets:
        for token in tokens:
            document_frequency[token] = document_frequency.get(token, 0) + 1
    if n < 2 or not document_frequency:
        return
    by_rarity = sorted(document_frequency, key=lambda token: (document_frequency[token], token))
    rank = {token: position for position, token in enumerate(by_rarity)}
    ranked = [sorted(rank[token] for token in set(tokens)) for tokens in sets]
    size = np.array([len(tokens) for tokens in ranked], dtype=np.int64)
    indptr = np.concatenate(([0], np.cumsum(size)))
    indices = np.fromiter((r for tokens in ranked for r in tokens), dtype=np.int64, count=int(indptr[-1]))
    position_in_row = np.arange(len(indices)) - np.repeat(indptr[:-1], size)
    rows_of_entries = np.repeat(np.arange(n), size)

    # Rows in (size, index) order: a row is only compared with rows before it, never smaller than t·|x|.
    order = np.lexsort((np.arange(n), size))
    order = order[size[order] > 0]
    if len(order) < 2:
        return
    place = np.full(n, -1, dtype=np.int64)
    place[order] = np.arange(len(order))

    def prefix_matrix(lengths: np.ndarray) -> sparse.csr_matrix:
        keep = position_in_row < lengths[rows_of_entries]
        return sparse.csr_matrix(
            (np.ones(int(keep.sum()), dtype=np.int32), (place[rows_of_entries[keep]], indices[keep])),
            shape=(len(order), len(by_rarity)),
        )

    probe = prefix_matrix(size - _at_least(threshold, size) + 1)
    indexed = prefix_matrix(size - _at_least(2 * threshold / (1 + threshold), size) + 1).T.tocsr()
    padded = _PaddedSets(indices, indptr, size)
    sorted_sizes = size[order]
    for start in range(0, len(order), block_rows):
        stop = min(len(order), start + block_rows)
        # Smallest partner size the smallest row of this block can have.
        lowest = int(np.searchsorted(sorted_sizes, threshold * sorted_sizes[start] - 1e-9, side="left"))
        product = (probe[start:stop] @ indexed[:, lowest:stop]).tocoo()
        row_place = product.row.astype(np.int64) + start
        col_place = product.col.astype(np.int64) + lowest
        keep = (col_place < row_place) & (
            sorted_sizes[col_place] >= threshold * sorted_sizes[row_place] - 1e-9
        )
        x, y = order[row_place[keep]], order[col_place[keep]]
        if len(x) == 0:
            continue
        overlap = padded.overlaps(x, y)
        union = size[x] + size[y] - overlap
        good = overlap / union >= threshold
        x, y = x[good], y[good]
        yield JaccardBlock(np.minimum(x, y), np.maximum(x, y), overlap[good], union[good], len(good))


class _PaddedSets:
    """Sorted token ranks of every set as fixed-width rows, for counting overlaps of many pairs at once."""

    WIDTH = 64

    def __init__(self, indices: np.ndarray, indptr: np.ndarray, size: np.ndarray) -> None:
        self.indices, self.indptr, self.size = indices, indptr, size
        width = int(min(self.WIDTH, size.max()))
        slots = indptr[:-1, None] + np.arange(width)[None, :]
        inside = np.arange(width)[None, :] < size[:, None]
        values = indices[np.minimum(slots, len(indices) - 1)].astype(np.int32)
        # Different padding on the two sides, so padding never matches padding.
        self.left = np.where(inside, values, -1)
        self.right = np.where(inside, values, -2)

    def overlaps(self, x: np.ndarray, y: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
        """|set x ∩ set y| for each pair; `y` is never the larger set."""
        out = np.empty(len(x), dtype=np.int64)
        wide = self.size[x] > self.left.shape[1]
        for start in range(0, len(x), chunk):
            xs, ys = x[start : start + chunk], y[start : start + chunk]
            narrow = ~wide[start : start + chunk]
            wx = int(self.size[xs].max(initial=1)) if narrow.all() else self.left.shape[1]
            wy = min(wx, int(self.size[ys].max(initial=1)))
            equal = self.left[xs, :wx][:, :, None] == self.right[ys, :wy][:, None, :]
            out[start : start + chunk] = equal.sum(axis=(1, 2))
        # Sets longer than the padded width (very long contents) are rare: count those exactly one by one.
        for k in np.flatnonzero(wide):
            a = self.indices[self.indptr[x[k]] : self.indptr[x[k] + 1]]
            b = self.indices[self.indptr[y[k]] : self.indptr[y[k] + 1]]
            out[k] = len(np.intersect1d(a, b, assume_unique=True))
        return out
