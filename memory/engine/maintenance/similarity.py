"""All pairs above a similarity bar, without comparing every pair (ENGINE-SPEC Decision 1, §12).

The maintenance passes need "every pair of facts whose vectors have cosine ≥ t" (the dream's
consolidate and relate steps, §4.2 and §5.6) and "every pair of token sets with Jaccard ≥ t"
(contradiction candidates, §4.3). The original compares all pairs of at most 500 facts; here a whole
origin scope of 100,000 facts is covered. Both searches generate candidates cheaply and then score
only the candidates exactly, so the answer always carries exact similarities.

* `jaccard_join.jaccard_pairs` is exact: prefix filtering proves a pair it never scores is below the bar.
* `cosine_pairs` is exact for small inputs (a blocked matrix product) and probabilistic above
  `exact_limit` rows: random-hyperplane LSH with banding, followed by two Hamming-distance filters.
  A pair at exactly the threshold is missed with probability at most `target_miss` (1e-3 by default);
  a pair above the threshold is missed less often. `LshParams.miss_bound` states the bound for the
  chosen parameters and `lsh_miss_probability` gives the exact figure for any similarity.

Everything is deterministic: the hyperplanes come from a fixed seed, rows are processed in index
order and results are sorted, so the same input always yields the same pairs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from memory.engine.recall.heap import release_free_memory

DEFAULT_SEED = 0x7D1E5EED
DEFAULT_TARGET_MISS = 1e-3
DEFAULT_EXACT_LIMIT = 8192
# Float32 products are within ~1e-6 of the float64 cosine for unit vectors of a few hundred
# dimensions; candidates are kept down to this margin and then re-scored in float64.
_FLOAT32_MARGIN = 1e-5
# Float32 rows whose norms all lie this close to 1 are used as the unit rows without dividing.
_UNIT_SLACK = 1e-6
_BLOCK_ROWS = 2048
# Room for candidate codes in one LSH worker's buffer before it folds out the pairs it saw in several
# bands (and grows, if folding leaves it over half full): 160 MB, touched only as it fills.
_HELD_CODES = 20_000_000
# Representative pairs expanded, re-scored in float64 and sorted at once.
_FINISHED_AT_ONCE = 4_000_000
# Candidates whose float32 cosine is computed at once.
_SCORED_AT_ONCE = 4_000_000
_PREPARE_ROWS = 65536
# Band collisions one slice of the LSH search may generate (see `cosine_pair_chunks`): about a
# tenth survive the Hamming filters, a third of those are distinct, so a slice holds some tens of
# millions of candidate codes. Each slice sorts every band again and gathers its signatures in key
# order, so fewer, larger slices are faster; these make thirty-two for the relate bar at a million
# template-heavy facts. Each halving has cost about 5% of the plan's time: sixteen slices instead of
# eight took a gigabyte off the peak, thirty-two instead of sixteen another 0.44 GB (3.46 → 3.02 GB,
# 320 → 335 s, planning a million facts, measured side by side).
SLICE_PAIRS = 250_000_000
# Band collisions generated at once inside one band: bounds the temporary arrays, about 34 bytes per
# collision in each worker. Two slices of the relate search over 770,000 rows ran as fast with 1M as
# with 4M, and 0.1 GB lighter (with 4M candidates scored at once, not 8M; alternated, twice each).
BAND_STEP_PAIRS = 1_000_000


@dataclass(frozen=True)
class PairSet:
    """Pairs `(i[k], j[k])` with `i < j` (row indices of the input) and their exact similarity.

    Sorted by `(i, j)`. `method` says how they were found ("exact", "lsh" or "prefix") and
    `candidates` how many pairs were scored: all pairs of distinct rows for "exact", the pairs left
    after the LSH filters for "lsh", the pairs that passed prefix filtering for "prefix".
    """

    i: np.ndarray
    j: np.ndarray
    score: np.ndarray
    method: str
    candidates: int
    lsh: LshParams | None = None

    def __len__(self) -> int:
        return len(self.i)

    @classmethod
    def empty(cls, method: str) -> PairSet:
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none.copy(), np.zeros(0, dtype=np.float64), method, 0)


# ------------------------------------------------------------------ LSH parameters


@dataclass(frozen=True)
class LshParams:
    """Random-hyperplane LSH with banding, then two Hamming filters.

    Each vector gets `bands × rows` sign bits (one per random Gaussian hyperplane). Two vectors at
    angle θ agree on one bit with probability p = 1 − θ/π (θ = arccos(cosine)), independently per
    hyperplane. A band is `rows` bits; two vectors become candidates when all bits of at least one
    band agree, which happens with probability 1 − (1 − p^rows)^bands. Each candidate must then agree
    on enough of `filter_bits[0]` further bits (Hamming distance ≤ `max_hamming[0]`), and on enough
    of `filter_bits[1]` more (≤ `max_hamming[1]`), before its exact cosine is computed. The filters
    only discard pairs whose estimated angle is far above the threshold's.

    `miss_bound` is an upper bound (union bound over the three stages) on the probability that a
    pair at exactly the threshold is not reported.
    """

    threshold: float
    rows: int
    bands: int
    filter_bits: tuple[int, int]
    max_hamming: tuple[int, int]
    miss_bound: float


def _binomial_tail_above(n: int, q: float, h: int) -> float:
    """P(Binomial(n, q) > h)."""
    if h >= n:
        return 0.0
    if q <= 0.0:
        return 0.0
    if q >= 1.0:
        return 1.0
    log_q, log_1q = math.log(q), math.log1p(-q)
    total = 0.0
    for k in range(h + 1, n + 1):
        log_pmf = (
            math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_q + (n - k) * log_1q
        )
        total += math.exp(log_pmf)
    return min(1.0, total)


def _bit_disagreement(similarity: float) -> float:
    """Probability that one random hyperplane separates two vectors with this cosine: θ/π."""
    return math.acos(max(-1.0, min(1.0, similarity))) / math.pi


def lsh_params(
    threshold: float,
    target_miss: float = DEFAULT_TARGET_MISS,
    rows: int = 16,
    filter_bits: tuple[int, int] = (128, 512),
) -> LshParams:
    """The band count and Hamming cut-offs that miss a threshold pair with probability ≤ `target_miss`.

    Half of the budget goes to the bands (`(1 − p^rows)^bands ≤ target/2`, the fewest bands that do
    it) and a quarter to each filter (the smallest cut-off whose binomial upper tail is ≤ target/4).
    At the dream's bars, with the defaults: cosine 0.8 needs 294 bands, cosine 0.95 needs 38.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError("an LSH threshold must lie in (0, 1]")
    if rows not in (8, 16, 32):
        raise ValueError("rows per band must be 8, 16 or 32 (one machine word per band key)")
    if any(bits % 64 for bits in filter_bits):
        raise ValueError("filter sizes must be multiples of 64 bits")
    q = _bit_disagreement(threshold)
    p_band = (1.0 - q) ** rows
    if p_band >= 1.0:
        bands = 1
        band_miss = 0.0
    else:
        bands = max(1, math.ceil(math.log(target_miss / 2) / math.log1p(-p_band)))
        band_miss = (1.0 - p_band) ** bands
    cutoffs = []
    tails = []
    for bits in filter_bits:
        h = 0
        while _binomial_tail_above(bits, q, h) > target_miss / 4:
            h += 1
        cutoffs.append(h)
        tails.append(_binomial_tail_above(bits, q, h))
    bound = band_miss + sum(tails)
    return LshParams(threshold, rows, bands, tuple(filter_bits), (cutoffs[0], cutoffs[1]), bound)


