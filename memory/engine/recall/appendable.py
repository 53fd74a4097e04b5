"""Matrices and arrays that grow by rows without copying what they already hold.

A recall index takes in one new fact per write. Appending a row to a CSC matrix the usual way copies
every stored entry (the new row's entries belong inside each of its columns), and concatenating a
numpy column copies the whole column: at a million facts that is hundreds of megabytes per write.

* `AppendableCsc` keeps a large base and a small tail of the rows appended since; the tail is merged
  into the base once it holds `TAIL_ROWS` rows, so the copying is amortised over thousands of
  writes. Readers ask for a column's entries across both parts (base rows first, each part in the
  order a single matrix would give), so scores come out as from one matrix.
* `GrowingCsr` and `grow` keep spare capacity at the end (rows of a CSR matrix, entries of an
  array): appending writes into the spare room and hands out a view of the filled part.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

# Rows the tail holds before it is merged. Each append copies the tail, each merge the whole matrix:
# per write that is ~TAIL_ROWS/2 rows plus rows/TAIL_ROWS, least near √(2·rows), ~1,400 at a million
# facts; a few thousand keeps both well under a millisecond there and merges rarely at any size.
TAIL_ROWS = 4096
GROWTH = 1.25  # spare room added when a buffer is full (a quarter: memory matters more than copies)


def append_rows(top: sparse.csc_matrix, bottom: sparse.csc_matrix) -> sparse.csc_matrix:
    """The CSC matrix of `top`'s rows followed by `bottom`'s; `bottom` has at least `top`'s columns
    (an index whose vocabulary grew), and the result has `bottom`'s. Stored entries keep their
    column-major, row-sorted order, so the arrays equal those of a matrix built in one go."""
    if top.shape[0] == 0:
        return bottom.tocsc()
    n_columns = bottom.shape[1]
    out = sparse.vstack((with_columns(top, n_columns), bottom), format="csc")
    out.has_sorted_indices = bool(top.has_sorted_indices and bottom.has_sorted_indices)
    return out


def stack_rows(blocks: list[sparse.csr_matrix]) -> sparse.csc_matrix:
    """One CSC matrix of row blocks built one after another (each with at least the columns of the
    one before). Stacked row-major (scipy joins CSR blocks by concatenation) and converted once, so a
    build in blocks holds about two copies of the matrix at its peak, not the COO triplets of one."""
    n_columns = blocks[-1].shape[1]
    if len(blocks) == 1:
        return blocks[0].tocsc()
    stacked = sparse.vstack([with_columns(block, n_columns) for block in blocks], format="csr")
    blocks.clear()  # the caller's blocks go before the conversion makes its copy
    return stacked.tocsc()


def with_columns(matrix, n_columns: int):
    """`matrix` (CSR or CSC) seen with `n_columns` ≥ its column count; shares the stored arrays."""
    if matrix.shape[1] == n_columns:
        return matrix
    if matrix.shape[1] > n_columns:
        raise ValueError(f"cannot narrow a matrix from {matrix.shape[1]} to {n_columns} columns")
    shape = (matrix.shape[0], n_columns)
    if matrix.format == "csr":
        return sparse.csr_matrix((matrix.data, matrix.indices, matrix.indptr), shape=shape, copy=False)
    pad = np.full(n_columns - matrix.shape[1], matrix.indptr[-1], dtype=matrix.indptr.dtype)
    return sparse.csc_matrix(
        (matrix.data, matrix.indices, np.concatenate((matrix.indptr, pad))), shape=shape, copy=False
    )


def major_runs(indptr: np.ndarray, majors) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the stored entries of each major index in `majors` (columns of a CSC matrix,
    rows of a CSR one), run after run, and which entry of `majors` each position belongs to."""
    majors = np.asarray(majors, dtype=np.int64)
    starts = indptr[majors].astype(np.int64)
    lengths = indptr[majors + 1].astype(np.int64) - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    run_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    positions = np.arange(total, dtype=np.int64) + np.repeat(starts - run_starts, lengths)
    return positions, np.repeat(np.arange(majors.size, dtype=np.int64), lengths)


