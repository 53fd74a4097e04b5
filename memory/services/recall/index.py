"""The in-memory recall index: a cache derived from the database, one per (workspace, origin).

ARCHITECTURE.md §4. An index holds every fact of one origin (any lifecycle, so point-in-time recall
can see what was live then) as engine columns (`FactColumns`: BM25 matrix, HRR vectors, scoring
arrays) plus the links between them. Before each use it compares its revision with the workspace's
and applies the events in between: changed facts are re-read by id and patched in place; new facts
are appended to the columns, their text indexes and the vector matrices (only the new contents are
analysed), and the links touching the changed facts are re-read. The result equals an index built
from scratch, row for row: rows stay in write (pk) order, which ties in ranking fall back to. When
that cannot hold by appending (a fact was purged or shredded, or a new fact's pk is older than a
known one) the columns are rebuilt from cached rows instead (tokens and vectors are not recomputed).
Several processes therefore stay coherent through the revision counter alone. A shredded origin
(its data key destroyed, `memory.services.keys.crypto_shred`) holds no rows at all: its index drops every
row, column and vector as soon as its sync sees the `shredded` event, or a touched fact cannot be
unsealed, or (checked on every use) the key is gone from the key store. Indexes are evicted
least recently used under a memory budget (`TIDELINE_RECALL_INDEX_BUDGET_MB`).

A build or sync that fails part-way leaves no half-built index behind: the index is emptied, marked
broken and dropped from the registry, and the failure is raised as `RecallIndexUnavailable`. The next
recall builds again from the database. An index is never answered from after a failure, since an
index missing its columns would answer "nothing relevant" where facts exist.
"""

from __future__ import annotations

import copy
import functools
import gc
import logging
import operator
import threading
import time
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from typing import Any

import numpy as np
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.models import Count

from memory import replica, sealing
from memory.engine import tuning
from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry
from memory.engine.maintenance.link_table import LinkTable
from memory.engine.recall.appendable import Growing
from memory.engine.recall.candidates import FactColumns, FactRow
from memory.engine.recall.heap import release_free_memory
from memory.engine.recall.hrr import HrrEmbedder
from memory.engine.recall.tokenize import index_tokens
from memory.models import Fact, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.services.recall import fact_rows, index_links, index_snapshots, paged, reinforcement
from memory.services.recall.index_links import IndexLinks
from memory.services.writes.policy import TidelineError
from memory.timestamps import to_ms
from tideline_kit import telemetry

logger = logging.getLogger(__name__)


class RecallIndexUnavailable(RequestError):
    """An origin's recall index could not be built or brought up to date, so recall refuses to answer."""

    kind = "index_unavailable"

    def __init__(self, cause: BaseException | None = None) -> None:
        reason = f" ({type(cause).__name__})" if cause is not None else ""
        super().__init__(
            f"the recall index of this origin could not be built{reason}; nothing was recalled rather than a "
            "partial answer. Try again; if it keeps failing, the server log has the cause.",
            details={"cause": type(cause).__name__} if cause is not None else None,
        )


CLEARANCE = {"PUBLIC": 0, "INTERNAL": 1, "PII": 2}


@dataclass(slots=True)
class RowMeta:
    """Per fact, what recall filters and orders on beyond its `FactRow` (slots: an index holds one
    per fact, a million at the largest sizes, where a dict each cost ~0.5 GB)."""

    pk: int
    clearance: int
    intent_scope: str
    archived_at: float | None
    pruned_at: float | None
    modality: str
    visible_from: float | None
    media_pointer: str
    supersedes: list
    tier: str
    classification: str


@dataclass
class Extra:
    """Per-row data the engine columns do not carry, kept aligned with them."""

    pk: np.ndarray
    clearance: np.ndarray
    intent_scope: np.ndarray
    unscoped: np.ndarray  # intent_scope == "" (kept as booleans: comparing objects per query is slow)
    archived_at: np.ndarray
    pruned_at: np.ndarray
    # A held write is recallable from its admission on (inf while held or once blocked; nan if never held).
    visible_from: np.ndarray
    # What retention rules look at beyond the engine columns (memory.engine.lifecycle.expiry).
    tier: np.ndarray
    classification: np.ndarray
    modality: list
    media_pointer: list
    growing: Growing = field(default_factory=Growing, repr=False)


_EXTRA_ARRAYS = ("pk", "clearance", "intent_scope", "unscoped", "archived_at", "pruned_at", "visible_from", "tier",
                 "classification")  # fmt: skip


@dataclass(frozen=True)
class Learned:
    """One embedder's vectors laid out like the index's columns (zero rows where a fact has none)."""

    embeddings: np.ndarray
    embedded: np.ndarray
    norms: np.ndarray


