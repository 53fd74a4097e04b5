"""Candidate generation for the maintenance passes: exact Jaccard joins and LSH cosine search."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.maintenance.jaccard_join import iter_jaccard_pairs, jaccard_pairs
from memory.engine.maintenance.similarity import cosine_pairs, lsh_miss_probability, lsh_params


def brute_jaccard(sets, threshold):
    out = []
    for i, j in itertools.combinations(range(len(sets)), 2):
        union = sets[i] | sets[j]
        if union and len(sets[i] & sets[j]) / len(union) >= threshold:
            out.append((i, j))
    return out


def brute_cosine(vectors, threshold):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ unit.T
    return [
        (i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors)) if sims[i, j] >= threshold
    ]


def random_sets(seed, count=400, vocabulary=40, largest=9):
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(vocabulary)]
    # A skewed draw, so some words are frequent (they drop out of prefixes) and some rare.
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    return [
        frozenset(rng.choice(words, rng.integers(0, largest + 1), replace=False, p=weights))
        for _ in range(count)
    ]


@pytest.mark.parametrize("threshold", [0.1, 0.2, 0.34, 0.5, 0.85, 1.0])
def test_jaccard_join_finds_exactly_the_pairs_a_brute_force_scan_finds(threshold):
    sets = random_sets(seed=11)
    result = jaccard_pairs(sets, threshold)
    assert list(zip(result.i.tolist(), result.j.tolist(), strict=True)) == brute_jaccard(sets, threshold)
    for i, j, score in zip(result.i, result.j, result.score, strict=True):
        assert score == len(sets[i] & sets[j]) / len(sets[i] | sets[j])


def test_jaccard_join_counts_long_sets_exactly_too():
    # Sets wider than the padded width (64 tokens) take the one-by-one path.
    rng = np.random.default_rng(5)
    words = [f"w{k}" for k in range(120)]
    sets = [frozenset(rng.choice(words, rng.integers(50, 100), replace=False)) for _ in range(60)]
    sets += random_sets(seed=6, count=60)
    result = jaccard_pairs(sets, 0.5)
    assert list(zip(result.i.tolist(), result.j.tolist(), strict=True)) == brute_jaccard(sets, 0.5)


def test_jaccard_join_scores_fewer_pairs_than_all_pairs():
    sets = random_sets(seed=3, count=400, vocabulary=400, largest=8)
    result = jaccard_pairs(sets, 0.5)
    assert result.candidates < len(sets) * (len(sets) - 1) // 2 / 10


def test_jaccard_join_streams_the_same_pairs_block_by_block():
    sets = random_sets(seed=4)
    streamed = sorted(
        (int(i), int(j))
        for block in iter_jaccard_pairs(sets, 0.3, block_rows=17)
        for i, j in zip(block.i, block.j, strict=True)
    )
    assert streamed == brute_jaccard(sets, 0.3)


def test_empty_sets_never_pair():
    assert len(jaccard_pairs([frozenset(), frozenset(), frozenset({"a"})], 0.2)) == 0


@pytest.mark.parametrize("threshold", [0.3, 0.6])
def test_cosine_search_below_the_exact_limit_is_exact(threshold):
    vectors = np.random.default_rng(7).standard_normal((300, 16))
    result = cosine_pairs(vectors, threshold)
    assert result.method == "exact"
    assert list(zip(result.i.tolist(), result.j.tolist(), strict=True)) == brute_cosine(vectors, threshold)


def planted_pairs(seed, bases=300, dims=64, low=0.8, high=0.995):
    """Random vectors, each with a partner at a chosen cosine in [low, high]."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((bases, dims))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    noise = rng.standard_normal((bases, dims))
    noise -= (noise * x).sum(axis=1, keepdims=True) * x  # orthogonal to its base
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    target = rng.uniform(low, high, size=(bases, 1))
    partners = target * x + np.sqrt(1 - target**2) * noise
    return np.vstack([x, partners])


def test_lsh_search_recalls_at_least_99_percent_of_the_pairs_above_the_bar():
    vectors = planted_pairs(seed=2024)
    truth = set(brute_cosine(vectors, 0.8))
    result = cosine_pairs(vectors, 0.8, exact_limit=0)
    found = set(zip(result.i.tolist(), result.j.tolist(), strict=True))
    assert result.method == "lsh"
    assert len(truth) >= 300
    assert found <= truth  # every reported pair is real: candidates are scored exactly
    assert len(found & truth) / len(truth) >= 0.99