class AppendableCsc:
    """A rows × columns CSC matrix that grows by rows (and columns, as a vocabulary grows).

    `parts` are (first row, CSC matrix) pairs: the base, then the tail if rows were appended since
    the last merge. Every reader goes through `column_entries`, `column_counts` or `columns_dot`.
    """

    def __init__(self, matrix: sparse.csc_matrix) -> None:
        self._base = matrix.tocsc()
        self._tail: sparse.csc_matrix | None = None

    @property
    def shape(self) -> tuple[int, int]:
        if self._tail is None:
            return self._base.shape
        return self._base.shape[0] + self._tail.shape[0], self._tail.shape[1]

    @property
    def nnz(self) -> int:
        return self._base.nnz + (0 if self._tail is None else self._tail.nnz)

    @property
    def nbytes(self) -> int:
        return sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for _, m in self.parts)

    @property
    def parts(self) -> list[tuple[int, sparse.csc_matrix]]:
        if self._tail is None:
            return [(0, self._base)]
        return [(0, self._base), (self._base.shape[0], self._tail)]

    def append(self, bottom: sparse.csc_matrix) -> None:
        """Add `bottom`'s rows after the existing ones (it has at least as many columns)."""
        if bottom.shape[0] == 0:  # no rows, perhaps more columns
            if bottom.shape[1] > self.shape[1]:
                if self._tail is None:
                    self._base = with_columns(self._base, bottom.shape[1])
                else:
                    self._tail = with_columns(self._tail, bottom.shape[1])
            return
        if self._base.shape[0] == 0:
            self._base = append_rows(self._base, bottom)
            return
        self._tail = bottom.tocsc() if self._tail is None else append_rows(self._tail, bottom)
        if self._tail.shape[0] >= TAIL_ROWS:
            self.merge()

    def merge(self) -> None:
        """Fold the tail into the base (one copy of everything; amortised over the tail's rows)."""
        if self._tail is not None:
            self._base, self._tail = append_rows(self._base, self._tail), None

    def tocsc(self) -> sparse.csc_matrix:
        """The whole matrix as one CSC (merges first): for tests and one-off passes."""
        self.merge()
        return self._base

    def column_entries(self, columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, position in `columns`, value) of every stored entry of the given columns: the base's
        entries column by column in `columns` order, then the tail's. Each row lies in one part, so a
        row's entries come in `columns` order, as from a single matrix."""
        columns = np.asarray(columns, dtype=np.int64)
        rows, which, values = [], [], []
        for first, matrix in self.parts:
            known = columns < matrix.shape[1]
            if known.all():  # the usual case: no position to map back, no row offset for the base
                positions, term_idx = major_runs(matrix.indptr, columns)
            else:
                picked = np.flatnonzero(known)
                positions, term_idx = major_runs(matrix.indptr, columns[picked])
                term_idx = picked[term_idx]
            found = matrix.indices[positions]
            rows.append(found + first if first else found)
            which.append(term_idx)
            values.append(matrix.data[positions])
        if len(rows) == 1:
            return rows[0], which[0], values[0]
        return np.concatenate(rows), np.concatenate(which), np.concatenate(values)

    def column_counts(self, columns) -> np.ndarray:
        """Stored entries per column of `columns` (the document frequency over every row)."""
        columns = np.asarray(columns, dtype=np.int64)
        counts = np.zeros(columns.size, dtype=np.int64)
        for _, matrix in self.parts:
            known = columns < matrix.shape[1]
            cols = columns[known]
            counts[known] += matrix.indptr[cols + 1].astype(np.int64) - matrix.indptr[cols]
        return counts

    def columns_dot(self, columns, weights: np.ndarray) -> np.ndarray:
        """`M[:, columns] @ weights` over every row (float64), computed part by part in scipy's C
        loops; each row sums its entries in `columns` order, as one matrix would."""
        columns = np.asarray(columns, dtype=np.int64)
        weights = np.asarray(weights, dtype=np.float64)
        out = []
        for _, matrix in self.parts:
            known = columns < matrix.shape[1]
            if known.all():
                out.append(matrix[:, columns] @ weights)
            elif known.any():
                out.append(matrix[:, columns[known]] @ weights[known])
            else:
                out.append(np.zeros(matrix.shape[0], dtype=np.float64))
        return out[0] if len(out) == 1 else np.concatenate(out)