@dataclass
class ScopeIndex:
    workspace_id: int
    origin_key: str
    revision: int = -1
    # The workspace's `uses_version` this index has taken recall uses up to (see `_sync_uses`).
    uses_seen: int = -1
    # Which workspace row this index was built from: an id can come back after a rolled-back
    # transaction (SQLite reuses it; the eval harness rolls back on purpose), a creation time cannot.
    born: Any = None
    rows: dict[str, FactRow] = field(default_factory=dict)
    meta: dict[str, RowMeta] = field(default_factory=dict)
    link_state: IndexLinks = field(default_factory=IndexLinks)  # the links the graph walk follows
    cols: FactColumns | None = None
    vector_cols: FactColumns | None = None  # the same columns plus HRR vectors, built when asked for
    # Learned-embedder vectors by fact, and per fingerprint the matrix aligned with `cols`' rows.
    vectors: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)
    learned: dict[str, Learned] = field(default_factory=dict)
    extra: Extra | None = None
    # The spec lanes' tokens of each text this index has analysed (`_Analyzer`).
    lexical_tokens: dict[str, list[str]] = field(default_factory=dict)
    # The workspace's retention rules as of `revision` (a policy change is a mutation, so it bumps it).
    expiry_rules: tuple = ()
    # The workspace's tuning in force as of `revision` (memory.engine.tuning) and its version.
    tuning: Any = None
    tuning_version: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)
    # Set when a sync failed: the index was emptied and left the registry. A caller that fetched it
    # before must not read it (`usable`), and the registry's next `get` starts a fresh one.
    broken: bool = False
    # What the registry counts this index as holding (in its running total), and `size_bytes` as last
    # measured with the state it was measured in (`_measured`).
    counted_bytes: int = 0
    measured_bytes: int = 0
    measured_as: tuple = ()

    def usable(self) -> ScopeIndex:
        """This index, unless a failed sync emptied it (then `RecallIndexUnavailable`). Call under `lock`."""
        if self.broken:
            raise RecallIndexUnavailable()
        return self

    def forget(self) -> None:
        """Drop every derived structure (kept in step with the fields above) and mark the index broken."""
        self.drop_content()
        self.revision, self.born = -1, None
        self.broken = True

    def drop_content(self) -> None:
        """Drop every row, column, vector and link, keeping the revision: the origin was shredded, its
        facts are tombstones that are never recalled, and the index stays in step with the log."""
        self.rows, self.meta = {}, {}
        self.link_state = IndexLinks()
        self.cols = self.vector_cols = self.extra = None
        self.vectors, self.learned, self.lexical_tokens = {}, {}, {}

    @property
    def links(self) -> LinkTable:
        """Every edge the graph walk follows, in its order (see `IndexLinks`)."""
        return self.link_state.all

    @property
    def size_bytes(self) -> int:
        """Approximate memory of the index, as the process's resident memory grows with it: the arrays
        and matrices as they measure, and the Python objects by calibrated constants (see
        `ROW_BYTES`). Costs a pass over the rows: the registry asks only when the index changed."""
        if self.cols is None:
            return 0
        total = 120 * len(self.cols)  # numeric columns and per-row bookkeeping
        total += ROW_BYTES * len(self.rows) + sum(len(row.content) for row in self.rows.values())
        total += self.link_state.nbytes
        bm25 = self.cols.bm25
        text = self.cols.text
        # The term matrices (with their row-major copies once expansion built them) and n-gram weights.
        for part in (bm25._target if isinstance(bm25, _Lazy) else bm25, text._stems, text._ngrams):
            total += getattr(part, "nbytes", 0) + VOCABULARY_ENTRY_BYTES * len(getattr(part, "vocabulary", ()))
        if self.vector_cols is not None and self.vector_cols.embeddings is not None:
            total += self.vector_cols.embeddings.nbytes
        total += sum(learned.embeddings.nbytes + learned.norms.nbytes for learned in self.learned.values())
        return int(total)


# What an index's Python objects take beyond its arrays, fitted on the resident memory of a process
# holding 301 small indexes (43,648 facts) and one holding three large ones (100,027 facts), on
# PostgreSQL (docs/BENCHMARKS.md, "Many workspaces"): per fact its row and metadata objects, ids
# and bookkeeping (plus its text, a byte a character); per term of a vocabulary (stems, n-grams) its
# dict entry, string and column number. Counting only the arrays had put a small index at a fifth
# of what it holds, so the memory budget let a process grow past a gigabyte.
ROW_BYTES = 1400
VOCABULARY_ENTRY_BYTES = 85

# Facts read per round trip while loading (a server-side cursor on PostgreSQL).
LOAD_CHUNK = 5000

# Touched ids read per query (SQLite binds at most 32,766 parameters per statement).
TOUCHED_CHUNK = 5000


class _Analyzer:
    """The spec lanes' analyzer, remembering each text's tokens in `cache`: the index's own, so a
    rebuild after a write re-indexes every document by copying, and the texts go when the index
    goes (a process-wide cache kept the plaintext of evicted and shredded indexes). A snapshot keeps
    the analyzer, not what it remembered."""

    def __init__(self, cache: dict[str, list[str]]) -> None:
        self.cache = cache

    def __call__(self, text: str) -> list[str]:
        tokens = self.cache.get(text)
        if tokens is None:
            tokens = self.cache[text] = index_tokens(text)
        return tokens

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.cache = {}


def _label(value):
    """One shared object per distinct label (segment, tier, lifecycle…): the database hands back a
    new string per row, and a million facts held seven copies each of a few words (0.4 GB)."""
    if value is None:
        return None
    shared = _labels.get(value)
    if shared is None:
        if len(_labels) >= 10_000:
            _labels.clear()
        shared = _labels[value] = value
    return shared


_labels: dict[str, str] = {}


# The `supersedes` of a fact that supersedes nothing (most of them): one list for all, never edited.
_NO_TARGETS: list = []


def _row_of(row: fact_rows.Columns, content: str, embedding) -> FactRow:
    parts = (row.origin_kind, row.channel_id, row.conversation_id, row.session_key, row.account_id)
    origin = _origins.get(parts)
    if origin is None:  # one object per origin, not per fact (an index holds a single origin)
        if len(_origins) >= 10_000:
            _origins.clear()
        origin = _origins[parts] = R.Origin(*parts)
    return FactRow(
        memory_id=row.memory_id, content=content, segment=_label(row.segment), created_at=row.created_at,
        importance=row.importance, tier=_label(row.tier), decay_rate=row.decay_rate, access_count=row.access_count,
        last_accessed_at=row.last_accessed_at, lifecycle=_label(row.lifecycle), valid_to=row.valid_to,
        confidence=row.confidence, status=_label(row.status), source_type=_label(row.source_type),
        embedding=embedding, origin=origin,
    )  # fmt: skip


def _meta_of(row: fact_rows.Columns) -> RowMeta:
    return RowMeta(
        pk=row.id, clearance=CLEARANCE.get(row.classification, 1), intent_scope=_label(row.intent_scope or ""),
        archived_at=row.archived_at, pruned_at=row.pruned_at, modality=_label(row.modality),
        visible_from=_visible_from(row.held_at, row.admitted_at), media_pointer=row.media_pointer,
        supersedes=row.supersedes or _NO_TARGETS, tier=_label(row.tier or ""),
        classification=_label(row.classification or ""),
    )  # fmt: skip


_origins: dict[tuple, R.Origin] = {}


def _measured(index: ScopeIndex) -> int:
    """The index's `size_bytes`, measured again only when what it holds may have changed since it was
    last measured (another revision, columns, vectors, links or rows). Call under the index's lock."""
    state = (index.revision, id(index.cols), id(index.vector_cols), id(index.link_state), len(index.rows),
             tuple(index.learned))  # fmt: skip
    if state != index.measured_as:
        index.measured_as, index.measured_bytes = state, index.size_bytes
    return index.measured_bytes


