"""The links a recall index walks: read from the database, then kept in step with the event log.

Part of `memory.services.recall.index` (which owns the index and calls these under its lock). The
links are held as `LinkTable` columns (memory.engine.maintenance.link_table): after a dream over a million facts
a scope holds 2.5 million links, and as tuples, lists and sets they took 1.5 GB.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from memory.engine.maintenance.link_table import LinkTable, NodeTable, TableGraph, targets_by_source
from memory.models import Link
from memory.services.recall import paged

# Past this many changed facts in one sync, every link of the scope is re-read instead of those
# touching the changed facts (one query without a long list of ids).
LINK_REREAD_LIMIT = 500

# Links read per round trip while loading (memory.services.recall.paged).
LINK_CHUNK = 20_000

_FIELDS = ("from_fact_id", "from_fact__memory_id", "kind", "to_fact__memory_id")


@dataclass(eq=False)
class IndexLinks:
    """Every edge the graph walk follows, in its order (`all`): the stored links by (from fact pk,
    position, link pk), then each fact's `supersedes` list in pk order. Kept in parts to be updated
    by parts."""

    nodes: NodeTable = field(default_factory=NodeTable)
    stored: LinkTable = field(init=False)  # keyed by the from-fact's pk
    supersedes: LinkTable = field(init=False)
    all: LinkTable = field(init=False)
    # Target id → pk (or pks, ascending) of the facts whose stored links reach it.
    into: dict[str, int | tuple[int, ...]] = field(default_factory=dict)
    dangling: set[str] = field(default_factory=set)  # `supersedes` targets not (yet) in the rows
    graph: tuple | None = None  # (the `all` table it was built from, its TableGraph)

    def __post_init__(self) -> None:
        self.stored = LinkTable(self.nodes, key=np.zeros(0, np.int64))
        self.supersedes = self.all = LinkTable(self.nodes)

    @property
    def nbytes(self) -> int:
        """Approximate memory: the columns, and per target and per node a dict entry and its objects."""
        arrays = sum(
            part.nbytes for table in (self.stored, self.supersedes, self.all)
            for part in (table.src, table.kind, table.dst, table.key) if part is not None
        )  # fmt: skip
        return arrays + 100 * len(self.into) + 110 * len(self.nodes.ids)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["graph"] = None  # rebuilt on first use
        return state


class LinkedScope(Protocol):
    """What these functions read and set on a recall index (`ScopeIndex` in memory.services.recall.index,
    which calls them): its scope, its rows with their columns and metadata, and its links."""

    workspace_id: int
    origin_key: str
    rows: dict[str, Any]
    meta: dict[str, Any]
    cols: Any
    extra: Any
    link_state: IndexLinks


def graph_of(links: IndexLinks) -> TableGraph:
    """The adjacency of `links.all`, built once per change (the table is replaced, never edited)."""
    cached = links.graph
    if cached is None or cached[0] is not links.all:
        cached = links.graph = (links.all, TableGraph(links.all))
    return cached[1]


def _scope_links(index: LinkedScope):
    """The stored links between two facts of the scope, in the walk's order."""
    origin = index.origin_key
    return Link.objects.filter(
        workspace_id=index.workspace_id, from_fact__origin_key=origin, to_fact__origin_key=origin
    ).order_by("from_fact_id", "position", "pk")


def _own(index: LinkedScope, memory_id: str) -> str:
    """The index's own string for a fact's id: the database hands back a new one per row."""
    row = index.rows.get(memory_id)
    return row.memory_id if row is not None else memory_id


def load(index: LinkedScope) -> None:
    """Read every link of the scope (a new or rebuilt index, or a bulk import of links).

    Read by fact pks alone, without joining the facts twice to check both ends' origin: an end
    is in the scope when its pk is one of the index's rows (they are every fact of the origin, in pk
    order). With the joins, 2.5 million links took 33 s in PostgreSQL before the first row came."""
    links = IndexLinks()
    nodes = links.nodes
    cols, extra = index.cols, index.extra
    if cols is not None and extra is not None and len(extra.pk):
        from_pks, to_pks, kind = array("q"), array("q"), array("B")
        # A dangling link (its target not in the workspace yet) has no target pk: nothing to walk.
        found = (Link.objects.filter(workspace_id=index.workspace_id, to_fact_id__isnull=False)
                 .order_by("from_fact_id", "position", "pk"))  # fmt: skip
        for from_pk, link_kind, to_pk in paged.rows(found.values_list("from_fact_id", "kind", "to_fact_id"), LINK_CHUNK):
            from_pks.append(from_pk)
            to_pks.append(to_pk)
            kind.append(nodes.kind(link_kind))
        src, dst = _rows_of(extra.pk, from_pks), _rows_of(extra.pk, to_pks)
        inside = np.flatnonzero((src >= 0) & (dst >= 0))
        keys = np.frombuffer(from_pks, np.int64)[inside]
        src, dst, kind = src[inside], dst[inside], np.frombuffer(kind, np.uint8)[inside]
        del from_pks, to_pks
        # Nodes are the linked rows only, numbered in row order, holding the rows' own id strings.
        linked = np.unique(np.concatenate((src, dst)))
        nodes.ids = [cols.memory_ids[row] for row in linked.tolist()]
        nodes.number = {memory_id: n for n, memory_id in enumerate(nodes.ids)}
        links.stored = LinkTable(nodes, np.searchsorted(linked, src).astype(np.int32), kind,
                                 np.searchsorted(linked, dst).astype(np.int32), keys)  # fmt: skip
        links.into = targets_by_source(links.stored)
    links.supersedes, links.dangling = _supersedes(index, nodes, _superseding_ids(index))
    links.all = links.stored + links.supersedes
    index.link_state = links