class GrowingCsr:
    """A CSR matrix that grows by rows in place: `indptr`, `indices` and `data` are views of buffers
    with spare room at the end, so appending a row costs the row (amortised), not the matrix."""

    def __init__(self, matrix: sparse.csr_matrix) -> None:
        matrix = matrix.tocsr()
        self.n_columns = matrix.shape[1]
        self._indptr = matrix.indptr.astype(np.int64)
        self._indices = matrix.indices.astype(np.int64)
        self._data = matrix.data.copy()
        self._rows, self._nnz = matrix.shape[0], matrix.nnz

    @property
    def shape(self) -> tuple[int, int]:
        return self._rows, self.n_columns

    @property
    def indptr(self) -> np.ndarray:
        return self._indptr[: self._rows + 1]

    @property
    def indices(self) -> np.ndarray:
        return self._indices[: self._nnz]

    @property
    def data(self) -> np.ndarray:
        return self._data[: self._nnz]

    @property
    def nbytes(self) -> int:
        return self._indptr.nbytes + self._indices.nbytes + self._data.nbytes

    def append(self, bottom: sparse.csr_matrix) -> None:
        """Add `bottom`'s rows (it may have more columns: the vocabulary grew)."""
        bottom = bottom.tocsr()
        rows, nnz = bottom.shape[0], bottom.nnz
        self._indptr = _room(self._indptr, self._rows + 1 + rows)
        self._indices = _room(self._indices, self._nnz + nnz)
        self._data = _room(self._data, self._nnz + nnz)
        self._indptr[self._rows + 1 : self._rows + 1 + rows] = bottom.indptr[1:].astype(np.int64) + self._nnz
        self._indices[self._nnz : self._nnz + nnz] = bottom.indices
        self._data[self._nnz : self._nnz + nnz] = bottom.data
        self._rows += rows
        self._nnz += nnz
        self.n_columns = max(self.n_columns, bottom.shape[1])

    def tocsr(self) -> sparse.csr_matrix:
        return sparse.csr_matrix(
            (self.data.copy(), self.indices.copy(), self.indptr.copy()), shape=self.shape
        )


def _room(buffer: np.ndarray, needed: int) -> np.ndarray:
    """`buffer`, or a larger copy of it when it holds fewer than `needed` entries."""
    if buffer.shape[0] >= needed:
        return buffer
    bigger = np.empty((max(needed, int(buffer.shape[0] * GROWTH) + 16),) + buffer.shape[1:], dtype=buffer.dtype)
    bigger[: buffer.shape[0]] = buffer
    return bigger


class Growing:
    """Spare room behind 1-d (or row-stacked) arrays: `extend(name, current, tail)` returns `current`
    followed by `tail` as a view of a buffer kept here, so a column grows by its new rows only.

    `current` is normally the array this object handed out last for `name`: recognised by its
    memory and length, it grows in place. Anything else (the first call, an array its owner replaced,
    an older shorter view) is copied into a new buffer, so a view handed out never changes."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}
        self._filled: dict[str, int] = {}

    def extend(self, name: str, current: np.ndarray, tail: np.ndarray) -> np.ndarray:
        tail = np.asarray(tail)
        n, k = current.shape[0], tail.shape[0]
        buffer = self._buffers.get(name)
        owned = (
            buffer is not None
            and buffer.dtype == current.dtype
            and buffer.shape[1:] == current.shape[1:]
            and current.base is buffer
            and current.__array_interface__["data"][0] == buffer.__array_interface__["data"][0]
            and self._filled.get(name) == n
        )
        if not owned:
            buffer = np.empty((max(n + k, int((n + k) * GROWTH) + 16),) + current.shape[1:], dtype=current.dtype)
            buffer[:n] = current
        elif buffer.shape[0] < n + k:
            buffer = _room(buffer, n + k)
        buffer[n : n + k] = tail
        self._buffers[name], self._filled[name] = buffer, n + k
        return buffer[: n + k]

    @property
    def nbytes(self) -> int:
        return sum(buffer.nbytes for buffer in self._buffers.values())