class IndexRegistry:
    """Process-wide LRU of scope indexes."""

    def __init__(self) -> None:
        self._indexes: OrderedDict[tuple[int, str], ScopeIndex] = OrderedDict()
        self._held = 0  # the sum of the indexes' `counted_bytes`
        self._lock = threading.Lock()
        self.embedder = HrrEmbedder()

    def get(self, workspace: Workspace | int, origin: R.Origin) -> ScopeIndex:
        """The fresh index of one origin of one workspace (built on first use, synced on every use)."""
        workspace_id = workspace.pk if isinstance(workspace, Workspace) else workspace
        key = (workspace_id, origin.key)
        with self._lock:
            index = self._indexes.get(key)
            if index is None:
                index = self._indexes[key] = ScopeIndex(workspace_id, origin.key)
            self._indexes.move_to_end(key)
        with index.lock:
            index.usable()  # a concurrent sync failed after we fetched it; the next call builds anew
            # Asked first and alone: if the database cannot answer (a pool full for a moment), the
            # error is raised with nothing changed, and the index stays for the next call to use.
            found = _revision_of(index.workspace_id)
            try:
                _drop_if_shredded(index)
                self._sync(index, found)
            except BaseException as error:
                self._discard(key, index)
                # Already typed (a refused request, a sealing policy) or not ours to name (the database,
                # an interrupt): raised as it is. Anything else is a fault in building the index.
                if isinstance(error, (RequestError, TidelineError, DatabaseError)) or not isinstance(error, Exception):
                    raise
                logger.exception("recall index of workspace %s, origin %s failed to build", workspace_id, origin.key)
                raise RecallIndexUnavailable(error) from error
            size = _measured(index)
        with self._lock:
            if self._indexes.get(key) is index:
                self._held += size - index.counted_bytes
                index.counted_bytes = size
        self._evict()
        return index

    def _discard(self, key: tuple[int, str], index: ScopeIndex) -> None:
        """Empty a failed index and take it out of the registry, so the next `get` builds afresh."""
        index.forget()
        with self._lock:
            if self._indexes.get(key) is index:
                del self._indexes[key]
                self._held -= index.counted_bytes

    def clear(self) -> None:
        """Let every index go, and the memory of a large one with it (see `release_heap`)."""
        with self._lock:
            largest = max((_facts_in(index) for index in self._indexes.values()), default=0)
            self._indexes.clear()
            self._held = 0
        release_heap(largest)

    def _evict(self) -> None:
        """Let the least recently used indexes go while those held exceed the budget (the one just
        used always stays). The registry keeps the running total, so this costs nothing per call."""
        budget = float(getattr(settings, "TIDELINE_RECALL_INDEX_BUDGET_MB", 512)) * 1024 * 1024
        evicted = 0
        with self._lock:
            while len(self._indexes) > 1 and self._held > budget:
                gone = self._indexes.popitem(last=False)[1]
                self._held -= gone.counted_bytes
                evicted = max(evicted, _facts_in(gone))
        release_heap(evicted)

    # ---------------------------------------------------------------- syncing

    def _sync(self, index: ScopeIndex, found=None) -> None:
        """Bring the index up to `found` = (revision, created_at, uses_version) of its workspace (read
        now if not given): the mutations since its revision, then the recall uses written since."""
        found = found if found is not None else _revision_of(index.workspace_id)
        if found is None:
            index.rows, index.meta, index.cols, index.revision = {}, {}, None, -1
            return
        self._sync_revision(index, found)
        self._sync_uses(index, found[2])

    def _build(self, index: ScopeIndex, current: int, born, uses: int) -> str:
        """Fill an empty index; returns where from. From its snapshot or the read replica, as of an
        earlier revision ("snapshot", "replica": the events since must follow), or from the
        primary as of `current` ("database")."""
        # A full build decrypts every fact: it must see a shred made by another process a moment
        # ago, so the key is read from the key store, not from this process's short-lived cache.
        sealing.keyring.forget(index.workspace_id, index.origin_key)
        _read_workspace_settings(index)
        with _building(index):
            restored = not _snapshot_outdated(index, current) and self._restore(index, current, born)
        if restored:
            return "snapshot"
        source = "replica" if replica.available() and self._load_from_replica(index, current, born) else "database"
        if source == "database":
            with _building(index):
                self._load_everything(index, current, uses)  # the rows read hold every use up to `uses`
        if index_snapshots.enabled_for(len(index.rows)):
            self.save_snapshot(index)
        return source

    def _load_everything(self, index: ScopeIndex, revision: int, uses: int, using: str = DEFAULT_DB_ALIAS) -> None:
        """Read every fact, vector and link of the scope (as of `revision` and `uses`) and lay them out."""
        self._load(index, using=using)
        self._load_vectors(index, None)
        index.revision, index.uses_seen = revision, uses
        self._rebuild(index)
        index_links.load(index)

    def _load_from_replica(self, index: ScopeIndex, current: int, born) -> bool:
        """Build from the read replica, as of the revision it has (memory.replica); False, with
        nothing kept, when it cannot serve this workspace now."""
        try:
            with replica.reading() as alias, _building(index):
                found = _revision_of(index.workspace_id, using=alias)
                if found is None or found[1] != born or current - found[0] > replica.max_behind():
                    return False  # not there yet, or so far behind that the primary is cheaper
                _read_workspace_settings(index)  # as of the same revision as the facts
                self._load_everything(index, found[0], found[2], using=alias)
            return True
        except DatabaseError as error:
            replica.failed(error)
            index.drop_content()  # whatever the replica's rows had filled in
            index.revision = -1
            _read_workspace_settings(index)
            return False

    def held_bytes(self) -> int:
        """What every index this process holds takes, as `size_bytes` estimated it when each was last used."""
        with self._lock:
            return self._held

    def _sync_revision(self, index: ScopeIndex, found) -> None:
        current, born, uses = found
        if index.born is not None and born != index.born:
            index.rows, index.meta, index.cols, index.revision = {}, {}, None, -1
            index.link_state = IndexLinks()
            index.vectors, index.learned = {}, {}
        index.born = born
        if index.revision < 0:
            with telemetry.operation("memory.recall_index.build", workspace_id=index.workspace_id) as op:
                source = self._build(index, current, born, uses)
                op.set(source=source, records=len(index.rows))
            if source == "database":
                return
            # Built as of the snapshot's or the replica's revision: the events since follow below,
            # from the primary, as for any index.
        if current == index.revision:
            return
        _read_workspace_settings(index)
        touched: set[str] = set()
        all_links = shredded = False
        for kind, fact_ids in _events_since(index.workspace_id, index.revision, current):
            touched.update(fact_ids or ())
            # A bulk import links facts without naming them: re-read every link of the scope.
            all_links |= kind == MemoryEvent.Kind.LINKED and not fact_ids
            shredded |= kind == MemoryEvent.Kind.SHREDDED and not index.meta.keys().isdisjoint(fact_ids or ())
        if shredded:
            # Another process shredded this origin: drop the plaintext now, and read the key store
            # afresh (this process may still hold the destroyed key for a second or two).
            sealing.keyring.forget(index.workspace_id, index.origin_key)
            _drop_and_release(index)
        if len(index.rows) >= REBUILD_MIN_FACTS and len(touched) > REBUILD_SHARE * len(index.rows):
            # Most of the index changed (a dream over the whole workspace): build it afresh, after
            # letting the old one go, rather than hold it while re-reading nearly every fact into it.
            index_snapshots.discard(index.workspace_id, index.origin_key)  # as stale as the index
            _drop_and_release(index)
            index.revision = -1
            self._sync_revision(index, found)
            return
        index.revision = current
        if not touched:
            if all_links:
                index_links.load(index)
            return
        before = {mid: index.meta[mid].supersedes for mid in touched if mid in index.meta}
        found: set[str] = set()
        new_ids: set[str] = set()
        ids = sorted(touched)
        for start in range(0, len(ids), TOUCHED_CHUNK):  # a shred or purge may name 50,000 facts
            new_ids |= self._load(index, ids[start : start + TOUCHED_CHUNK], found)
        vectors_changed = self._load_vectors(index, touched)
        gone = {mid for mid in touched if mid in index.rows} - found
        for memory_id in gone:  # purged or shredded: forget it entirely
            index.rows.pop(memory_id, None)
            index.meta.pop(memory_id, None)
            index.vectors.pop(memory_id, None)
        known = [mid for mid in touched if mid in index.rows and mid not in new_ids]
        if gone or (new_ids and (index.cols is None or not self._appendable(index, new_ids))):
            with _building(index):
                self._rebuild(index)
                index_links.load(index)
            return
        if index.cols is None:  # nothing indexed and nothing new (the changes were elsewhere)
            return
        if new_ids:
            self._append(index, new_ids)
        self._patch(index, known)
        if vectors_changed:
            self._relay_learned(index, vectors_changed)
        index_links.update(index, touched, new_ids, before, everything=all_links)

    def write_snapshot(self, workspace_id: int, origin_key: str) -> bool:
        """Build one origin's index as a first recall would, write its snapshot, and let it go: this
        process keeps nothing (the worker runs it, for the web processes). False when the origin is
        under the snapshot minimum or its snapshot is already current."""
        found = _revision_of(workspace_id)
        if found is None or index_snapshots.is_current(workspace_id, origin_key, found[1], found[0]):
            return False
        index = ScopeIndex(workspace_id, origin_key)
        try:
            with index.lock:
                self._sync(index, found)
                if not index_snapshots.enabled_for(len(index.rows)):
                    return False
                current = index_snapshots.is_current(workspace_id, origin_key, index.born, index.revision)
                return current or self.save_snapshot(index)
        finally:
            _drop_and_release(index)

    @staticmethod
    def save_snapshot(index: ScopeIndex) -> bool:
        """Write `index`'s snapshot as of its revision (memory.services.recall.index_snapshots).

        A purge or shred deletes the workspace's snapshots as it deletes the facts; one that
        committed while this index was being built or written would find nothing to delete yet, and
        the file would keep the deleted facts' text. So a snapshot older than such an event is
        deleted again at once."""
        with index.lock:
            saved = index_snapshots.save(index.workspace_id, index.origin_key, index.born, index.revision,
                                         _snapshot_state(index))  # fmt: skip
            if saved and _deleted_since(index.workspace_id, index.revision):
                index_snapshots.discard(index.workspace_id, index.origin_key)
                return False
            return saved

    @staticmethod
    def _restore(index: ScopeIndex, current: int, born) -> bool:
        """Take the index from its snapshot (memory.services.recall.index_snapshots), if there is a usable one."""
        found = index_snapshots.load(index.workspace_id, index.origin_key, born, current)
        if found is None:
            return False
        revision, state = found
        try:
            for name in _SNAPSHOT_FIELDS:
                setattr(index, name, state[name])
            index.rows = {values[0]: FactRow(*values) for values in state["rows"]}
            index.meta = dict(zip(index.rows, (RowMeta(*values) for values in state["meta"]), strict=True))
        except Exception:  # a file this code cannot read (written by another version): build instead
            logger.exception("recall index snapshot of workspace %s not restored", index.workspace_id)
            index_snapshots.discard(index.workspace_id, index.origin_key)
            index.drop_content()
            return False
        cols = index.cols
        if cols is not None and cols.bm25 is None:  # the spec lanes' index, not built when it was written
            cols.bm25, owner = _lexical_index(index.lexical_tokens)
            owner[0] = weakref.ref(cols)
        index.revision, index.vector_cols = revision, None
        return True

    def _sync_uses(self, index: ScopeIndex, version: int) -> None:
        """Take the recall uses written since the index last looked (memory.services.recall.reinforcement):
        only the two use columns, of only the facts stamped with a later `uses_version`, plus this
        process's own uses not written yet (its index counted them when it made them). The last use
        never moves back."""
        if version <= index.uses_seen:
            return
        seen, index.uses_seen = index.uses_seen, version
        if index.cols is None:
            return
        written = list(
            Fact.objects.filter(workspace_id=index.workspace_id, origin_key=index.origin_key, uses_version__gt=seen)
            .values_list("pk", "memory_id", "access_count", "last_accessed_at")
        )  # fmt: skip
        if not written:
            return
        unwritten = reinforcement.pending.counts(index.workspace_id)
        cols = index.cols
        for pk, memory_id, count, last in written:
            i = cols.row_index.get(memory_id)
            row = index.rows.get(memory_id)
            if i is None or row is None:  # not in this index yet: its revision brings it whole
                continue
            count += unwritten.get(pk, 0)
            written_ms = to_ms(last)
            last_ms = row.last_accessed_at if row.last_accessed_at is not None and row.last_accessed_at >= written_ms else written_ms
            cols.access_count[i], cols.last_accessed_at[i] = count, last_ms
            index.rows[memory_id] = replace(row, access_count=count, last_accessed_at=last_ms)

    def _load(self, index: ScopeIndex, memory_ids: list[str] | None = None, found: set[str] | None = None,
              using: str = DEFAULT_DB_ALIAS) -> set[str]:  # fmt: skip
        """Read the origin's facts (only `memory_ids`, if given), decrypting their content, into the
        row cache; returns the ids that are new. `found`, if given, collects the id of every fact
        read (none when the origin was shredded)."""
        new_ids: set[str] = set()
        try:
            unseal = sealing.unsealer(index.workspace_id, index.origin_key, "content")
        except sealing.KeyDestroyedError:
            # Shredded origin: its facts are tombstones, never recalled. What the index still holds
            # in the clear (read before the shred, perhaps by another process's) goes too.
            _drop_and_release(index)
            return new_ids
        # Named tuples, not dicts: at 100,000 facts the per-row overhead of `.values()` is seconds.
        # Write order (pk) matters: equal scores and equal timestamps fall back to row order, which
        # must be the order facts were written in, on every database and after every rebuild.
        # Streamed a few thousand rows at a time: a million rows read at once held 1.5 GB of
        # tuples and datetimes until the loop ended, and left the heap too fragmented to shrink.
        for row in fact_rows.read(index.workspace_id, index.origin_key, memory_ids, chunk=LOAD_CHUNK, using=using):
            memory_id = row.memory_id
            if found is not None:
                found.add(memory_id)
            old = index.rows.get(memory_id)
            if old is None:
                content, embedding = unseal(row.sealed_content).decode("utf-8"), None
                new_ids.add(memory_id)
            else:
                content, embedding = old.content, old.embedding
            index.rows[memory_id] = _row_of(row, content, embedding)
            index.meta[memory_id] = _meta_of(row)
        return new_ids

    def _load_vectors(self, index: ScopeIndex, memory_ids) -> set[str]:
        """Read stored learned vectors (all of the scope, or those of `memory_ids`); the ids whose
        vector may have changed (dropped, replaced or added)."""
        from memory.services.recall.embedding import vectors_of

        changed: set[str] = set()
        if memory_ids is not None:
            for memory_id in memory_ids:  # dropped vectors (a purge, a re-embed) must not linger
                if index.vectors.pop(memory_id, None) is not None:
                    changed.add(memory_id)
        for memory_id, fingerprint, vector in vectors_of(index.workspace_id, index.origin_key, memory_ids):
            index.vectors[memory_id] = (fingerprint, vector)
            changed.add(memory_id)
        return changed

    def _lay_out_learned(self, index: ScopeIndex) -> None:
        """One matrix per fingerprint, rows in the columns' order (a fact without a vector is zeros)."""
        index.learned = {}
        if index.cols is None or not index.vectors:
            return
        row_of = index.cols.row_index
        by_fingerprint: dict[str, list[tuple[int, np.ndarray]]] = {}
        for memory_id, (fingerprint, vector) in index.vectors.items():
            row = row_of.get(memory_id)
            if row is not None:
                by_fingerprint.setdefault(fingerprint, []).append((row, vector))
        for fingerprint, pairs in by_fingerprint.items():
            rows = np.fromiter((row for row, _ in pairs), dtype=np.int64, count=len(pairs))
            embeddings = np.zeros((len(index.cols), pairs[0][1].size), dtype=np.float32)
            embeddings[rows] = np.stack([vector for _, vector in pairs])
            embedded = np.zeros(len(index.cols), dtype=bool)
            embedded[rows] = True
            index.learned[fingerprint] = Learned(embeddings, embedded, np.linalg.norm(embeddings, axis=1))

    def _relay_learned(self, index: ScopeIndex, memory_ids) -> None:
        """`_lay_out_learned` for some facts only: their rows in every matrix, after rows were
        appended (new rows start as zeros). Costs the facts, not the scope."""
        n = len(index.cols)
        for fingerprint, learned in list(index.learned.items()):
            grow = n - learned.embeddings.shape[0]
            if grow:
                dims = learned.embeddings.shape[1]
                index.learned[fingerprint] = Learned(
                    np.concatenate((learned.embeddings, np.zeros((grow, dims), dtype=np.float32))),
                    np.concatenate((learned.embedded, np.zeros(grow, dtype=bool))),
                    np.concatenate((learned.norms, np.zeros(grow, dtype=learned.norms.dtype))),
                )
        row_of = index.cols.row_index
        touched: set[str] = set()
        for memory_id in memory_ids:
            row = row_of.get(memory_id)
            if row is None:
                continue
            entry = index.vectors.get(memory_id)
            for fingerprint, learned in index.learned.items():
                if learned.embedded[row] and (entry is None or entry[0] != fingerprint):
                    learned.embeddings[row], learned.embedded[row], learned.norms[row] = 0.0, False, 0.0
                    touched.add(fingerprint)
            if entry is None:
                continue
            fingerprint, vector = entry
            learned = index.learned.get(fingerprint)
            if learned is None:
                learned = index.learned[fingerprint] = Learned(
                    np.zeros((n, vector.size), dtype=np.float32), np.zeros(n, dtype=bool), np.zeros(n, np.float32)
                )
            learned.embeddings[row], learned.embedded[row] = vector, True
            learned.norms[row] = np.linalg.norm(learned.embeddings[row : row + 1], axis=1)[0]
            touched.add(fingerprint)
        for fingerprint in touched:  # as a full layout, which has no matrix for a fingerprint without vectors
            if not index.learned[fingerprint].embedded.any():
                del index.learned[fingerprint]

    # --------------------------------------------------------------- columns

    @staticmethod
    def _appendable(index: ScopeIndex, new_ids: set[str]) -> bool:
        """Can the new facts go after the existing rows? Only if they were written after all of them."""
        if index.extra is None or not len(index.extra.pk):
            return False
        return min(index.meta[mid].pk for mid in new_ids) > int(index.extra.pk[-1])

    def _append(self, index: ScopeIndex, new_ids: set[str]) -> None:
        """Add new facts after the existing rows: columns, text indexes, per-row extras, learned
        matrices (zero rows until `_relay_learned` fills them). The HRR view is dropped: embedding
        only the new facts would not reproduce a one-batch embedding to the last bit."""
        rows = sorted((index.rows[mid] for mid in new_ids), key=lambda row: index.meta[row.memory_id].pk)
        index.cols.append(rows)
        tail, extra = self._extra(index, rows), index.extra
        for name in _EXTRA_ARRAYS:  # into spare room: a write costs its rows, not the scope's
            setattr(extra, name, extra.growing.extend(name, getattr(extra, name), getattr(tail, name)))
        extra.modality.extend(tail.modality)
        extra.media_pointer.extend(tail.media_pointer)
        index.vector_cols = None
        if index.learned:
            self._relay_learned(index, ())

    def _rebuild(self, index: ScopeIndex) -> None:
        """Rebuild the columns from cached rows: tokens come from a cache, nothing is decrypted again.

        The default lane needs no vectors, so HRR vectors are computed only when a capability that
        uses them asks (`with_vectors`); the default lane's own indexes are built now, so the first
        recall after a write is not the one that pays for them.
        """
        rows = sorted(index.rows.values(), key=lambda row: index.meta[row.memory_id].pk)
        index.vector_cols = None
        if not rows:
            index.cols, index.extra, index.learned = None, self._extra(index, rows), {}
            return
        lexical, owner = _lexical_index(index.lexical_tokens)
        cols = FactColumns.from_rows(rows, embedder=None, bm25=lexical)
        owner[0] = weakref.ref(cols)
        cols.text.stems  # noqa: B018 - build now
        cols.text.ngrams  # noqa: B018
        index.cols = cols
        index.extra = self._extra(index, rows)
        self._lay_out_learned(index)

    def with_vectors(self, index: ScopeIndex) -> FactColumns | None:
        """The index's columns with HRR vectors (for the hybrid, vector and graph capabilities)."""
        with index.lock:
            if index.usable().cols is None:
                return None
            if index.vector_cols is None:
                view = copy.copy(index.cols)
                view.embeddings = self.embedder.embed(view.contents)
                view.embedded = np.ones(len(view), dtype=bool)
                view.embedding_norms = np.linalg.norm(view.embeddings.astype(np.float64), axis=1)
                index.vector_cols = view
            return index.vector_cols

    @staticmethod
    def link_graph(index: ScopeIndex):
        """Adjacency of every link of the scope, built once per change of its links: recall's graph
        step then walks only what it reaches instead of filtering every link per query (hundreds of
        ms at 250,000 links)."""
        with index.lock:
            return index_links.graph_of(index.usable().link_state)

    @staticmethod
    def with_learned(index: ScopeIndex, view: FactColumns, fingerprint: str) -> FactColumns | None:
        """`view` carrying the learned vectors of `fingerprint`, or None when the scope has none."""
        learned = index.learned.get(fingerprint)
        if learned is None or not learned.embedded.any():
            return None
        out = copy.copy(view)
        out.embeddings, out.embedded, out.embedding_norms = learned.embeddings, learned.embedded, learned.norms
        return out

    def _extra(self, index: ScopeIndex, rows: list[FactRow]) -> Extra:
        meta = [index.meta[row.memory_id] for row in rows]

        def ms(name):
            return np.array([np.nan if getattr(m, name) is None else getattr(m, name) for m in meta], dtype=np.float64)

        return Extra(
            pk=np.array([m.pk for m in meta], dtype=np.int64),
            clearance=np.array([m.clearance for m in meta], dtype=np.int8),
            intent_scope=np.array([m.intent_scope for m in meta], dtype=object),
            unscoped=np.array([not m.intent_scope for m in meta], dtype=bool),
            archived_at=ms("archived_at"),
            pruned_at=ms("pruned_at"),
            visible_from=ms("visible_from"),
            tier=np.array([m.tier for m in meta], dtype="<U9"),
            classification=np.array([m.classification for m in meta], dtype="<U8"),
            modality=[m.modality for m in meta],
            media_pointer=[m.media_pointer for m in meta],
        )

    def _patch(self, index: ScopeIndex, memory_ids: list[str]) -> None:
        """Update scoring fields of existing rows in place (reinforcement, feedback, archive, GC…)."""
        cols = index.cols
        for memory_id in memory_ids:
            row, i = index.rows[memory_id], cols.row_index[memory_id]
            meta = index.meta[memory_id]
            defaults = R.SEGMENT_DEFAULTS.get(row.segment, R.SEGMENT_DEFAULTS["context"])
            cols.segments[i] = row.segment
            cols.importance[i] = R.clamp_importance(row.importance, defaults.importance)
            cols.decay_rate[i] = defaults.decay_rate if row.decay_rate is None else row.decay_rate
            cols.access_count[i] = row.access_count
            cols.last_accessed_at[i] = row.last_accessed_at
            cols.permanent[i] = (row.tier or defaults.tier) == "permanent"
            cols.lifecycle[i] = row.lifecycle
            cols.active[i] = row.lifecycle == "active"
            cols.valid_to[i] = np.nan if row.valid_to is None else row.valid_to
            cols.confidence[i] = np.nan if row.confidence is None else row.confidence
            cols.confirmed[i] = row.status == "confirmed"
            index.extra.clearance[i] = meta.clearance
            index.extra.intent_scope[i] = meta.intent_scope
            index.extra.unscoped[i] = not meta.intent_scope
            index.extra.archived_at[i] = np.nan if meta.archived_at is None else meta.archived_at
            index.extra.pruned_at[i] = np.nan if meta.pruned_at is None else meta.pruned_at
            index.extra.visible_from[i] = np.nan if meta.visible_from is None else meta.visible_from
            index.extra.tier[i] = meta.tier
            index.extra.classification[i] = meta.classification

    def note_access_locked(self, index: ScopeIndex, memory_ids: list[str], now_ms: int) -> None:
        """Reflect this process's own recall reinforcement without waiting for a revision. The caller
        holds `index.lock`."""
        if index.cols is None:  # emptied by a failed sync meanwhile: the next use rebuilds it
            return
        for memory_id in memory_ids:
            i = index.cols.row_index.get(memory_id)
            if i is None:
                continue
            index.cols.access_count[i] += 1
            index.cols.last_accessed_at[i] = now_ms
            row = index.rows[memory_id]
            index.rows[memory_id] = replace(row, access_count=row.access_count + 1, last_accessed_at=now_ms)