def _rows_of(row_pks: np.ndarray, pks: array) -> np.ndarray:
    """The row of each pk in `row_pks` (ascending), or -1 for a pk that is not a row."""
    wanted = np.frombuffer(pks, np.int64)
    rows = np.searchsorted(row_pks, wanted)
    rows[rows == len(row_pks)] = 0  # past the last row: not a row (row_pks is never empty here)
    return np.where(row_pks[rows] == wanted, rows, -1)


def _superseding_ids(index: LinkedScope, among=None) -> list[str]:
    """The ids (of `among`, default every row) of facts with a `supersedes` list, in pk order."""
    meta = index.meta
    ids = meta.keys() if among is None else among
    return sorted((m for m in ids if meta[m].supersedes), key=lambda m: meta[m].pk)


def _supersedes(index: LinkedScope, nodes: NodeTable, ids: list[str]) -> tuple[LinkTable, set[str]]:
    # A fact's `supersedes` list is read as edges too, after its stored links (ENGINE-SPEC §5.2),
    # fact by fact in write order; a target outside the scope's facts is no edge (yet).
    edges, dangling = [], set()
    for memory_id in ids:
        for target in index.meta[memory_id].supersedes:
            if target in index.rows:
                edges.append((_own(index, memory_id), "supersedes", _own(index, target)))
            else:
                dangling.add(target)
    return LinkTable.of(nodes, edges), dangling


def update(index: LinkedScope, touched: set[str], new_ids: set[str], before: dict[str, list],
           everything: bool = False) -> None:  # fmt: skip
    """Bring the links up to date after the facts `touched` changed (`new_ids` among them are new,
    `before` holds the others' earlier `supersedes`), reading only links that touch them.

    Every writer of links names in its event the facts it links from (a bulk import names none:
    `everything`), so a from-fact whose links changed is touched or links to a touched fact.
    Those from-facts have their links re-read whole; their place in the walk's order is kept
    (appended when they come after every other, else the stored part is laid out again).
    """
    links = index.link_state
    pks = [index.meta[mid].pk for mid in touched if mid in index.meta]
    if everything or len(pks) > LINK_REREAD_LIMIT:  # a bulk change: one scan beats long id lists
        load(index)
        return
    if not pks:
        return
    # From-facts whose links may have changed: the touched facts, and those that link to one of
    # them now or did before (a removed link).
    linked_before: set[int] = set()
    for memory_id in touched:
        sources = links.into.get(memory_id, ())
        linked_before.update((sources,) if isinstance(sources, int) else sources)
    # Two plain lookups, each by an index: one query ORing a subquery made PostgreSQL read every
    # link of the workspace (~400 ms per write at 2.5 million links).
    linking_now = set(
        Link.objects.filter(to_fact_id__in=pks).order_by().values_list("from_fact_id", flat=True)
    )
    from_pks = sorted(set(pks) | linking_now | linked_before)
    groups: dict[int, list[tuple[str, str, str]]] = {}
    for from_pk, source, kind, target in (
        _scope_links(index).filter(from_fact_id__in=from_pks).values_list(*_FIELDS)
    ):
        groups.setdefault(from_pk, []).append((_own(index, source), kind, _own(index, target)))
    changed, relaid = [], False
    last = links.stored.last_key()
    for from_pk in sorted(set(pks) | linked_before | set(groups)):
        old, new = links.stored.group(from_pk), groups.get(from_pk, [])
        if old == new:
            continue
        _move_into(links.into, from_pk, {target for _, _, target in old}, {target for _, _, target in new})
        changed.append(from_pk)
        relaid |= bool(old) or from_pk < last
    if changed:
        order = [pk for pk in changed for _ in groups.get(pk, ())]
        fresh = LinkTable.of(links.nodes, [link for pk in changed for link in groups.get(pk, ())], order)
        # Links of an earlier fact changed: lay the stored part out again (rare); else append.
        links.stored = links.stored.replacing(changed, fresh) if relaid else links.stored + fresh
    supersedes_changed = _update_supersedes(index, links, new_ids, before)
    if changed or supersedes_changed:
        links.all = links.stored + links.supersedes


def _update_supersedes(
    index: LinkedScope, links: IndexLinks, new_ids: set[str], before: dict[str, list]
) -> bool:
    meta = index.meta
    if any(meta[m].supersedes != targets for m, targets in before.items() if m in meta) or (
        not links.dangling.isdisjoint(new_ids)
    ):
        links.supersedes, links.dangling = _supersedes(index, links.nodes, _superseding_ids(index))
        return True
    if not new_ids:
        return False
    added, dangling = _supersedes(index, links.nodes, _superseding_ids(index, new_ids))
    links.dangling |= dangling
    if not len(added):
        return False
    links.supersedes = links.supersedes + added
    return True


def _held(sources) -> tuple[int, ...]:
    return () if sources is None else (sources,) if isinstance(sources, int) else sources


def _move_into(into: dict, from_pk: int, old: set[str], new: set[str]) -> None:
    """Keep `into` (target → linking pk or pks) in step when `from_pk`'s targets go from `old` to `new`."""
    changes = [(target, tuple(pk for pk in _held(into.get(target)) if pk != from_pk)) for target in old - new]
    changes += [(target, tuple(sorted({*_held(into.get(target)), from_pk}))) for target in new - old]
    for target, pks in changes:
        if not pks:
            into.pop(target, None)
        else:
            into[target] = pks[0] if len(pks) == 1 else pks
