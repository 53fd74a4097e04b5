"""Links held as columns of numbers, for indexes with millions of them.

A link is `(source id, kind, target id)`. Held as a Python tuple in a list, in per-source lists and in
per-target sets, 2.5 million links (a dream over a million facts) took 1.5 GB; here each link is
an int32 source, a uint8 kind and an int32 target (plus an int64 key where a caller groups links),
over one `NodeTable` that numbers the memory ids and kinds once.

A `LinkTable` reads as the sequence of tuples it holds (iteration, indexing, equality), so code
that walks links needs no change; code that holds millions uses the columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

Link = tuple[str, str, str]


class NodeTable:
    """Memory ids and link kinds, each numbered on first sight.

    Append-only: a number never changes meaning, so every table and graph built on one node table
    stays valid while later links add nodes."""

    __slots__ = ("ids", "number", "kinds", "kind_code")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.number: dict[str, int] = {}
        self.kinds: list[str] = []
        self.kind_code: dict[str, int] = {}

    def node(self, memory_id: str) -> int:
        found = self.number.get(memory_id)
        if found is None:
            found = self.number[memory_id] = len(self.ids)
            self.ids.append(memory_id)
        return found

    def kind(self, kind: str) -> int:
        found = self.kind_code.get(kind)
        if found is None:
            if len(self.kinds) >= 255:
                raise ValueError("more than 255 link kinds")
            found = self.kind_code[kind] = len(self.kinds)
            self.kinds.append(kind)
        return found

    # A snapshot keeps the lists; the lookups are rebuilt (a million-entry dict pickles slowly).
    def __getstate__(self):
        return self.ids, self.kinds

    def __setstate__(self, state) -> None:
        self.ids, self.kinds = state
        self.number = {memory_id: n for n, memory_id in enumerate(self.ids)}
        self.kind_code = {kind: n for n, kind in enumerate(self.kinds)}


_NO_NODES = np.zeros(0, dtype=np.int32)


class LinkTable(Sequence):
    """Links in order, as columns over `nodes`; `key` (int64, ascending when given) groups them.

    Never edited in place: a change makes a new table, so a cache keyed on a table's identity (the
    recall graph) knows when to rebuild."""

    __slots__ = ("nodes", "src", "kind", "dst", "key")

    def __init__(self, nodes: NodeTable, src=_NO_NODES, kind=None, dst=_NO_NODES, key=None) -> None:
        self.nodes = nodes
        self.src, self.dst = src, dst
        self.kind = np.zeros(len(src), dtype=np.uint8) if kind is None else kind
        self.key = key

    @classmethod
    def of(cls, nodes: NodeTable, links: Iterable[Link], keys: Iterable[int] | None = None) -> LinkTable:
        """A table of `links` (tuples), grouped by `keys` when given (one per link, ascending)."""
        src, kind, dst = [], [], []
        for source, link_kind, target in links:
            src.append(nodes.node(source))
            kind.append(nodes.kind(link_kind))
            dst.append(nodes.node(target))
        key = None if keys is None else np.fromiter(keys, dtype=np.int64, count=len(src))
        return cls(nodes, np.array(src, dtype=np.int32), np.array(kind, dtype=np.uint8),
                   np.array(dst, dtype=np.int32), key)  # fmt: skip

    def __len__(self) -> int:
        return len(self.src)

    def __iter__(self) -> Iterator[Link]:
        ids, kinds = self.nodes.ids, self.nodes.kinds
        for s, k, d in zip(self.src.tolist(), self.kind.tolist(), self.dst.tolist(), strict=True):
            yield ids[s], kinds[k], ids[d]

    def __getitem__(self, at):
        if isinstance(at, slice):
            return self._rows(np.arange(len(self))[at])
        ids = self.nodes.ids
        return ids[int(self.src[at])], self.nodes.kinds[int(self.kind[at])], ids[int(self.dst[at])]

    def __eq__(self, other) -> bool:
        if isinstance(other, LinkTable | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # mutable neighbours (the node table) make a hash meaningless

    def __repr__(self) -> str:
        return f"LinkTable({list(self)!r})"

    def _rows(self, rows: np.ndarray) -> LinkTable:
        key = None if self.key is None else self.key[rows]
        return LinkTable(self.nodes, self.src[rows], self.kind[rows], self.dst[rows], key)

    def __add__(self, other: LinkTable) -> LinkTable:
        """This table's links, then `other`'s (a key column survives only if both have one)."""
        if other.nodes is not self.nodes:
            raise ValueError("link tables over different node tables")
        key = None if self.key is None or other.key is None else np.concatenate((self.key, other.key))
        return LinkTable(self.nodes, np.concatenate((self.src, other.src)), np.concatenate((self.kind, other.kind)),
                         np.concatenate((self.dst, other.dst)), key)  # fmt: skip

    # ------------------------------------------------------------- groups by key

    def group(self, key: int) -> list[Link]:
        """The links whose key is `key`, in order (the table's keys ascend)."""
        lo, hi = np.searchsorted(self.key, [key, key + 1])
        return list(self._rows(np.arange(lo, hi)))

    def last_key(self, default: int = -1) -> int:
        return int(self.key[-1]) if len(self) else default

    def replacing(self, keys: Sequence[int], groups: LinkTable) -> LinkTable:
        """This table with the groups of `keys` dropped and `groups`' links put in key order
        (stable: links of one key keep their order, and earlier groups stay first)."""
        kept = self._rows(np.flatnonzero(~np.isin(self.key, np.asarray(keys, dtype=np.int64))))
        if not len(groups):
            return kept
        joined = kept + groups
        return joined._rows(np.argsort(joined.key, kind="stable"))


def targets_by_source(table: LinkTable) -> dict[str, int | tuple[int, ...]]:
    """Target id → the key (or keys, ascending) of the groups that link to it: what a change to a
    target must look at. One int where there is one group (most targets), else a tuple."""
    if table.key is None or not len(table):
        return {}
    order = np.lexsort((table.key, table.dst))
    dst, key = table.dst[order], table.key[order]
    starts = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]])
    ends = np.r_[starts[1:], len(dst)]
    ids, keys = table.nodes.ids, key.tolist()
    out: dict[str, int | tuple[int, ...]] = {}
    for start, end, target in zip(starts.tolist(), ends.tolist(), dst[starts].tolist(), strict=True):
        group = keys[start:end]
        distinct = tuple(dict.fromkeys(group))
        out[ids[target]] = distinct[0] if len(distinct) == 1 else distinct
    return out