# Every index's rows are Python objects (a row, its metadata, their dicts), a few per fact: with the
# index budget's 512 MB held, a process tracks some 350,000 containers, and the collector's full
# passes walk all of them, stopping every request of the process: about 200 ms each (500 ms on a
# slow minute), nineteen in four minutes of the many-workspaces bench, and the p99 of its recalls
# was those pauses (docs/BENCHMARKS.md, "Ten thousand workspaces: the collector's pauses").
# So the indexes are kept out of the collector's sight:
# * while an index is built no pass runs (its objects all live on: passes over them were 1 s of a
#   6 s build at 100,000 facts);
# * after a build the process collects its young generations (the build's own objects and whatever
#   else is new: 15 ms after a 50,000-fact build) and freezes what is there (`gc.freeze`, which only
#   moves lists), so later passes skip it: after every large build, and after a small one at most
#   every FREEZE_EVERY_SECONDS;
# * an index holds no reference cycle (a test keeps it so), so letting one go frees it at once,
#   frozen or not, without any collection;
# * what was frozen while in use and became cyclic garbage since (mostly requests in flight during a
#   freeze, 84 objects and a few KB each) waits for the next full collection, thawed first, which
#   runs after a build or a large index let go once SETTLE_SECONDS have passed since the last. Under
#   the bench's load such a collection found 15,000–19,000 objects after a minute (and took
#   370–550 ms on a slow hour): one pause in five minutes instead of several a minute, for a few
#   tens of MB held meanwhile at most.
FREEZE_AT_FACTS = 20_000
FREEZE_EVERY_SECONDS = 1.0
SETTLE_SECONDS = 300.0
# An index of at least REBUILD_MIN_FACTS facts whose next sync would re-read more than REBUILD_SHARE
# of them is built afresh instead (`_sync_revision`): after a dream touched 887,000 of a million
# facts, patching held the old index and the re-read facts at once, and left 2.26 GB resident where
# a fresh build holds 1.96 GB.
REBUILD_MIN_FACTS = FREEZE_AT_FACTS
REBUILD_SHARE = 0.5
_heap_lock = threading.Lock()
_paused, _was_enabled = 0, True
_frozen_at = float("-inf")  # when the heap was last frozen (`_freeze_after_build`)
# When it was last thawed and collected whole (`_settle_if_due`): as the process starts, it was
# collected and frozen (tideline_site/warmup.py); counted from then, the first full collection is not
# due at the second build, inside a cold recall (130–170 ms).
_settled_at = time.monotonic()