def test_lsh_reports_exact_float64_cosines():
    vectors = planted_pairs(seed=1)
    result = cosine_pairs(vectors, 0.8, exact_limit=0)
    for i, j, sim in zip(result.i, result.j, result.score, strict=True):
        expected = vectors[i] @ vectors[j] / (np.linalg.norm(vectors[i]) * np.linalg.norm(vectors[j]))
        assert sim == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("threshold", [0.8, 0.95])
def test_lsh_parameters_miss_a_pair_at_the_bar_with_probability_below_one_in_a_thousand(threshold):
    params = lsh_params(threshold)
    assert params.miss_bound < 1e-3
    assert lsh_miss_probability(threshold, params) <= params.miss_bound
    # Pairs above the bar are missed less often.
    assert lsh_miss_probability(min(1.0, threshold + 0.05), params) < lsh_miss_probability(threshold, params)


def test_identical_rows_always_pair_even_on_the_lsh_path():
    rng = np.random.default_rng(9)
    vectors = rng.standard_normal((50, 32))
    vectors[10] = vectors[20] = vectors[30] = vectors[3]
    result = cosine_pairs(vectors, 0.95, exact_limit=0)
    pairs = set(zip(result.i.tolist(), result.j.tolist(), strict=True))
    assert {(3, 10), (3, 20), (3, 30), (10, 20), (10, 30), (20, 30)} <= pairs


def test_zero_rows_never_pair_and_the_threshold_must_be_positive():
    vectors = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    result = cosine_pairs(vectors, 0.5)
    assert list(zip(result.i.tolist(), result.j.tolist(), strict=True)) == [(2, 3)]
    with pytest.raises(ValueError):
        cosine_pairs(vectors, 0.0)


def test_the_same_vectors_give_the_same_pairs_whatever_their_order():
    vectors = planted_pairs(seed=8)
    first = cosine_pairs(vectors, 0.8, exact_limit=0)
    again = cosine_pairs(vectors, 0.8, exact_limit=0)
    assert np.array_equal(first.i, again.i) and np.array_equal(first.j, again.j)
    assert np.array_equal(first.score, again.score)
    order = np.random.default_rng(0).permutation(len(vectors))
    shuffled = cosine_pairs(vectors[order], 0.8, exact_limit=0)
    mapped = {tuple(sorted((int(order[i]), int(order[j])))) for i, j in zip(shuffled.i, shuffled.j, strict=True)}
    assert mapped == set(zip(first.i.tolist(), first.j.tolist(), strict=True))


@pytest.mark.parametrize("dims, dtype", [(32, np.float32), (3, np.float32), (5, np.float64)])
def test_identical_rows_are_grouped_exactly_even_when_their_hashes_collide(monkeypatch, dims, dtype):
    """Rows are grouped by a hash of their bytes; rows that share a hash but differ must never be
    grouped (they would pair at cosine 1 without being scored)."""
    from memory.engine.maintenance import similarity as S

    rng = np.random.default_rng(dims)
    rows = rng.standard_normal((300, dims)).astype(dtype)
    copies = rng.integers(0, 300, 120)
    rows[rng.integers(0, 300, 120)] = rows[copies]  # some groups of several identical rows

    def expected(rows):
        first_of = {}
        for k, row in enumerate(rows):
            first_of.setdefault(row.tobytes(), k)
        return sorted({tuple(k for k, r in enumerate(rows) if r.tobytes() == key) for key in first_of})

    def found(groups):
        return sorted(tuple(groups.members(g).tolist()) for g in range(len(groups.reps)))

    groups = S._collapse_duplicates(rows)
    assert found(groups) == expected(rows) and len(groups.reps) < 300
    assert groups.reps.tolist() == sorted(groups.reps.tolist())  # numbered by their first rows
    assert all(groups.members(g)[0] == groups.reps[g] for g in range(len(groups.reps)))
    # Every row hashing alike: the byte-for-byte check must split them again.
    monkeypatch.setattr(S, "_row_hashes", lambda unit: np.zeros(len(unit), dtype=np.uint64))
    assert found(S._collapse_duplicates(rows)) == expected(rows)