class _Adjacency:
    """One direction of a `TableGraph`: a node's (other id, kind) pairs in link order."""

    __slots__ = ("nodes", "start", "other", "kind")

    def __init__(
        self, nodes: NodeTable, ends: np.ndarray, others: np.ndarray, kinds: np.ndarray, size: int
    ) -> None:
        order = np.argsort(ends, kind="stable")  # stable: each node's edges stay in link order
        self.nodes = nodes
        self.start = np.concatenate(([0], np.cumsum(np.bincount(ends, minlength=size)))).astype(np.int64)
        self.other, self.kind = others[order], kinds[order]

    def get(self, memory_id: str, default=()):
        node = self.nodes.number.get(memory_id)
        if node is None or node + 1 >= len(self.start):
            return default
        lo, hi = int(self.start[node]), int(self.start[node + 1])
        ids, kinds = self.nodes.ids, self.nodes.kinds
        return [
            (ids[o], kinds[k])
            for o, k in zip(self.other[lo:hi].tolist(), self.kind[lo:hi].tolist(), strict=True)
        ]


class TableGraph:
    """The graph walk's adjacency (`graph_recall.Graph`'s `out`, `into` and membership) over a
    `LinkTable`, as the same edges in the same order as `graph_recall.build_graph` over its links and
    their ends: self-edges dropped, a repeated (source, kind, target) kept once, at its first place."""

    def __init__(self, table: LinkTable) -> None:
        size = len(table.nodes.ids)
        src, kind, dst = table.src, table.kind, table.dst
        code = (src.astype(np.int64) * 256 + kind) * max(size, 1) + dst
        _, first = np.unique(code, return_index=True)
        first.sort()
        first = first[src[first] != dst[first]]
        s, k, d = src[first], kind[first], dst[first]
        self.out = _Adjacency(table.nodes, s, d, k, size)
        self.into = _Adjacency(table.nodes, d, s, k, size)
        self._ends = np.zeros(size, dtype=bool)
        self._ends[src], self._ends[dst] = True, True
        self._nodes = table.nodes

    def __contains__(self, memory_id: str) -> bool:
        node = self._nodes.number.get(memory_id)
        return node is not None and node < len(self._ends) and bool(self._ends[node])