@contextmanager
def _building(index: ScopeIndex):
    """Build `index` inside: no automatic collection meanwhile (threads building at once share the
    pause), and what it built kept out of the collector's sight afterwards (see FREEZE_AT_FACTS)."""
    global _paused, _was_enabled
    with _heap_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
        _paused += 1
        gc.disable()
    try:
        yield
    finally:
        with _heap_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
    _freeze_after_build(large=index.cols is not None and len(index.cols) >= FREEZE_AT_FACTS)


def _freeze_after_build(*, large: bool) -> None:
    """Collect the young generations and freeze the heap, or collect it whole if that is due; after
    a small build only if FREEZE_EVERY_SECONDS have passed since the last freeze."""
    global _frozen_at
    with _heap_lock:
        now = time.monotonic()
        if _settle_if_due(now) or (not large and now - _frozen_at < FREEZE_EVERY_SECONDS):
            return
        gc.collect(1)  # the young generations: the build's objects, and what else is new
        gc.freeze()
        _frozen_at = now


def _settle_if_due(now: float) -> bool:
    """Thaw, collect and freeze again the whole heap if something was frozen since that was last
    done and SETTLE_SECONDS have passed; whether it was. Call under `_heap_lock`."""
    global _frozen_at, _settled_at
    if now - _settled_at < SETTLE_SECONDS or _frozen_at <= _settled_at:
        return False
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _frozen_at = _settled_at = now
    return True