def lsh_miss_probability(similarity: float, params: LshParams) -> float:
    """Exact probability that a pair with this cosine is not reported by the LSH search.

    The three stages use disjoint hyperplanes, so they are independent: the pair is found when some
    band collides AND both filters pass. The value falls as the similarity rises.
    """
    q = _bit_disagreement(similarity)
    collide = 1.0 - (1.0 - (1.0 - q) ** params.rows) ** params.bands
    passes = 1.0
    for bits, cutoff in zip(params.filter_bits, params.max_hamming, strict=True):
        passes *= 1.0 - _binomial_tail_above(bits, q, cutoff)
    return 1.0 - collide * passes


# ------------------------------------------------------------------ cosine


def cosine_pairs(
    vectors: np.ndarray | Sequence[Sequence[float]],
    threshold: float,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    seed: int = DEFAULT_SEED,
    target_miss: float = DEFAULT_TARGET_MISS,
    rows: int = 16,
    workers: int = 2,
) -> PairSet:
    """Every pair of rows whose cosine is ≥ `threshold`, with the cosine in float64.

    The cosine is `a·b / (|a|·|b|)`; a zero row never pairs. Up to `exact_limit` distinct rows the
    search is exact (a blocked float32 product over the upper triangle, then float64 re-scoring);
    above it, LSH generates the candidates (see `LshParams`), so a pair at the threshold is missed
    with probability ≤ `target_miss`. Identical rows are collapsed first and always paired with each
    other, so duplicates cost nothing and are never missed. The threshold must lie in (0, 1].
    """
    chunks = list(cosine_pair_chunks(vectors, threshold, exact_limit=exact_limit, seed=seed,
                                     target_miss=target_miss, rows=rows, workers=workers))  # fmt: skip
    if not chunks:
        return PairSet.empty("exact")
    if len(chunks) == 1:
        return chunks[0]
    left = np.concatenate([chunk.i for chunk in chunks])
    right = np.concatenate([chunk.j for chunk in chunks])
    sims = np.concatenate([chunk.score for chunk in chunks])
    order = np.lexsort((right, left))
    first = chunks[0]
    scored = sum(chunk.candidates for chunk in chunks)
    return PairSet(left[order], right[order], sims[order], first.method, scored, first.lsh)


