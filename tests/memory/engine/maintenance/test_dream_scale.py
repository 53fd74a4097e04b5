"""The dream's fast paths give exactly what the reference code gives (ENGINE-SPEC Decision 1, a 100,000-fact dream).

The batch HRR embedder must match `HrrEmbedder` to the last bit, the similar pairs must match their
fact-tuple form and, where the search is exact, every pair at the bar, and the LSH search must return exactly the pairs its definition
names (a band collision, both Hamming filters, the float32 cosine) however it is computed.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bench.memory.corpus import Corpus
from memory.engine.maintenance import similarity as S
from memory.engine.maintenance.dream import BatchHrrEmbedder, plan_dream
from memory.engine.recall.hrr import HrrEmbedder
from memory.engine.recall.synonymy import similar_pair_arrays, similar_pairs
from tests.memory.engine.maintenance.maint_factory import DAY, NOW, fact

ODD_TEXTS = [
    "", "   ", "!!! ...", "I love jazz", "i LOVE jazz!", "tea tea tea tea", "The the THE", "a", "ab",
    "Σίσυφος ΣΑΣ ὈΔΥΣΣΕΎΣ", "İstanbul ǅemal straße", "a_b c__d_", "日本語のテキストです", "emoji 😀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "x" * 1000, "42 is 4 2 and 4.2", "café CAFÉ cafe\u0301", "tab\tnew\nline",
]  # fmt: skip


def _corpus(count: int, seed: int = 11) -> list[str]:
    return [f.content for f in Corpus(seed=seed).facts(count)]


def _bits(matrix: np.ndarray) -> np.ndarray:
    return matrix.view(np.uint32 if matrix.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_batch_embedder_matches_the_hrr_embedder_bit_for_bit(dtype):
    rng = random.Random(5)
    texts = _corpus(3000)
    texts += ODD_TEXTS + [f"{rng.choice(texts)} {rng.choice(ODD_TEXTS)}" for _ in range(500)]
    # A small CHUNK makes several blocks, as at 100,000 facts.
    batch = BatchHrrEmbedder()
    batch.CHUNK = 700
    for sample in (texts, list(reversed(texts)), ODD_TEXTS, [""], ["only one text"]):
        reference = HrrEmbedder().embed(sample, dtype=dtype)
        assert np.array_equal(_bits(batch.embed(sample, dtype=dtype)), _bits(reference))
    assert BatchHrrEmbedder().embed([]).shape == (0, 256)


def _bucket(count: int, *, stored: bool = False) -> list:
    rng = random.Random(3)
    texts = _corpus(count, seed=13)
    texts += [texts[k] for k in rng.sample(range(len(texts)), count // 10)]  # exact copies
    vectors = HrrEmbedder().embed(texts, dtype=np.float64)
    facts = []
    for k, text in enumerate(texts):
        embedding = None
        if stored and k % 3 == 0:
            embedding = vectors[k]
        elif stored and k % 7 == 0:
            embedding = np.resize(vectors[k], 64)  # another length: never pairs with the 256-d rows
        facts.append(fact(f"f{k:05d}", text, "knowledge", embedding=embedding))
    return sorted(facts, key=lambda f: f.memory_id)


@pytest.mark.parametrize(("stored", "exact_limit"), [(False, 8192), (False, 0), (True, 0)])
def test_the_array_form_of_the_similar_pairs_matches_synonymy_similar_pairs(stored, exact_limit):
    bucket = _bucket(1500, stored=stored)
    reference, reference_stats = similar_pairs(bucket, 0.6, None, exact_limit, 1e-3, S.DEFAULT_SEED, 2)
    left, right, sims, stats = similar_pair_arrays(bucket, 0.6, None, exact_limit, 1e-3, S.DEFAULT_SEED, 2)
    assert len(reference) > 100
    assert [(a.memory_id, b.memory_id, sim) for a, b, sim in reference] == [
        (bucket[i].memory_id, bucket[j].memory_id, sim)
        for i, j, sim in zip(left.tolist(), right.tolist(), sims.tolist(), strict=True)
    ]
    assert stats == reference_stats
    if exact_limit and not stored:  # exact search: every pair at the bar, checked against all pairs
        unit = HrrEmbedder().embed([f.content for f in bucket], dtype=np.float64)
        unit /= np.linalg.norm(unit, axis=1, keepdims=True)
        i, j = np.triu_indices(len(bucket), 1)
        cosine = np.einsum("ij,ij->i", unit[i], unit[j])
        found = set(zip(left.tolist(), right.tolist(), strict=True))
        above, below = cosine >= 0.6 + 1e-9, cosine < 0.6 - 1e-9  # rounding decides the rest
        assert set(zip(i[above].tolist(), j[above].tolist(), strict=True)) <= found
        assert not found & set(zip(i[below].tolist(), j[below].tolist(), strict=True))


def test_the_lsh_search_returns_exactly_the_pairs_its_definition_names():
    """A band collision, both Hamming filters and the float32 bar, checked against every pair."""
    rng = np.random.default_rng(2)
    centres = rng.standard_normal((40, 48))
    rows = centres[rng.integers(0, 40, 900)] + 0.35 * rng.standard_normal((900, 48))
    unit = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    threshold = 0.8
    params = S.lsh_params(threshold, rows=8)
    left, right, scored = S._lsh_candidates(unit, threshold, params, S.DEFAULT_SEED, workers=2)
    keys, coarse, fine = S._signatures(unit, params, S.DEFAULT_SEED)
    i, j = np.triu_indices(len(unit), 1)
    collide = (keys[:, i] == keys[:, j]).any(axis=0)

    def hamming(words):
        return sum(np.bitwise_count(words[k, i] ^ words[k, j]).astype(np.int64) for k in range(len(words)))

    passes = collide & (hamming(coarse) <= params.max_hamming[0]) & (hamming(fine) <= params.max_hamming[1])
    cosines = np.einsum("ij,ij->i", unit[i], unit[j])
    expected = passes & (cosines >= threshold - S._FLOAT32_MARGIN)
    assert scored == int(passes.sum()) and expected.sum() > 200
    assert np.array_equal(left, i[expected]) and np.array_equal(right, j[expected])
    one_worker = S._lsh_candidates(unit, threshold, params, S.DEFAULT_SEED, workers=1)
    assert np.array_equal(one_worker[0], left) and np.array_equal(one_worker[1], right)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_search_in_slices_finds_exactly_the_pairs_of_the_search_in_one_piece(monkeypatch, dtype):
    """Slices of rows and small steps inside a band (how a million facts stay in bounded memory)
    partition the same answer: no pair lost, none twice, identical float64 cosines."""
    rng = np.random.default_rng(4)
    centres = rng.standard_normal((30, 64))
    rows = centres[rng.integers(0, 30, 1500)] + 0.3 * rng.standard_normal((1500, 64))
    rows[700:720] = rows[5]  # a group of duplicates, collapsed to one representative
    rows[1200] = 0.0  # a zero row never pairs
    vectors = rows.astype(dtype)
    whole = S.cosine_pairs(vectors, 0.8, exact_limit=0)
    monkeypatch.setattr(S, "BAND_STEP_PAIRS", 97)
    monkeypatch.setattr(S, "_SCORED_AT_ONCE", 50)
    seen = []
    chunks = list(S.cosine_pair_chunks(vectors, 0.8, exact_limit=0, slice_pairs=20_000,
                                       progress=lambda done, total: seen.append((done, total))))  # fmt: skip
    assert len(chunks) > 3 and seen[-1] == (len(chunks), len(chunks))
    for chunk in chunks:
        assert np.all(np.lexsort((chunk.j, chunk.i)) == np.arange(len(chunk)))
    left = np.concatenate([c.i for c in chunks])
    right = np.concatenate([c.j for c in chunks])
    sims = np.concatenate([c.score for c in chunks])
    order = np.lexsort((right, left))
    assert len(whole) > 1000 and len(set(zip(left.tolist(), right.tolist(), strict=True))) == len(left)
    assert np.array_equal(left[order], whole.i) and np.array_equal(right[order], whole.j)
    assert np.array_equal(sims[order], whole.score)
    assert sum(c.candidates for c in chunks) == whole.candidates
    brute = rows.astype(np.float64)  # the float64 cosine of the rows as given
    norms = np.linalg.norm(brute, axis=1)
    i, j = whole.i, whole.j
    assert np.allclose(whole.score, (brute[i] * brute[j]).sum(axis=1) / (norms[i] * norms[j]), atol=1e-12)


@pytest.mark.parametrize("cap", [1, 3, 12])
def test_relating_each_rows_strongest_pairs_links_what_relating_every_pair_links(monkeypatch, cap):
    """The relate step only looks at each fact's `cap` strongest pairs (bounded memory at a million
    facts); a plain pass over EVERY pair at the bar, strongest first, must add the same links."""
    from memory.engine.maintenance import dream as D
    from memory.engine.maintenance.links import RelateLedger

    monkeypatch.setattr(D, "_RELATE_BUFFER", 500)  # fold many times on the way
    rng = random.Random(cap)
    texts = _corpus(1200, seed=3)
    facts = [
        fact(f"m{k:05d}", text, "knowledge", subject_key=f"s{k % 30}" if k % 7 == 0 else None,
             access_count=rng.choice([0, 1, 2, 3]), status="confirmed" if (k % 1200) % 11 == 0 else None)
        for k, text in enumerate(texts + texts[:150])
    ]  # fmt: skip
    ids = sorted(f.memory_id for f in facts)
    existing = [(rng.choice(ids), "relates", rng.choice(ids)) for _ in range(400)]
    existing += [(rng.choice(ids), "supports", rng.choice(ids)) for _ in range(100)]
    plan = plan_dream(facts, existing, NOW, relates_threshold=0.6, max_related_per_record=cap)
    assert plan.merges and plan.declined and len(plan.relations) > 300

    # The reference: the state after the merges, then every pair at the bar, strongest first.
    ledger = RelateLedger(existing)
    for merge in plan.merges:
        for link in merge.added:
            ledger.present.add(link)
            ledger.count[(link[0], link[1])] += 1
    bucket = sorted(facts, key=lambda f: f.memory_id)
    merged = {m.merged for m in plan.merges}
    declined = {(d.a, d.b) for d in plan.declined}
    left, right, sims, _ = similar_pair_arrays(bucket, 0.6, None, 8192, 1e-3, S.DEFAULT_SEED, 2)
    expected = []
    for i, j, sim in zip(left.tolist(), right.tolist(), sims.tolist(), strict=True):
        a, b = bucket[i].memory_id, bucket[j].memory_id
        if a in merged or b in merged or (a, b) in declined:
            continue
        added = tuple(link for link in ((a, "relates", b), (b, "relates", a))
                      if ledger.add(link[0], "relates", link[2], cap))  # fmt: skip
        if added:
            expected.append((a, b, sim, added))
    assert [(r.a, r.b, r.similarity, r.added) for r in plan.relations] == expected


def test_a_dream_with_the_default_embedder_is_the_dream_with_the_hrr_embedder():
    rng = random.Random(9)
    texts = _corpus(2500, seed=21)
    facts = [
        fact(f"m{k:05d}", text, "knowledge", importance=rng.choice([0.3, 0.5, 0.7]),
             subject_key=f"s{k % 40}" if k % 9 == 0 else None, access_count=rng.choice([0, 0, 1, 2]),
             last_accessed_at=NOW - rng.randrange(400) * DAY, created_at=NOW - 400 * DAY)
        for k, text in enumerate(texts + texts[:200])
    ]  # fmt: skip
    default = plan_dream(facts, [], NOW, exact_limit=0)
    reference = plan_dream(facts, [], NOW, exact_limit=0, embedder=HrrEmbedder())
    assert default.merges and default.relations and default.evictions and default.confirmations
    assert default == reference


@pytest.mark.parametrize("stored", [False, True])
def test_leaving_merged_facts_out_of_the_relate_search_never_changes_the_callers_vectors(stored):
    """The relate search drops the merged facts' rows from the vectors (in place when the plan made
    the matrix); an embedder's own array and the facts' stored vectors must come out untouched."""
    texts = _corpus(600, seed=5)
    texts += texts[:120]  # copies: merged in the first step, so there are rows to leave out
    reference = HrrEmbedder().embed(texts, dtype=np.float32)

    class Cached:  # an embedder that hands out the same array every time
        id, dims = "cached", reference.shape[1]
        array = reference.copy()

        def embed(self, batch, dtype=np.float32):
            return self.array

    facts = [fact(f"m{k:05d}", text, "knowledge", embedding=reference[k].copy() if stored else None)
             for k, text in enumerate(texts)]  # fmt: skip
    before = [f.embedding.copy() for f in facts] if stored else None
    embedder = Cached()
    plan = plan_dream(facts, [], NOW, embedder=embedder, exact_limit=0, relates_threshold=0.6)
    assert plan.merges and plan.relations
    assert np.array_equal(embedder.array, reference)
    if stored:
        assert all(np.array_equal(f.embedding, b) for f, b in zip(facts, before, strict=True))
    # and the same plan as with the batch embedder, which lets the search compact its own matrix
    assert plan == plan_dream(facts if stored else [
        fact(f.memory_id, f.content, "knowledge") for f in facts], [], NOW, exact_limit=0, relates_threshold=0.6)