def release_heap(facts: int) -> None:
    """After letting go of an index of `facts` facts: hand its pages back to the system (and collect
    the whole heap if that is due). Its objects are already gone: an index holds no reference
    cycle, so its rows, strings and arrays were freed as the last reference went, frozen or not.
    Small indexes leave too little to hand back."""
    if facts < FREEZE_AT_FACTS:
        return
    with _heap_lock:
        _settle_if_due(time.monotonic())
    release_free_memory()


def _snapshot_outdated(index: ScopeIndex, current: int) -> bool:
    """Would the sync after restoring this origin's snapshot find most of it changed, and so build
    afresh anyway (the REBUILD_SHARE rule)? Read from the snapshot's plaintext header and the events
    since its revision, before opening it: the restored index was only dropped again, after
    decrypting and unpickling every fact of it (a minute and 2.5 GB at a million facts)."""
    head = index_snapshots.peek(index.workspace_id, index.origin_key)
    if head is None:
        return False
    revision, facts = head
    if facts < REBUILD_MIN_FACTS or not 0 <= revision < current:
        return False
    touched: set[str] = set()
    for _, fact_ids in _events_since(index.workspace_id, revision, current):
        touched.update(fact_ids or ())
        if len(touched) > REBUILD_SHARE * facts:
            return True
    return False


