"""Matrices and arrays that grow by rows read exactly as if built in one go (memory.engine.recall.appendable)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from memory.engine.recall import appendable
from memory.engine.recall.appendable import AppendableCsc, Growing, GrowingCsr

blocks = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 2**16)), min_size=1, max_size=12)


def _blocks(spec, dtype=np.float32):
    """Random row blocks; each may bring new columns (a vocabulary growing in order)."""
    out, columns = [], 1
    for rows, new_columns, seed in spec:
        columns += new_columns
        rng = np.random.default_rng(seed)
        dense = (rng.random((rows, columns)) < 0.4) * rng.integers(1, 5, (rows, columns))
        out.append(sparse.csc_matrix(dense.astype(dtype)))
    return out


def _whole(parts):
    n_columns = parts[-1].shape[1]
    return sparse.vstack([appendable.with_columns(p, n_columns) for p in parts], format="csc")


@pytest.fixture(params=[1, 3, 4096], ids=["merge-every-append", "merge-every-third", "no-merge"])
def tail_rows(request, monkeypatch):
    # The same for every generated input (hypothesis reuses the fixture): only the merge cadence.
    monkeypatch.setattr(appendable, "TAIL_ROWS", request.param)
    return request.param


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=blocks, seed=st.integers(0, 2**16))
def test_an_appendable_matrix_reads_as_one_built_in_one_go(tail_rows, spec, seed):
    parts = _blocks(spec)
    grown = AppendableCsc(parts[0])
    for block in parts[1:]:
        grown.append(block)
    whole = _whole(parts)
    assert grown.shape == whole.shape and grown.nnz == whole.nnz
    rng = np.random.default_rng(seed)
    columns = rng.permutation(whole.shape[1])[: rng.integers(1, whole.shape[1] + 1)]
    rows, which, values = grown.column_entries(columns)
    dense = whole.toarray()
    got = np.zeros_like(dense)
    got[rows, columns[which]] = values
    assert np.array_equal(got[:, columns], dense[:, columns]) and rows.size == np.count_nonzero(dense[:, columns])
    for row in np.unique(rows):  # a row's entries come in `columns` order, as from one matrix
        assert np.all(np.diff(which[rows == row]) > 0)
    assert np.array_equal(grown.column_counts(columns), np.count_nonzero(dense[:, columns], axis=0))
    weights = rng.random(columns.size)
    assert np.allclose(grown.columns_dot(columns, weights), dense[:, columns] @ weights, rtol=1e-12, atol=0)
    merged = grown.tocsc()
    merged.sort_indices()
    whole.sort_indices()
    assert np.array_equal(merged.indptr, whole.indptr) and np.array_equal(merged.indices, whole.indices)
    assert np.array_equal(merged.data, whole.data) and merged.data.dtype == np.float32


@settings(max_examples=60, deadline=None)
@given(spec=blocks)
def test_a_growing_csr_equals_a_stack_of_its_rows(spec):
    parts = [block.tocsr() for block in _blocks(spec, np.float64)]
    grown = GrowingCsr(parts[0])
    for block in parts[1:]:
        grown.append(block)
    expected = _whole([p.tocsc() for p in parts]).tocsr()
    got = grown.tocsr()
    assert got.shape == expected.shape
    assert np.array_equal(got.toarray(), expected.toarray())
    assert np.array_equal(grown.indptr, expected.indptr)


def test_growing_arrays_copy_only_when_full_and_never_change_what_was_handed_out():
    growing = Growing()
    first = growing.extend("x", np.arange(3.0), np.array([3.0]))
    second = growing.extend("x", first, np.array([4.0, 5.0]))
    assert second.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert first.tolist() == [0.0, 1.0, 2.0, 3.0]  # a view handed out earlier keeps its rows
    assert np.shares_memory(first, second)  # grown into spare room, not copied
    # An older, shorter view is copied too: growing it in place would overwrite rows `second` shows.
    again = growing.extend("x", first, np.array([7.0]))
    assert again.tolist() == [0.0, 1.0, 2.0, 3.0, 7.0] and second.tolist()[4:] == [4.0, 5.0]
    # An array it did not hand out (replaced by its owner meanwhile) is copied in, never assumed.
    third = growing.extend("x", np.array([9.0]), np.array([8.0]))
    assert third.tolist() == [9.0, 8.0] and second.tolist()[:4] == [0.0, 1.0, 2.0, 3.0]
    matrix = growing.extend("m", np.zeros((2, 3), np.float32), np.ones((1, 3), np.float32))
    assert matrix.shape == (3, 3) and matrix.dtype == np.float32 and matrix[2].tolist() == [1.0, 1.0, 1.0]