def cosine_pair_chunks(
    vectors: np.ndarray | Sequence[Sequence[float]],
    threshold: float,
    *,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    seed: int = DEFAULT_SEED,
    target_miss: float = DEFAULT_TARGET_MISS,
    rows: int = 16,
    workers: int = 2,
    slice_pairs: int = SLICE_PAIRS,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[PairSet]:
    """`cosine_pairs` in pieces whose union is exactly its answer, each piece sorted by `(i, j)`.

    Above `exact_limit` rows the LSH search runs once per slice of rows (a pair belongs to the
    slice of its smaller row), so the candidates held at once stay near `slice_pairs` band
    collisions however large the input: at a million template-heavy facts one pass over every
    band would hold billions. `progress(done, total)` hears of each finished slice. Nothing is
    yielded when no row can pair.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError("a cosine threshold must lie in (0, 1]")
    prepared = _prepare(vectors)
    if prepared is None:
        return
    raw, norms, live, unit = prepared
    groups = _collapse_duplicates(unit)
    reps = groups.reps
    if len(reps) <= exact_limit:
        ri, rj = _exact_candidates(unit[reps], threshold)
        scored = len(reps) * (len(reps) - 1) // 2
        yield _finish(ri, rj, groups, range(len(reps)), live, raw, norms, threshold, "exact", scored, None)
        if progress is not None:
            progress(1, 1)
        return
    params = lsh_params(threshold, target_miss, rows)
    # The representatives are read through `reps` (not copied out: a million rows are 1 GB).
    keys, coarse, fine = _signatures(unit, params, seed, reps)
    bounds = _slice_bounds(keys, slice_pairs)
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        ri, rj, scored = _lsh_candidates(unit, threshold, params, seed, workers, rows_from=(lo, hi),
                                         signatures=(keys, coarse, fine), reps=reps)  # fmt: skip
        # A slice's candidates are finished a few million at a time (each piece sorted on its own):
        # the expansion, re-scoring and sort of one slice's 30 million pairs at once took 2 GB.
        for start in range(0, max(1, len(ri)), _FINISHED_AT_ONCE):
            stop = start + _FINISHED_AT_ONCE
            yield _finish(ri[start:stop].astype(np.int64), rj[start:stop].astype(np.int64), groups,
                          range(lo, hi) if start == 0 else range(0),
                          live, raw, norms, threshold, "lsh", scored if start == 0 else 0, params)  # fmt: skip
        del ri, rj
        release_free_memory()  # the slice's scratch arrays, held by the C heap otherwise
        if progress is not None:
            progress(k + 1, len(bounds) - 1)


def _prepare(vectors) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(rows as given, their float64 norms, the non-zero rows, those rows as float32 unit vectors).

    Float32 input stays float32 (a million 256-d rows are 1 GB, not 2): each block is widened to
    float64 where it is used, which gives the same values as widening everything first."""
    raw = np.asarray(vectors)
    if raw.dtype not in (np.float32, np.float64):
        raw = raw.astype(np.float64)
    if raw.ndim != 2 or raw.shape[0] < 2 or raw.shape[1] == 0:
        return None
    norms = np.empty(len(raw), dtype=np.float64)
    for start in range(0, len(raw), _PREPARE_ROWS):
        block = raw[start : start + _PREPARE_ROWS].astype(np.float64, copy=False)
        norms[start : start + _PREPARE_ROWS] = np.sqrt(np.einsum("ij,ij->i", block, block))
    live = np.flatnonzero(norms > 0)
    if len(live) < 2:
        return None
    if raw.dtype == np.float32 and len(live) == len(raw) and np.abs(norms - 1.0).max() <= _UNIT_SLACK:
        # Already unit rows (embedders store them so): dividing again would only copy 1 GB at a
        # million rows. The LSH planes see the same signs, and the float32 cosines move by far
        # less than `_FLOAT32_MARGIN`; every kept pair is re-scored from `raw` in float64 anyway.
        return raw, norms, live, raw
    unit = np.empty((len(live), raw.shape[1]), dtype=np.float32)
    for start in range(0, len(live), _PREPARE_ROWS):
        rows = live[start : start + _PREPARE_ROWS]
        block = raw[rows].astype(np.float64, copy=False)
        unit[start : start + _PREPARE_ROWS] = block / norms[rows, None]
    return raw, norms, live, unit


def _finish(ri, rj, groups: _Groups, within: range, live, raw, norms, threshold, method, scored, params) -> PairSet:
    """Representative pairs → every member pair (plus pairs inside the slice's duplicate groups),
    re-scored exactly in float64, kept at the threshold, sorted by `(i, j)`."""
    left, right = _expand_groups(ri, rj, groups, within)
    left, right = live[left], live[right]
    swap = left > right
    left, right = np.where(swap, right, left), np.where(swap, left, right)
    sims = _exact_cosines(raw, norms, left, right)
    keep = sims >= threshold
    left, right, sims = left[keep], right[keep], sims[keep]
    order = np.lexsort((right, left))
    return PairSet(left[order], right[order], sims[order], method, scored, params)


def _slice_bounds(keys: np.ndarray, slice_pairs: int) -> list[int]:
    """Row boundaries that split the band collisions into slices of about `slice_pairs` each.

    The collisions are estimated from a few bands' key counts. A row pairs with the LATER rows of
    its buckets, so early rows own more pairs: with S slices, boundary k sits at
    n·(1 − √(1 − k/S)), which gives each slice an equal share when keys are spread evenly."""
    bands, n = keys.shape
    sample = np.unique(np.linspace(0, bands - 1, min(bands, 8)).astype(int))
    per_band = []
    for band in sample:
        counts = np.bincount(keys[band], minlength=1).astype(np.int64)
        per_band.append(int((counts * (counts - 1) // 2).sum()))
    total = sum(per_band) / len(per_band) * bands
    slices = max(1, min(n, math.ceil(total / max(1, slice_pairs))))
    edges = [int(round(n * (1.0 - math.sqrt(1.0 - k / slices)))) for k in range(slices + 1)]
    edges[0], edges[-1] = 0, n
    return sorted(set(edges))


def offsets_within_runs(lengths: np.ndarray) -> np.ndarray:
    """0, 1, …, length − 1 for each run in turn: [2, 3] → [0, 1, 0, 1, 2] (numpy, no Python loop)."""
    return np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)


@dataclass(frozen=True)
class _Groups:
    """Groups of identical rows: group g's member rows are `flat[start[g] : start[g] + size[g]]`
    (ascending), and `reps[g]` is its first row; groups are numbered in the order of those rows."""

    reps: np.ndarray
    flat: np.ndarray
    start: np.ndarray
    size: np.ndarray

    def members(self, g: int) -> np.ndarray:
        return self.flat[self.start[g] : self.start[g] + self.size[g]]


def _collapse_duplicates(unit: np.ndarray) -> _Groups:
    """The groups of identical rows (most rows are a group of one).

    Rows are told apart by a 64-bit hash of their bytes, and rows sharing a hash are compared byte
    for byte, so nothing is merged by a collision; sorting the rows' bytes themselves (`np.unique`
    on them) took a sorted copy of the whole matrix, 1 GB at a million rows."""
    n = len(unit)
    hashes = _row_hashes(unit)
    order = np.argsort(hashes, kind="stable")  # equal hashes together, rows ascending inside
    ordered = hashes[order]
    run_start = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    run_size = np.diff(np.append(run_start, n))
    shared = np.flatnonzero(run_size > 1)
    for r in shared:  # rows with one hash are identical rows unless the hash collided
        rows = order[run_start[r] : run_start[r] + run_size[r]]
        if not (unit[rows] == unit[rows[0]]).all():  # a collision (or NaN): sort those rows apart
            return _collapse_by_bytes(unit)
    first = order[run_start]  # each run's smallest row
    runs_by_first = np.argsort(first, kind="stable")
    group_of_run = np.empty_like(runs_by_first)
    group_of_run[runs_by_first] = np.arange(len(first))
    group_of_row = np.empty(n, dtype=np.int64)
    group_of_row[order] = np.repeat(group_of_run, run_size)
    return _groups_of(group_of_row, len(first))


def _collapse_by_bytes(unit: np.ndarray) -> _Groups:
    as_bytes = np.ascontiguousarray(unit).view(np.dtype((np.void, unit.shape[1] * unit.itemsize))).ravel()
    _, first, inverse = np.unique(as_bytes, return_index=True, return_inverse=True)
    group_order = np.argsort(first, kind="stable")  # groups in the order of their first rows
    rank = np.empty_like(group_order)
    rank[group_order] = np.arange(len(group_order))
    return _groups_of(rank[inverse.ravel()], len(first))


def _groups_of(group_of_row: np.ndarray, count: int) -> _Groups:
    flat = np.argsort(group_of_row, kind="stable").astype(np.int64)
    size = np.bincount(group_of_row, minlength=count).astype(np.int64)
    start = np.cumsum(size) - size
    return _Groups(flat[start], flat, start, size)


def _row_hashes(unit: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's bytes (a fixed random odd multiplier per 8-byte word, summed)."""
    width = unit.shape[1] * unit.itemsize
    words = np.ascontiguousarray(unit).view(np.uint8).reshape(len(unit), width)
    if width % 8 == 0:
        words = words.view(np.uint64)
    multipliers = np.random.default_rng(0x5EED).integers(0, 1 << 63, words.shape[1], dtype=np.uint64) * 2 + 1
    out = np.empty(len(unit), dtype=np.uint64)
    for start in range(0, len(unit), _PREPARE_ROWS // 8):
        block = words[start : start + _PREPARE_ROWS // 8].astype(np.uint64, copy=False)
        mixed = block * multipliers  # wraps modulo 2⁶⁴
        mixed ^= mixed >> np.uint64(29)
        out[start : start + len(block)] = mixed.sum(axis=1, dtype=np.uint64)
    return out


def _expand_groups(ri: np.ndarray, rj: np.ndarray, groups: _Groups, within: range) -> tuple[np.ndarray, np.ndarray]:
    """Member-level pairs from representative pairs, plus every pair inside a group of duplicates
    of the groups in `within`."""
    sizes, start, flat = groups.size, groups.start, groups.flat
    # Cartesian product of the two groups of each representative pair, without a Python loop.
    count = sizes[ri] * sizes[rj]
    if len(count) and count.max() == 1:  # no duplicates among these pairs: one pair each
        lefts, rights = [groups.reps[ri]], [groups.reps[rj]]
    else:
        local = offsets_within_runs(count)
        width = np.repeat(sizes[rj], count)
        lefts = [flat[np.repeat(start[ri], count) + local // width]]
        rights = [flat[np.repeat(start[rj], count) + local % width]]
    for g in np.flatnonzero(sizes[within.start : within.stop] > 1) + within.start:
        upper_a, upper_b = np.triu_indices(int(sizes[g]), 1)
        members = groups.members(g)
        lefts.append(members[upper_a])
        rights.append(members[upper_b])
    return np.concatenate(lefts), np.concatenate(rights)


def _exact_candidates(unit: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs i < j with float32 cosine ≥ threshold − margin: the upper triangle in row blocks."""
    lefts, rights = [], []
    for start in range(0, len(unit), _BLOCK_ROWS):
        block = unit[start : start + _BLOCK_ROWS] @ unit[start:].T
        rows, cols = np.nonzero(block >= threshold - _FLOAT32_MARGIN)
        upper = cols > rows  # columns are offset by `start` like the rows, so this is j > i
        lefts.append(rows[upper] + start)
        rights.append(cols[upper] + start)
    return np.concatenate(lefts).astype(np.int64), np.concatenate(rights).astype(np.int64)


def _signatures(
    unit: np.ndarray, params: LshParams, seed: int, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Band keys (bands × n) and the two filters' words (words × n), all from one seeded matrix of
    planes, for `unit[rows]` (every row when None)."""
    n, dims = (unit.shape[0] if rows is None else len(rows)), unit.shape[1]
    band_bits = params.rows * params.bands
    total = band_bits + sum(params.filter_bits)
    planes = np.random.default_rng(seed).standard_normal((dims, total)).astype(np.float32)
    key_type = {8: np.uint8, 16: np.uint16, 32: np.uint32}[params.rows]
    # Laid out band by band (and word by word), so that one band's keys, or one filter word of every
    # row, is contiguous; written that way block by block (a transposed copy at the end held the
    # keys twice: 0.9 GB at a million rows).
    keys = np.empty((params.bands, n), dtype=key_type)
    words = [np.empty((bits // 64, n), dtype=np.uint64) for bits in params.filter_bits]
    for start in range(0, n, 4096):
        block = unit[start : start + 4096] if rows is None else unit[rows[start : start + 4096]]
        packed = np.packbits(block @ planes >= 0, axis=1, bitorder="little")
        stop = start + len(block)
        keys[:, start:stop] = packed[:, : band_bits // 8].view(key_type).T
        offset = band_bits // 8
        for target, bits in zip(words, params.filter_bits, strict=True):
            target[:, start:stop] = packed[:, offset : offset + bits // 8].view(np.uint64).T
            offset += bits // 8
    return keys, words[0], words[1]


def _hamming(words: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Differing bits between the filter signatures of each pair (`words` is words × rows).

    This runs on every pair that shares a band key, so it gathers with `take`, XORs in place and
    counts in 16 bits whenever the filter is short enough."""
    distance = np.zeros(len(left), dtype=np.uint16 if len(words) * 64 < 1 << 16 else np.int64)
    for column in words:
        bits = column.take(left)
        np.bitwise_xor(bits, column.take(right), out=bits)
        distance += np.bitwise_count(bits)
    return distance


def _bucket_pairs(keys: np.ndarray, lo: int = 0, hi: int | None = None) -> tuple[np.ndarray, Iterator]:
    """Every pair of rows that share a key, for lower rows in [lo, hi), as positions in key order.

    Returns `order` (the rows that can pair, sorted by key; rows ascend inside each bucket) and an
    iterator of (left, right) position arrays, so `order[left] < order[right]` are the pair's rows.
    Steps hold about `BAND_STEP_PAIRS` pairs each: a crowded band never needs its whole answer in
    memory. Positions rather than rows let a caller gather per-row data once per band in key order,
    after which a bucket's partners sit next to each other in memory."""
    hi = len(keys) if hi is None else hi
    rows = _rows_that_can_pair(keys, lo, hi)
    held = keys[lo:] if rows is None else keys[rows]
    order = np.argsort(held, kind="stable")
    ordered = held[order]
    if rows is None:
        order += lo
    else:
        order = rows[order]
    breaks = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    ends = np.concatenate((breaks, [len(ordered)]))
    owners = np.flatnonzero(order < hi) if hi < len(keys) else np.arange(len(order))
    later = ends[np.searchsorted(ends, owners, side="right")] - owners - 1  # the bucket's rows after it
    busy = later > 0
    return order, _steps(owners[busy], later[busy])


def _rows_that_can_pair(keys: np.ndarray, lo: int, hi: int) -> np.ndarray | None:
    """The rows from `lo` on that a pair owned by [lo, hi) can touch, ascending: the owners and the
    later rows that share a key with one of them; None for every row from `lo` (nothing to leave out).

    Each slice of the search sorts every band again, so what it sorts sets the cost of a slice: at
    a million template-heavy facts this leaves out about half the rows, which cut the per-band work
    of a slice by a third to nearly a half (`_bucket_pairs`, measured band by band)."""
    if hi >= len(keys):
        return None
    later = keys[hi:]
    if keys.dtype.itemsize <= 2:  # one flag per possible key: a 64 KB table for 16-bit keys
        present = np.zeros(1 << (8 * keys.dtype.itemsize), dtype=bool)
        present[keys[lo:hi]] = True
        partners = np.flatnonzero(present[later])
    else:
        partners = np.flatnonzero(np.isin(later, keys[lo:hi]))
    partners += hi
    return np.concatenate((np.arange(lo, hi, dtype=partners.dtype), partners))


def _steps(owners: np.ndarray, later: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(left, right) positions: each owner paired with the `later` positions after it, in steps."""
    reach = np.cumsum(later)
    first = 0
    while first < len(owners):
        done = int(reach[first - 1]) if first else 0
        stop = max(first + 1, int(np.searchsorted(reach, done + BAND_STEP_PAIRS, side="right")))
        step_owners, step_later = owners[first:stop], later[first:stop]
        left = np.repeat(step_owners, step_later)
        yield left, left + 1 + offsets_within_runs(step_later)
        first = stop


def _lsh_candidates(
    unit: np.ndarray,
    threshold: float,
    params: LshParams,
    seed: int,
    workers: int,
    rows_from: tuple[int, int] | None = None,
    signatures: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    reps: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Pairs that collide in some band, pass both Hamming filters and have float32 cosine ≥ bar − margin.

    Pairs of positions in `reps` (the rows of `unit` searched; every row when None), and only those
    whose lower position lies in `rows_from` (every one when None). Also returns how many distinct
    pairs had their cosine computed.
    """
    n = len(unit) if reps is None else len(reps)
    keys, coarse, fine = signatures if signatures is not None else _signatures(unit, params, seed, reps)
    lo, hi = rows_from if rows_from is not None else (0, n)

    def bands(first: int, stop: int) -> np.ndarray:
        # Both filters are applied per band, before deduplication: the pairs a band yields are mostly
        # far apart, and filtering them in the parallel part leaves a short list to sort. (The
        # filters and the collision test commute, so this is the same set as filtering afterwards.)
        codes = CodeBuffer(_HELD_CODES)
        for band in range(first, stop):
            order, steps = _bucket_pairs(keys[band], lo, hi)
            coarse_here = None
            for left, right in steps:
                # The coarse filter reads the signatures in key order (gathered once per band), where
                # a bucket's members are adjacent: most pairs end here, and sequential reads are
                # several times faster than one random read per pair. (`take` along the axis: the
                # same gather written `coarse[:, order]` took five times as long.)
                coarse_here = np.take(coarse, order, axis=1) if coarse_here is None else coarse_here
                near = np.flatnonzero(_hamming(coarse_here, left, right) <= params.max_hamming[0])
                left, right = order[left[near]], order[right[near]]
                near = np.flatnonzero(_hamming(fine, left, right) <= params.max_hamming[1])
                codes.add(left[near] * n + right[near])
        return codes.distinct()

    # numpy releases the GIL in sorting, gathering and bitwise loops, so threads share the band work.
    # The split is fixed and the threads' codes are taken in code order, so the result does not
    # depend on `workers`.
    edges = np.linspace(0, params.bands, max(1, workers) + 1).astype(int)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        parts = list(pool.map(lambda k: bands(edges[k], edges[k + 1]), range(len(edges) - 1)))
        release_free_memory()  # the threads' scratch arrays, kept in their heap arenas otherwise
        lefts, rights = [], []
        # Positions fit in 32 bits below 2³¹ rows: a slice's tens of millions of candidates are
        # held in half the memory until they are finished (widened again a piece at a time).
        position = np.int32 if n < 2**31 else np.int64
        scored = 0
        # A range of code values at a time: the threads' codes are never joined into one array.
        for codes in distinct_in_ranges(parts, _SCORED_AT_ONCE):
            left, right = codes // n, codes % n
            if reps is None:
                close = _split_map(pool, workers, lambda a, b: _float32_cosines(unit, a, b), left, right)
            else:
                close = _split_map(pool, workers, lambda a, b: _float32_cosines(unit, reps[a], reps[b]), left, right)
            close = close >= threshold - _FLOAT32_MARGIN
            lefts.append(left[close].astype(position))
            rights.append(right[close].astype(position))
            scored += len(codes)
        del parts
    if not lefts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    return _joined(lefts), _joined(rights), scored


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The parts end to end; the list is emptied as they are copied in, so the parts go early."""
    out = np.empty(sum(len(part) for part in parts), dtype=parts[0].dtype)
    at = 0
    while parts:
        part = parts.pop(0)
        out[at : at + len(part)] = part
        at += len(part)
    return out


class CodeBuffer:
    """The distinct int64 codes of everything added, gathered in one array with room to spare.

    A pair collides in many bands, so the codes added repeat: when the array fills, what it holds is
    sorted and its repeats squeezed out where it lies, and only when that leaves it more than half
    full does it grow (double, in place). Gathering the bands' pieces in a list and joining them to
    fold held every code twice at each fold."""

    def __init__(self, capacity: int) -> None:
        self._codes = np.empty(max(1, capacity), dtype=np.int64)
        self._size = 0

    def add(self, codes: np.ndarray) -> None:
        if self._size + len(codes) > len(self._codes):
            self._fold()
            if self._size + len(codes) > len(self._codes) // 2:
                self._grow(max(2 * len(self._codes), self._size + len(codes)))
        self._codes[self._size : self._size + len(codes)] = codes
        self._size += len(codes)

    def distinct(self) -> np.ndarray:
        """The sorted distinct codes; the buffer hands over its array and starts empty."""
        self._fold()
        out, size = self._codes, self._size
        self._codes, self._size = np.empty(1, dtype=np.int64), 0
        out.resize(size, refcheck=False)  # hands the spare room back; no view of it is left
        return out

    def _fold(self) -> None:
        held = self._codes[: self._size]
        held.sort()
        self._size = _squeeze_repeats(held)

    def _grow(self, capacity: int) -> None:
        # realloc: a large array is moved by remapping its pages, not copied beside itself. The
        # buffer owns its array and no view of it outlives a call, so numpy's reference check
        # (which a caller's own names would fail) is not needed.
        self._codes.resize(capacity, refcheck=False)


def _squeeze_repeats(held: np.ndarray, block: int = 1 << 20) -> int:
    """Moves each value of a sorted array that differs from the one before it to the front, in order,
    and returns how many there are. Block by block: a block's kept values are copied out before
    they are written back, and they land at or before the block's start, so nothing is overwritten
    before it is read (the value just before a block is either still in place or was written
    back unchanged)."""
    size = 0
    for start in range(0, len(held), block):
        stop = min(start + block, len(held))
        fresh = np.empty(stop - start, dtype=bool)
        if start == 0:
            fresh[0] = True
            np.not_equal(held[1:stop], held[: stop - 1], out=fresh[1:])
        else:
            np.not_equal(held[start:stop], held[start - 1 : stop - 1], out=fresh)
        kept = held[start:stop][fresh]
        held[size : size + len(kept)] = kept
        size += len(kept)
    return size


def _distinct(codes: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an int64 array, which is sorted in place (pass one you own)."""
    codes.sort()
    return codes[: _squeeze_repeats(codes)]


def distinct_in_ranges(parts: Sequence[np.ndarray], step: int) -> Iterator[np.ndarray]:
    """The sorted distinct values of the union of sorted distinct arrays, in ascending pieces of
    about `step` values: their union is never held in one array (nor are the parts joined)."""
    largest = max(parts, key=len, default=np.zeros(0, dtype=np.int64))
    pieces = max(1, math.ceil(sum(len(part) for part in parts) / max(1, step)))
    bounds = largest[[len(largest) * k // pieces for k in range(1, pieces)]]
    cuts = [np.concatenate(([0], np.searchsorted(part, bounds), [len(part)])) for part in parts]
    for k in range(pieces):
        piece = [part[cut[k] : cut[k + 1]] for part, cut in zip(parts, cuts, strict=True)]
        values = _distinct(np.concatenate(piece)) if len(piece) > 1 else piece[0]
        if len(values):
            yield values


def _split_map(
    pool: ThreadPoolExecutor, workers: int, work, left: np.ndarray, right: np.ndarray
) -> np.ndarray:
    """`work(left, right)` computed on `workers` contiguous slices in parallel, concatenated in order."""
    edges = np.linspace(0, len(left), max(1, workers) + 1).astype(int)
    parts = pool.map(
        lambda k: work(left[edges[k] : edges[k + 1]], right[edges[k] : edges[k + 1]]), range(len(edges) - 1)
    )
    return np.concatenate(list(parts))


def _float32_cosines(unit: np.ndarray, left: np.ndarray, right: np.ndarray, chunk: int = 1024) -> np.ndarray:
    # Small chunks keep both gathered blocks in cache; fancy indexing is faster here than np.take(out=).
    out = np.empty(len(left), dtype=np.float32)
    for start in range(0, len(left), chunk):
        stop = start + chunk
        out[start:stop] = np.einsum("ij,ij->i", unit[left[start:stop]], unit[right[start:stop]])
    return out


def _exact_cosines(raw: np.ndarray, norms: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """`a·b / (|a|·|b|)` in float64 for each pair, like `hrr.cosine` (float32 rows are widened first)."""
    out = np.empty(len(left), dtype=np.float64)
    for start in range(0, len(left), 1024):
        stop = start + 1024
        a, b = left[start:stop], right[start:stop]
        rows_a = raw[a].astype(np.float64, copy=False)
        rows_b = raw[b].astype(np.float64, copy=False)
        out[start:stop] = np.einsum("ij,ij->i", rows_a, rows_b) / (norms[a] * norms[b])
    return out