def _events_since(workspace_id: int, revision: int, current: int):
    """(kind, fact ids) of the workspace's events after `revision` up to `current`, streamed: after a
    dream they name a million facts."""
    events = MemoryEvent.objects.filter(workspace_id=workspace_id, revision__gt=revision, revision__lte=current)
    return paged.rows(events.order_by("revision", "pk").values_list("kind", "fact_ids"), LOAD_CHUNK)


def _deleted_since(workspace_id: int, revision: int) -> bool:
    """Were facts of the workspace hard-deleted (purged, shredded) after `revision`?"""
    return MemoryEvent.objects.filter(
        workspace_id=workspace_id, revision__gt=revision, kind__in=(MemoryEvent.Kind.PURGED, MemoryEvent.Kind.SHREDDED)
    ).exists()


def _facts_in(index: ScopeIndex) -> int:
    return len(index.cols) if index.cols is not None else 0


def _drop_and_release(index: ScopeIndex) -> None:
    """`index.drop_content()`, and its memory freed at once (a shredded origin's plaintext too)."""
    facts = _facts_in(index)
    index.drop_content()
    release_heap(facts)


# What a snapshot keeps of an index besides its rows and their metadata (its revision and workspace
# row are in the file's header; the workspace's settings are read again; caches are rebuilt on use).
_ROW_VALUES = operator.attrgetter(*(f.name for f in dataclass_fields(FactRow)))
_META_VALUES = operator.attrgetter(*(f.name for f in dataclass_fields(RowMeta)))
_SNAPSHOT_FIELDS = (
    "uses_seen", "link_state", "cols", "vectors", "learned", "extra",
)  # fmt: skip


