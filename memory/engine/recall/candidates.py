"""The column store recall scores over, and the candidate mask (ENGINE-SPEC §3.4, §3.6 step 4, §3.8).

A `FactColumns` holds one workspace's facts as parallel numpy arrays (row i of every field is fact i)
plus their contents and a BM25 index built once. Filtering a query's candidates is a few boolean
array operations over those columns, never a loop over the facts.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.engine.facts.records import (
    RECALL_TRUST,
    SEGMENT_DEFAULTS,
    Origin,
    OriginError,
    clamp_importance,
    parse_origin,
)
from memory.engine.maintenance.decay import effective_score
from memory.engine.recall.appendable import Growing
from memory.engine.recall.bm25 import Bm25Index, PickledWithoutLock
from memory.engine.recall.hrr import HrrEmbedder
from memory.engine.recall.ngrams import NgramIndex
from memory.engine.recall.tokenize import recall_terms

UNKNOWN_SOURCE_WEIGHT = 0.9  # a source type outside the table (legacy data) — ENGINE-SPEC §1.5


class _EveryOrigin:
    """The explicit "no origin filter" scope, for maintenance passes only (decay GC, diagnostics)."""

    def __repr__(self) -> str:
        return "EVERY_ORIGIN"


EVERY_ORIGIN = _EveryOrigin()


class TextIndexes(PickledWithoutLock):
    """The default lane's indexes over the contents: BM25 over stems, and character n-grams.

    Each is built on first use, once: a caller that only runs the spec lanes never pays for them.
    Shallow copies of a `FactColumns` (filtered views) share this object, so a view built per query
    reuses what the first query built instead of re-indexing every fact.
    """

    def __init__(self, contents: Sequence[str]) -> None:
        self._contents = contents
        self._stems: Bm25Index | None = None
        self._ngrams: NgramIndex | None = None
        self._lock = threading.Lock()

    @property
    def stems(self) -> Bm25Index:
        if self._stems is None:
            with self._lock:
                if self._stems is None:
                    self._stems = Bm25Index(self._contents, analyzer=recall_terms)
        return self._stems

    @property
    def ngrams(self) -> NgramIndex:
        if self._ngrams is None:
            with self._lock:
                if self._ngrams is None:
                    self._ngrams = NgramIndex(self._contents)
        return self._ngrams

    def extend(self, contents: Sequence[str], new: Sequence[str]) -> None:
        """Follow contents that grew at the end: `contents` is the whole list now, `new` its last
        entries. Indexes built already index only `new`; the others will index `contents` when used."""
        with self._lock:
            self._contents = contents
            if self._stems is not None:
                self._stems.extend(new)
            if self._ngrams is not None:
                self._ngrams.extend(new)


@dataclass(frozen=True, slots=True)
class FactRow:
    """One fact as the recall core needs it; `FactColumns.from_rows` turns a list into columns.

    Omitted importance, tier and decay rate take the segment's defaults (unknown segment ⇒ context);
    omitted `last_accessed_at` is `created_at`; `origin=None` is the owner (a legacy record).
    """

    memory_id: str
    content: str
    segment: str = "knowledge"
    created_at: int = 0
    importance: float | None = None
    tier: str | None = None
    decay_rate: float | None = None
    access_count: int = 0
    last_accessed_at: int | None = None
    lifecycle: str = "active"
    valid_to: int | None = None
    confidence: float | None = None
    status: str | None = None
    source_type: str | None = None
    origin: Origin | None = None
    embedding: Sequence[float] | None = None


@dataclass
class FactColumns:
    """Parallel per-fact arrays (row i of every field is fact i) plus the BM25 index of the contents.

    Absent optional numbers are NaN (`valid_to`, `confidence`). `origin_keys` holds `Origin.key` of
    each fact's writer. `embeddings` is an (n, dims) float matrix or None; `embedded` marks the rows
    whose vector is real (a fact written under an async embedder may have none yet).

    Derived lookups (BM25 index, row norms, trust weights, id → row) are built at construction, and
    the default lane's `text` indexes on first use; `append` adds facts at the end (extending what
    is built). Change the facts' contents by building new columns, not by editing arrays in place.
    """

    memory_ids: list[str]
    contents: list[str]
    segments: list[str]
    source_types: list[str | None]
    importance: np.ndarray
    decay_rate: np.ndarray
    access_count: np.ndarray
    last_accessed_at: np.ndarray
    created_at: np.ndarray
    permanent: np.ndarray
    lifecycle: np.ndarray
    valid_to: np.ndarray
    confidence: np.ndarray
    confirmed: np.ndarray
    origin_keys: np.ndarray
    embeddings: np.ndarray | None = None
    embedded: np.ndarray | None = None
    bm25: Bm25Index = field(default=None, repr=False)  # type: ignore[assignment]
    text: TextIndexes = field(default=None, repr=False)  # type: ignore[assignment]
    source_weight: np.ndarray = field(init=False, repr=False)
    row_index: dict[str, int] = field(init=False, repr=False)
    embedding_norms: np.ndarray | None = field(init=False, repr=False)
    origin_codes: np.ndarray = field(init=False, repr=False)
    origin_code_of: dict[str, int] = field(init=False, repr=False)
    # Rows recall may consider: `lifecycle == "active"`, kept beside it because comparing 100,000
    # fixed-width strings costs half a millisecond per query. Assigning `lifecycle` refreshes it; a
    # view narrows it (clearance, intent, a point in time) without rewriting the strings.
    active: np.ndarray = field(init=False, repr=False)
    # Spare room behind the arrays, so `append` writes the new rows only (memory.engine.recall.appendable).
    _growing: Growing = field(init=False, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name == "lifecycle":
            object.__setattr__(self, "active", np.asarray(np.asarray(value) == "active", dtype=bool))

    def __post_init__(self) -> None:
        n = len(self.memory_ids)
        self._growing = Growing()
        # Own lists: `append` extends them in place, and a caller's lists must never change.
        for name in ("memory_ids", "contents", "segments", "source_types"):
            object.__setattr__(self, name, list(getattr(self, name)))
        for name in (
            "contents",
            "segments",
            "source_types",
            "importance",
            "decay_rate",
            "access_count",
            "last_accessed_at",
            "created_at",
            "permanent",
            "lifecycle",
            "valid_to",
            "confidence",
            "confirmed",
            "origin_keys",
        ):
            if len(getattr(self, name)) != n:
                raise ValueError(f"FactColumns.{name} has {len(getattr(self, name))} rows, expected {n}")
        if self.embeddings is not None and self.embedded is None:
            self.embedded = np.ones(n, dtype=bool)
        # Row norms once, so a query's cosines are one matrix-vector product (vectors are stored as
        # given; a learned embedder's rows need not be unit length). Rows without a vector get 0.
        self.embedding_norms = None
        if self.embeddings is not None:
            norms = np.linalg.norm(self.embeddings.astype(np.float64), axis=1)
            self.embedding_norms = np.where(self.embedded, norms, 0.0)
        if self.bm25 is None:
            self.bm25 = Bm25Index(self.contents)
        # Comparing strings in object arrays is a Python call per row; small integer codes and a
        # fixed-width lifecycle column keep the per-query masks in C.
        self.lifecycle = np.asarray(self.lifecycle, dtype="<U8")
        keys = [str(key) for key in self.origin_keys]
        self.origin_code_of = {key: code for code, key in enumerate(dict.fromkeys(keys))}
        self.origin_codes = np.fromiter((self.origin_code_of[key] for key in keys), dtype=np.int32, count=n)
        if self.text is None:
            self.text = TextIndexes(self.contents)
        self.row_index = {memory_id: row for row, memory_id in enumerate(self.memory_ids)}
        # Recall trust weight per source type (ENGINE-SPEC §1.5), looked up once rather than per query.
        self.source_weight = np.array(
            [RECALL_TRUST.get(source, UNKNOWN_SOURCE_WEIGHT) for source in self.source_types],
            dtype=np.float64,
        )

    def __len__(self) -> int:
        return len(self.memory_ids)

    @classmethod
    def from_rows(
        cls, rows: Sequence[FactRow], embedder: HrrEmbedder | None = None, bm25: Bm25Index | None = None
    ) -> FactColumns:
        """Build columns from rows. With an `embedder`, rows without a vector are embedded now.

        `bm25` may be given when the caller already indexed the same contents (in the same order).
        """

        def seg(row: FactRow):
            return SEGMENT_DEFAULTS.get(row.segment, SEGMENT_DEFAULTS["context"])

        def num(values, dtype=np.float64):
            return np.array([np.nan if v is None else v for v in values], dtype=dtype)

        tiers = [row.tier or seg(row).tier for row in rows]
        embeddings, embedded = None, None
        if embedder is not None or any(row.embedding is not None for row in rows):
            dims = (
                embedder.dims
                if embedder is not None
                else len(next(r.embedding for r in rows if r.embedding is not None))
            )
            embeddings = np.zeros((len(rows), dims), dtype=np.float32)
            embedded = np.zeros(len(rows), dtype=bool)
            for i, row in enumerate(rows):
                if row.embedding is not None and len(row.embedding) == dims:
                    embeddings[i], embedded[i] = row.embedding, True
            missing = np.flatnonzero(~embedded)
            if embedder is not None and missing.size:
                embeddings[missing] = embedder.embed([rows[i].content for i in missing])
                embedded[missing] = True
        return cls(
            memory_ids=[row.memory_id for row in rows],
            contents=[row.content for row in rows],
            segments=[row.segment for row in rows],
            source_types=[row.source_type for row in rows],
            importance=np.array(
                [clamp_importance(r.importance, seg(r).importance) for r in rows], np.float64
            ),
            decay_rate=np.array([seg(r).decay_rate if r.decay_rate is None else r.decay_rate for r in rows]),
            access_count=np.array([row.access_count for row in rows], dtype=np.int64),
            last_accessed_at=np.array(
                [row.created_at if row.last_accessed_at is None else row.last_accessed_at for row in rows],
                dtype=np.int64,
            ),
            created_at=np.array([row.created_at for row in rows], dtype=np.int64),
            permanent=np.array([tier == "permanent" for tier in tiers], dtype=bool),
            lifecycle=np.array([row.lifecycle for row in rows], dtype=object),
            valid_to=num(row.valid_to for row in rows),
            confidence=num(row.confidence for row in rows),
            confirmed=np.array([row.status == "confirmed" for row in rows], dtype=bool),
            origin_keys=np.array([(row.origin or Origin.owner()).key for row in rows], dtype=object),
            embeddings=embeddings,
            embedded=embedded,
            bm25=bm25,
        )

    def append(self, rows: Sequence[FactRow]) -> None:
        """Add `rows` after the existing ones, in place: the columns then equal `from_rows` of the old
        rows followed by these (without an embedder: a row's vector is the one it carries).

        Costs the new rows only (amortised): arrays grow into spare room, lists are extended in
        place, and no existing content is re-indexed. The `bm25` and `text` indexes already built
        are extended with the new contents only; one not built yet (an object whose `built` is
        False, such as a lazy index reading `contents` when first used) is left to index everything
        when it is. Shallow copies taken before (filtered views) are stale: take them under the same
        lock as appends.
        """
        if len(rows) == 0:
            return
        tail = FactColumns.from_rows(rows, embedder=None, bm25=_NOT_INDEXED)
        if self.embeddings is not None or tail.embeddings is not None:
            dims = (self.embeddings if self.embeddings is not None else tail.embeddings).shape[1]
            old_embeddings, old_embedded, old_norms = (
                (self.embeddings, self.embedded, self.embedding_norms)
                if self.embeddings is not None
                else (np.zeros((len(self), dims), np.float32), np.zeros(len(self), bool), np.zeros(len(self)))
            )
            if tail.embeddings is None or tail.embeddings.shape[1] != dims:
                # Rows whose vector has another length than the columns' count as having none.
                embeddings, embedded = np.zeros((len(rows), dims), np.float32), np.zeros(len(rows), bool)
                for i, row in enumerate(rows):
                    if row.embedding is not None and len(row.embedding) == dims:
                        embeddings[i], embedded[i] = row.embedding, True
                norms = np.where(embedded, np.linalg.norm(embeddings.astype(np.float64), axis=1), 0.0)
            else:
                embeddings, embedded, norms = tail.embeddings, tail.embedded, tail.embedding_norms
            grow = self._growing.extend
            self.embeddings = grow("embeddings", old_embeddings, embeddings)
            self.embedded = grow("embedded", old_embedded, embedded)
            self.embedding_norms = grow("embedding_norms", old_norms, norms)
        start = len(self)
        for name in ("memory_ids", "contents", "segments", "source_types"):
            getattr(self, name).extend(getattr(tail, name))
        for name in _APPENDED_ARRAYS:
            # Past `__setattr__`: `lifecycle`'s `active` grows with it below, not recomputed whole.
            object.__setattr__(self, name, self._growing.extend(name, getattr(self, name), getattr(tail, name)))
        object.__setattr__(self, "active", self._growing.extend("active", self.active, tail.active))
        codes = self.origin_code_of
        for key in tail.origin_code_of:  # first-occurrence order, as a one-go build numbers them
            codes.setdefault(key, len(codes))
        remap = np.array([codes[key] for key in tail.origin_code_of], dtype=np.int32)
        self.origin_codes = self._growing.extend("origin_codes", self.origin_codes, remap[tail.origin_codes])
        self.row_index.update((memory_id, start + i) for i, memory_id in enumerate(tail.memory_ids))
        if getattr(self.bm25, "built", True):
            self.bm25.extend(tail.contents)
        self.text.extend(self.contents, tail.contents)

    def effective(self, rows: np.ndarray, now: int) -> np.ndarray:
        """`effective_score` of the given rows at `now`."""
        return effective_score(
            self.importance[rows],
            self.decay_rate[rows],
            self.access_count[rows],
            self.last_accessed_at[rows],
            now,
            self.permanent[rows],
        )


_APPENDED_ARRAYS = (
    "importance", "decay_rate", "access_count", "last_accessed_at", "created_at", "permanent", "lifecycle",
    "valid_to", "confidence", "confirmed", "origin_keys", "source_weight",
)  # fmt: skip


class _NotIndexed:
    """Stands in for the BM25 index of columns built only to be appended elsewhere."""

    def extend(self, documents: Sequence[str]) -> None:  # pragma: no cover - never indexed
        raise TypeError("these columns carry no index")


_NOT_INDEXED = _NotIndexed()


def origin_mask(origin_keys: np.ndarray, scope: Any) -> np.ndarray:
    """Rows whose writer `scope` may see (ENGINE-SPEC §3.8), failing closed.

    * an owner scope sees owner facts (and legacy facts without an origin, stored as owner);
    * a channel scope sees only facts of the identical channel, conversation, session and account,
      so another session of the same peer is another principal;
    * `EVERY_ORIGIN` sees everything (maintenance only);
    * `None`, an unparseable scope, or a channel scope missing its channel, conversation or session
      sees nothing: an unresolved caller must get no memory, never the whole store.
    """
    nothing = np.zeros(len(origin_keys), dtype=bool)
    if scope is EVERY_ORIGIN:
        return ~nothing
    if scope is None:
        return nothing
    try:
        origin = parse_origin(scope)
    except OriginError:
        return nothing
    if origin.kind == "owner":
        return np.asarray(origin_keys == "owner", dtype=bool)
    if origin.kind != "channel" or not (origin.channel_id and origin.conversation_id and origin.session_key):
        return nothing
    return np.asarray(origin_keys == origin.key, dtype=bool)


def candidate_mask(cols: FactColumns, now: int, scope: Any) -> np.ndarray:
    """Rows recall may score: active, still valid at `now`, and visible to `scope` (ENGINE-SPEC §3.4, §3.8).

    Valid means `valid_to` is absent or strictly after `now` (a fact whose validity ended exactly now
    is gone); `valid_from` is never checked. See `origin_mask` for who sees what.
    """
    valid = np.isnan(cols.valid_to) | (cols.valid_to > now)
    return np.asarray(cols.active & valid & _origin_rows(cols, scope), dtype=bool)


def _origin_rows(cols: FactColumns, scope: Any) -> np.ndarray:
    """`origin_mask` over the integer origin codes (same rules, no per-row string comparison)."""
    if scope is EVERY_ORIGIN:
        return np.ones(len(cols), dtype=bool)
    if scope is None:
        return np.zeros(len(cols), dtype=bool)
    try:
        origin = parse_origin(scope)
    except OriginError:
        return np.zeros(len(cols), dtype=bool)
    if origin.kind == "channel" and not (origin.channel_id and origin.conversation_id and origin.session_key):
        return np.zeros(len(cols), dtype=bool)
    code = cols.origin_code_of.get(origin.key)
    if code is None:
        return np.zeros(len(cols), dtype=bool)
    return cols.origin_codes == code


def trust_factor(cols: FactColumns, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source weight, confidence factor) per row; their product is the hybrid trust (§3.6 step 4).

    The weight comes from the source type (absent ⇒ 1.0, unknown ⇒ 0.9). The confidence factor is the
    confidence clamped to [0, 1], or 1 without one. Decision 6: a `confirmed` fact's factor is 1, so
    confirming a belief (which stores confidence 0.9) never lowers its trust; confirmation is evidence
    for the belief, so it may raise a lower stored confidence back to full weight.
    """
    conf = cols.confidence[rows]
    factor = np.where(np.isnan(conf), 1.0, np.clip(conf, 0.0, 1.0))
    factor = np.where(cols.confirmed[rows], 1.0, factor)
    return cols.source_weight[rows], factor