@pytest.mark.parametrize("use_rows", [False, True])
def test_lsh_signatures_are_each_rows_plane_signs_laid_out_band_by_band(use_rows):
    """The signatures are written block by block straight into their band-major layout; they must be
    the plane signs of every row (or of the rows named) whatever the block boundaries."""
    from memory.engine.maintenance import similarity

    rng = np.random.default_rng(5)
    unit = rng.standard_normal((9000, 32)).astype(np.float32)
    rows = np.sort(rng.choice(9000, 5000, replace=False)) if use_rows else None
    params = lsh_params(0.8, 0.01, 16)
    keys, coarse, fine = similarity._signatures(unit, params, 11, rows)
    chosen = unit if rows is None else unit[rows]
    bits = params.rows * params.bands
    planes = np.random.default_rng(11).standard_normal((32, bits + sum(params.filter_bits))).astype(np.float32)
    packed = np.packbits(chosen @ planes >= 0, axis=1, bitorder="little")
    assert keys.shape == (params.bands, len(chosen)) and keys.flags.c_contiguous
    assert np.array_equal(keys, packed[:, : bits // 8].copy().view(np.uint16).T)
    first = bits // 8 + params.filter_bits[0] // 8
    assert np.array_equal(coarse, packed[:, bits // 8 : first].copy().view(np.uint64).T)
    assert np.array_equal(fine, packed[:, first : first + params.filter_bits[1] // 8].copy().view(np.uint64).T)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_a_slice_of_a_band_yields_exactly_the_pairs_its_rows_own(dtype):
    """Each slice sorts only the rows that can pair with its owners (`_rows_that_can_pair`): the pairs
    must still be every (i, j), i in the slice, j > i, sharing the key, each once."""
    from memory.engine.maintenance.similarity import _bucket_pairs

    rng = np.random.default_rng(5)
    keys = rng.zipf(1.6, 600).clip(max=200).astype(dtype)  # a few crowded buckets, many lonely rows
    for lo, hi in [(0, 600), (0, 37), (37, 200), (200, 599), (599, 600), (300, 300)]:
        order, steps = _bucket_pairs(keys, lo, hi)
        got = sorted((int(order[a]), int(order[b])) for left, right in steps for a, b in zip(left, right, strict=True))
        want = [(i, j) for i in range(lo, hi) for j in range(i + 1, len(keys)) if keys[i] == keys[j]]
        assert got == want
        assert np.all(np.diff(keys[order].astype(np.int64)) >= 0)  # the rows come in key order


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.lists(st.integers(0, 60), max_size=25), max_size=12),
    capacity=st.integers(1, 40),
)
def test_a_code_buffer_holds_the_sorted_distinct_codes_of_everything_added(pieces, capacity):
    """Small capacities make it fold (sort and squeeze in place) and grow mid-way: what comes out
    must still be exactly the distinct codes added, ascending."""
    from memory.engine.maintenance.similarity import CodeBuffer

    buffer = CodeBuffer(capacity)
    for piece in pieces:
        buffer.add(np.asarray(piece, dtype=np.int64))
    everything = [code for piece in pieces for code in piece]
    assert buffer.distinct().tolist() == sorted(set(everything))
    assert buffer.distinct().tolist() == []  # it handed its codes over


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sets(st.integers(-50, 200), max_size=60), min_size=1, max_size=3), step=st.integers(1, 50))
def test_sorted_parts_are_united_range_by_range_in_order_each_code_once(parts, step):
    from memory.engine.maintenance.similarity import distinct_in_ranges

    arrays = [np.array(sorted(part), dtype=np.int64) for part in parts]
    pieces = list(distinct_in_ranges(arrays, step))
    assert all(len(piece) for piece in pieces)
    assert np.concatenate([np.zeros(0, dtype=np.int64), *pieces]).tolist() == sorted(set().union(*parts))


def test_the_lsh_search_finds_the_same_pairs_when_its_workers_fold_often(monkeypatch):
    """Each worker's code buffer folds and grows as it fills; with a tiny buffer it does so on nearly
    every step. The pairs, their scores and the count scored must not change."""
    import memory.engine.maintenance.similarity as similarity

    vectors = planted_pairs(seed=31)
    roomy = cosine_pairs(vectors, 0.8, exact_limit=0)
    monkeypatch.setattr(similarity, "_HELD_CODES", 7)
    monkeypatch.setattr(similarity, "_SCORED_AT_ONCE", 11)
    cramped = cosine_pairs(vectors, 0.8, exact_limit=0)
    assert len(roomy) >= 300
    assert np.array_equal(roomy.i, cramped.i) and np.array_equal(roomy.j, cramped.j)
    assert np.array_equal(roomy.score, cramped.score)
    assert roomy.candidates == cramped.candidates


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.integers(0, 30), max_size=80), block=st.integers(1, 9))
def test_repeats_are_squeezed_out_of_a_sorted_array_in_place_block_by_block(values, block):
    from memory.engine.maintenance.similarity import _squeeze_repeats

    held = np.array(sorted(values), dtype=np.int64)
    kept = _squeeze_repeats(held, block=block)
    assert held[:kept].tolist() == sorted(set(values))