def _snapshot_state(index: ScopeIndex) -> dict[str, Any]:
    """The fields of `index` a snapshot keeps; the spec lanes' lazy index only if it was built.

    Rows and their metadata go as plain tuples in one order: pickle writes a million tuples in C,
    where a frozen dataclass each took a Python call out and another back in (40 s of a 55 s write)."""
    state = {name: getattr(index, name) for name in _SNAPSHOT_FIELDS}
    state["rows"] = list(map(_ROW_VALUES, index.rows.values()))
    state["meta"] = list(map(_META_VALUES, (index.meta[memory_id] for memory_id in index.rows)))
    if index.cols is not None:
        cols = copy.copy(index.cols)
        lexical = cols.bm25
        object.__setattr__(cols, "bm25", lexical._target if isinstance(lexical, _Lazy) else lexical)
        state["cols"] = cols
    return state


def _lexical_index(tokens: dict[str, list[str]]) -> tuple[_Lazy, list]:
    """The spec lanes' BM25 (whole-token analyzer), built on first use over the contents of the
    columns the caller then names in the returned holder (`holder[0] = weakref.ref(columns)`): it
    serves only the comparison capabilities and lexical explanations (appends extend it once built).
    The columns hold it and it knows them only weakly: a reference cycle would keep an index that
    was let go alive whenever a large build had frozen the heap (`_building`)."""
    holder: list = [None]
    return _Lazy(functools.partial(_build_lexical, holder, tokens)), holder


def _build_lexical(holder: list, tokens: dict[str, list[str]]):
    from memory.engine.recall.bm25 import Bm25Index

    columns = holder[0]() if holder[0] is not None else None
    if columns is None:  # the index was let go while a caller still held the lazy part
        raise RecallIndexUnavailable()
    return Bm25Index(columns.contents, analyzer=_Analyzer(tokens))


def _drop_if_shredded(index: ScopeIndex) -> None:
    """Empty an index whose origin's key is gone (shredded, by this process or another).

    Checked before every use: a dict lookup while the key is cached (a few seconds), a read of the
    key store after. The sync catches a shred sooner through its `shredded` event; this check also
    covers a key destroyed without one. An index holding nothing has nothing to leak: not checked."""
    if not index.rows:
        return
    try:
        sealing.keyring.data_key(index.workspace_id, index.origin_key, create=False)
    except sealing.KeyDestroyedError:
        _drop_and_release(index)


def _visible_from(held_ms, admitted_ms) -> float | None:
    """From when a fact may be recalled at all (epoch ms): always (None) unless it was held for
    review; then from its admission, or never while it is held or after it was blocked."""
    if held_ms is None:
        return None
    return admitted_ms if admitted_ms is not None else float("inf")


def _read_workspace_settings(index: ScopeIndex) -> None:
    """The workspace's retention rules and tuning as recall enforces them (read when its revision
    moves: both change only through a mutation)."""
    stored = (
        Workspace.objects.filter(pk=index.workspace_id).values_list("expiry_rules", "tuning", "tuning_version").first()
    )
    rules, values, version = stored or ([], {}, 0)
    index.expiry_rules = expiry.rules_from(rules)
    try:
        index.tuning, index.tuning_version = tuning.parse(values), version
    except tuning.TuningError:  # never stored (the service validates), but recall must not die of it
        index.tuning, index.tuning_version = tuning.DEFAULT, version


def _revision_of(workspace_id: int, using: str = DEFAULT_DB_ALIAS):
    """(revision, created_at, uses_version) of a workspace, or None. Asked before every recall, so it
    skips the ORM's query compilation (a millisecond of the 5 ms budget at 10,000 facts) for one
    indexed read."""
    with connections[using].cursor() as cursor:
        cursor.execute(_REVISION_SQL, [workspace_id])
        found = cursor.fetchone()
    if found is None:
        return None
    revision, born, uses = found
    if isinstance(born, str):  # SQLite hands raw timestamps back to a plain cursor
        born = Workspace._meta.get_field("created_at").to_python(born)
    return revision, born, uses


_REVISION_SQL = (
    f"SELECT {Workspace._meta.get_field('revision').column}, {Workspace._meta.get_field('created_at').column},"
    f" {Workspace._meta.get_field('uses_version').column}"
    f" FROM {Workspace._meta.db_table} WHERE {Workspace._meta.pk.column} = %s"
)


class _Lazy:
    """Builds the wrapped object on first attribute access (thread-safe), then delegates to it."""

    def __init__(self, factory) -> None:
        self._factory, self._target, self._lock = factory, None, threading.Lock()

    @property
    def built(self) -> bool:
        return self._target is not None

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if self._target is None:
            with self._lock:
                if self._target is None:
                    try:
                        self._target = self._factory()
                    except Exception as error:  # nothing is kept: the next access builds again
                        logger.exception("a lazily built recall structure failed")
                        raise RecallIndexUnavailable(error) from error
        return getattr(self._target, name)


registry = IndexRegistry()


def write_snapshots(workspace_id: int) -> list[str]:
    """Write the snapshot of every origin of the workspace that is large enough to have one and whose
    snapshot is not current (`IndexRegistry.write_snapshot`); the origin keys written. After a bulk
    import the worker runs this, so no web process builds those indexes from the database: the first
    recall of each, in every process, restores it (`index_snapshots`)."""
    minimum = index_snapshots.minimum_facts()
    if minimum <= 0:
        return []
    origins = (Fact.objects.filter(workspace_id=workspace_id).values("origin_key")
               .annotate(facts=Count("*")).filter(facts__gte=minimum).values_list("origin_key", flat=True))  # fmt: skip
    return [key for key in sorted(origins) if registry.write_snapshot(workspace_id, key)]


def write_snapshots_later(workspace: Workspace) -> None:
    """Queue `write_snapshots` for the worker once the current transaction commits (nothing when
    it rolls back). Robust: snapshots are a cache, so a broker that cannot take the task (Redis
    down) is logged and the import that committed still reports its success."""
    from django_q.tasks import async_task

    def queue() -> None:
        async_task("memory.tasks.write_recall_snapshots", workspace.pk, task_name=f"memory-recall-snapshots-{workspace.pk}")

    transaction.on_commit(queue, robust=True)
