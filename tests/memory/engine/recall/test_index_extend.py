"""Growing the text indexes and the columns by appending rows equals building them in one go.

`Bm25Index.extend`, `NgramIndex.extend` and `FactColumns.append` let the recall index take in new
facts without re-indexing the old ones; every derived array must come out exactly as a build over
the concatenated documents would make it, so scores (and therefore rankings) cannot drift.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.engine.facts.records import Origin
from memory.engine.recall.bm25 import Bm25Index
from memory.engine.recall.candidates import FactColumns, FactRow
from memory.engine.recall.fusion import recall_fused
from memory.engine.recall.ngrams import B_STEPS, NgramIndex
from memory.engine.recall.tokenize import recall_terms

WORDS = ["alpha", "beta", "gamma", "grandma", "grandmother", "puppy", "pup", "running", "runs", "the", "is",
         "Zürich", "東京", "tea", "coffee", "x", "festival", "festval", "42", "a-b"]  # fmt: skip
documents = st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), max_size=12)
cuts = st.lists(st.integers(min_value=0, max_value=12), max_size=3)


def _pieces(docs: list[str], points: list[int]) -> list[list[str]]:
    bounds = sorted({min(p, len(docs)) for p in points} | {0, len(docs)})
    return [docs[a:b] for a, b in itertools.pairwise(bounds)] or [[]]


def _same_matrix(a, b) -> None:
    assert a.format == b.format and a.shape == b.shape
    assert np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.indices, b.indices)
    assert np.array_equal(a.data, b.data) and a.data.dtype == b.data.dtype


def _masks(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.ones(n, dtype=bool), rng.random(n) < 0.6]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents, points=cuts, warm=st.booleans(), analyzer=st.sampled_from([None, recall_terms]))
def test_bm25_extend_equals_a_build_over_all_documents(docs, points, warm, analyzer):
    pieces = _pieces(docs, points)
    kwargs = {} if analyzer is None else {"analyzer": analyzer}
    grown = Bm25Index(pieces[0], **kwargs)
    if warm:  # the lazily built row-major copy and term list are extended too
        grown.term_names(), grown._row_major()
    for piece in pieces[1:]:
        grown.extend(piece)
    whole = Bm25Index(docs, **kwargs)
    assert grown.vocabulary == whole.vocabulary and list(grown.vocabulary) == list(whole.vocabulary)
    _same_matrix(grown.matrix, whole.matrix)
    assert np.array_equal(grown.doc_len, whole.doc_len)
    assert grown.term_names() == whole.term_names()
    _same_matrix(grown._row_major().tocsr(), whole._row_major().tocsr())
    for mask in _masks(len(docs), len(docs)):
        for query in ("alpha beta", "grandmother runs", "tea tea coffee", "nothing here"):
            a, b = grown.score(query, mask), whole.score(query, mask)
            assert np.array_equal(a.scores, b.scores) and a.stats == b.stats and a.avg_len == b.avg_len
        weights = {"beta": 0.5, "coffee": 0.3, "pup": 0.2}
        assert np.array_equal(grown.score_weighted(weights, mask), whole.score_weighted(weights, mask))
        if docs:
            rows = np.arange(0, len(docs), 2)
            for left, right in zip(grown.document_postings(rows), whole.document_postings(rows), strict=True):
                assert np.array_equal(left, right)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=documents, points=cuts, score_between=st.booleans())
def test_ngram_extend_equals_a_build_over_all_documents(docs, points, score_between):
    pieces = _pieces(docs, points)
    grown = NgramIndex(pieces[0])
    seen = len(pieces[0])
    for piece in pieces[1:]:
        if score_between and seen:  # fills the per-candidate-set cache: later sets are derived from it
            grown.cosine("grandma pup", np.ones(seen, dtype=bool))
        grown.extend(piece)
        seen += len(piece)
    whole = NgramIndex(docs)
    assert list(grown.vocabulary.items()) == list(whole.vocabulary.items())
    _same_matrix(grown.weights, whole.weights)
    for mask in _masks(len(docs), len(docs) + 1):
        for query in ("grandma", "festval puppy", "alpha beta gamma", "unseen words"):
            assert_same_cosines(grown.cosine(query, mask), whole.cosine(query, mask))


def assert_same_cosines(got: np.ndarray, expected: np.ndarray) -> None:
    """Cosines of an index that followed its changes equal a fresh build's up to float rounding:
    the same facts score (exactly zero elsewhere), within a relative 1e-12."""
    assert np.array_equal(got > 0, expected > 0)
    assert np.allclose(got, expected, rtol=1e-12, atol=0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), min_size=1, max_size=10),
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("write"), st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
                                                 min_size=1, max_size=3)),
            st.tuples(st.just("flip"), st.lists(st.integers(0, 40), min_size=1, max_size=3)),
        ),
        max_size=12,
    ),
)  # fmt: skip
def test_ngram_sums_follow_writes_and_archives_as_a_fresh_build(start, steps):
    """Candidate sets changed by writes (new rows) and archives or restores (rows leaving or joining
    the set) are derived from the set before, and score as a fresh build over the same set."""
    index, docs = NgramIndex(start), list(start)
    mask = np.ones(len(docs), dtype=bool)
    index.candidate_sums(mask)
    derived = 0
    for kind, payload in steps:
        if kind == "write":
            index.extend(payload)
            docs += payload
            mask = np.concatenate((mask, np.ones(len(payload), dtype=bool)))
        else:
            mask = mask.copy()
            for row in payload:
                mask[row % len(docs)] ^= True
        derived += index._derived(mask) is not None
        fresh = NgramIndex(docs)
        for query in ("grandma", "festval puppy", "tea coffee 42", "unseen words"):
            assert_same_cosines(index.cosine(query, mask), fresh.cosine(query, mask))
        sums, expected = index.candidate_sums(mask), fresh._full(mask)
        assert sums.n == expected.n and np.array_equal(sums.df, expected.df)
        assert np.allclose(sums.s1, expected.s1, rtol=1e-12, atol=1e-12)
        assert np.allclose(sums.s2, expected.s2, rtol=1e-12, atol=1e-12)
    assert derived == len(steps)  # every step was derived, none recomputed in full


def test_ngram_statistics_of_a_mask_are_not_mistaken_for_a_longer_one():
    """After growth the same leading bits with trailing False rows pack to the same bytes."""
    index = NgramIndex(["alpha beta", "beta gamma", "gamma delta"])
    three = np.array([True, True, False])
    before = index.cosine("beta", three)
    index.extend(["beta beta", "beta"])
    five = np.array([True, True, False, False, False])
    assert np.array_equal(index.cosine("beta", five)[:3], before)
    assert np.array_equal(
        index.cosine("beta", five),
        NgramIndex(["alpha beta", "beta gamma", "gamma delta", "beta beta", "beta"]).cosine("beta", five),
    )


ROW_FIELDS = st.fixed_dictionaries({
    "content": st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    "segment": st.sampled_from(["knowledge", "preference", "identity", "context", "nonsense"]),
    "created_at": st.integers(0, 10_000),
    "importance": st.none() | st.floats(0, 1.5),
    "tier": st.none() | st.sampled_from(["permanent", "long", "short"]),
    "decay_rate": st.none() | st.floats(0, 0.2),
    "access_count": st.integers(0, 5),
    "lifecycle": st.sampled_from(["active", "active", "archived"]),
    "valid_to": st.none() | st.integers(0, 20_000),
    "confidence": st.none() | st.floats(0, 1),
    "status": st.none() | st.just("confirmed"),
    "source_type": st.none() | st.sampled_from(["owner_message", "tool_output", "web", "strange"]),
    "origin": st.sampled_from([None, Origin.owner(), Origin("channel", "c1", "v1", "s1", ""), Origin("channel", "c2", "v1", "s1", "")]),
    "embedding": st.none() | st.lists(st.floats(-1, 1), min_size=3, max_size=3) | st.just([1.0, 0.0]),
})  # fmt: skip


def _rows(fields: list[dict]) -> list[FactRow]:
    return [FactRow(memory_id=f"m{i}", **f) for i, f in enumerate(fields)]


def _same_columns(a: FactColumns, b: FactColumns) -> None:
    for name in ("memory_ids", "contents", "segments", "source_types"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("importance", "decay_rate", "access_count", "last_accessed_at", "created_at", "permanent", "lifecycle",
                 "valid_to", "confidence", "confirmed", "origin_keys", "source_weight", "origin_codes"):  # fmt: skip
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype, name
        assert np.array_equal(left, right, equal_nan=left.dtype.kind == "f"), name
    assert a.origin_code_of == b.origin_code_of and a.row_index == b.row_index
    for name in ("embeddings", "embedded", "embedding_norms"):
        left, right = getattr(a, name), getattr(b, name)
        assert (left is None) == (right is None), name
        if left is not None:
            assert left.dtype == right.dtype and np.array_equal(left, right), name


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=st.lists(ROW_FIELDS, min_size=1, max_size=10), points=cuts, warm=st.booleans())
def test_appending_rows_to_columns_equals_building_them_from_all_rows(fields, points, warm):
    rows = _rows(fields)
    pieces = [p for p in _pieces(rows, points) if p]
    grown = FactColumns.from_rows(pieces[0])
    if warm:
        grown.text.stems, grown.text.ngrams  # noqa: B018 - built, so they are extended, not rebuilt
    for piece in pieces[1:]:
        grown.append(piece)
    whole = FactColumns.from_rows(rows)
    _same_columns(grown, whole)
    _same_matrix(grown.bm25.matrix, whole.bm25.matrix)
    _same_matrix(grown.text.stems.matrix, whole.text.stems.matrix)
    _same_matrix(grown.text.ngrams.weights, whole.text.ngrams.weights)
    for scope in (Origin.owner(), Origin("channel", "c1", "v1", "s1", "")):
        for query in ("grandma puppy", "tea coffee", "alpha"):
            left = recall_fused(grown, query, 5_000, scope, limit=None)
            right = recall_fused(whole, query, 5_000, scope, limit=None)
            assert [(h.memory_id, h.score, h.components) for h in left] == [
                (h.memory_id, h.score, h.components) for h in right
            ]


def test_appending_rows_leaves_an_unbuilt_lazy_index_alone():
    class Lazy:
        built = False

        def extend(self, documents):  # pragma: no cover - must not be called
            raise AssertionError("an unbuilt index was extended")

    cols = FactColumns.from_rows(_rows([{"content": "alpha beta"}]), bm25=Lazy())
    cols.append([FactRow(memory_id="m9", content="gamma")])
    assert cols.contents == ["alpha beta", "gamma"] and cols.row_index == {"m0": 0, "m9": 1}


@settings(max_examples=200, deadline=None)
@given(
    top_rows=st.integers(0, 6), bottom_rows=st.integers(0, 4), top_cols=st.integers(1, 7), extra_cols=st.integers(0, 3),
    density=st.floats(0, 1), seed=st.integers(0, 2**16),
)  # fmt: skip
def test_append_rows_equals_a_vertical_stack(top_rows, bottom_rows, top_cols, extra_cols, density, seed):
    from scipy import sparse

    from memory.engine.recall import appendable

    rng = np.random.default_rng(seed)

    def random_csc(rows, cols, dtype):
        dense = (rng.random((rows, cols)) < density) * rng.integers(1, 5, (rows, cols))
        return sparse.csc_matrix(dense.astype(dtype))

    for dtype in (np.float32, np.float64):
        top = random_csc(top_rows, top_cols, dtype)
        bottom = random_csc(bottom_rows, top_cols + extra_cols, dtype)
        expected = sparse.vstack(
            (sparse.hstack((top, sparse.csc_matrix((top_rows, extra_cols)))).tocsc(), bottom)
        ).tocsc()
        got = appendable.append_rows(top, bottom)
        expected.sort_indices()
        assert got.format == "csc" and got.shape == expected.shape and got.data.dtype == dtype
        assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
        assert np.array_equal(got.data, expected.data) and got.has_sorted_indices


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join), min_size=1, max_size=15),
       seed=st.integers(0, 2**16))  # fmt: skip
def test_ngram_candidate_statistics_equal_the_plain_formulas(docs, seed):
    """IDF `ln(n+1) + 1 − b` with b = ln(df+1) rounded to a multiple of 1/B_STEPS, and the norm of
    each fact's IDF-weighted vector, computed from the kept sums, equal the plain computation (up to
    float rounding, far below any score difference)."""
    index = NgramIndex(docs)
    mask = np.random.default_rng(seed).random(len(docs)) < 0.7
    w = index.weights
    if w.nnz == 0:
        return
    df = np.add.reduceat(mask[w.indices].astype(np.float64), w.indptr[:-1])
    idf = np.log(mask.sum() + 1.0) + 1.0 - np.round(np.log(df + 1.0) * B_STEPS) / B_STEPS
    feature_of = np.repeat(np.arange(w.shape[1]), np.diff(w.indptr))
    weighted = w.data.astype(np.float64) * idf[feature_of]
    norms = np.sqrt(np.bincount(w.indices, weights=weighted * weighted, minlength=len(docs)))
    got_idf, got_norms = index.statistics(mask)
    assert np.allclose(got_idf, idf, rtol=1e-12, atol=0) and np.allclose(got_norms, norms, rtol=1e-10, atol=1e-12)
