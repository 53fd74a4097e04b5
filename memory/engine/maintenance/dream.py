"""The dream: a deterministic, reversible reflection over one or every origin (ENGINE-SPEC §4.2).

`plan_dream` returns a `DreamPlan` and changes nothing. Four steps, each seeing the previous ones:

1. CONFIRM a subject-keyed belief that was asserted, or corrected, `confirm_count` times;
2. CONSOLIDATE near-identical active facts of one origin (cosine ≥ 0.95): the keeper inherits the
   duplicate's richer metadata and links, the duplicate is archived with its valid time closed;
3. RELATE the pairs in the band below (cosine ≥ 0.8) with bidirectional `relates` links;
4. EVICT old, unconfirmed facts whose live score decayed below a floor.

One deliberate difference from the original's `mergeMetadataInto`: a keeper does not inherit the
`contradicts`/`transition` links of the duplicate it absorbs (it links to the duplicate, which keeps
them, so who replaced whom still reads as a chain). Inheriting them copies a whole merge chain onto
each new keeper: a cluster of n near-duplicates then costs O(n²) links (13 million at a million
template-heavy facts, against 460,000 without), and the original only ever saw 500 facts at a time.

Every change carries what undoing needs (`FactChange.before`, the links it added); `apply_plan` /
`undo_plan` in `maintenance` show how. Unlike the original, which compares all pairs of at most the
500 most recently used facts, the similar pairs come from `similarity.cosine_pair_chunks` over the
whole origin: exact up to a few thousand facts, LSH above (a pair at the bar is missed with
probability below 1e-3). Ties are broken explicitly (similarity, then the ids), so the same facts and
links always give the same plan, whatever order they come in.

Memory stays bounded at a million facts: the merge bar's pairs are searched on their own (a few
million), and the relate bar's pairs (sixty million in a template-heavy million) arrive in slices of
which only each fact's strongest `max_related_per_record` survive, which provably adds the same
links as walking every pair (`_strongest_per_row`; `tests/memory/engine/maintenance/test_dream_scale.py` checks it).

Facts without a stored vector are embedded by `BatchHrrEmbedder`, which gives the HRR embedder's
vectors bit for bit at a fraction of the cost for a whole origin (100,000 facts in a few seconds).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from memory.engine.maintenance.links import SUPERSEDE_KINDS, RelateLedger
from memory.engine.maintenance.plans import (
    DAY_MS,
    FactChange,
    Link,
    MaintFact,
    compare_richness,
    live_scores,
    merge_metadata,
    origin_order,
)
from memory.engine.maintenance.similarity import (
    DEFAULT_EXACT_LIMIT,
    DEFAULT_SEED,
    DEFAULT_TARGET_MISS,
    offsets_within_runs,
)
from memory.engine.recall import hrr
from memory.engine.recall.synonymy import (
    RELATES_THRESHOLD,
    BucketStats,
    PairStats,
    SynonymyEdge,
    bucket_vectors,
    similar_pair_arrays,
    similar_pair_chunks,
    synonymy_edges,
)

__all__ = ["DreamPlan", "SynonymyEdge", "merge_metadata", "plan_dream", "synonymy_edges"]

CONFIRM_COUNT = 3
CONFIRM_CONFIDENCE = 0.9
CONFIRM_IMPORTANCE = 0.8
CONSOLIDATE_THRESHOLD = 0.95
EVICT_BELOW_SCORE = 0.05
EVICT_MIN_AGE_MS = 30 * DAY_MS
MAX_RELATED_PER_RECORD = 12


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A belief promoted to `confirmed`; `change.before` holds the prior status, confidence, importance."""

    memory_id: str
    origin_key: str
    subject_key: str
    assertions: int
    corrections: int
    reason: str
    change: FactChange


@dataclass(frozen=True, slots=True)
class Merge:
    """`merged` folded into `kept`: the keeper's inherited fields, the archive, and the links added."""

    kept: str
    merged: str
    origin_key: str
    similarity: float
    reason: str
    keeper_change: FactChange
    merged_change: FactChange
    added: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class DeclinedMerge:
    """Two confirmed near-duplicates: neither absorbs the other, and they are not related either."""

    a: str
    b: str
    origin_key: str
    similarity: float


@dataclass(frozen=True, slots=True)
class Relation:
    """A related-but-not-merged pair and the `relates` links it added (0, 1 or 2 after the caps)."""

    a: str
    b: str
    origin_key: str
    similarity: float
    added: tuple[Link, ...]


@dataclass(frozen=True, slots=True)
class Eviction:
    """A decayed fact archived; `change.before` holds its prior lifecycle and valid_to."""

    memory_id: str
    origin_key: str
    score: float
    age_ms: int
    reason: str
    change: FactChange


@dataclass(frozen=True)
class DreamPlan:
    """Everything one dream would change, in application order (confirm, merge, relate, evict)."""

    now: int
    reflected: int
    origins: tuple[str, ...]
    confirmations: tuple[Confirmation, ...]
    merges: tuple[Merge, ...]
    declined: tuple[DeclinedMerge, ...]
    relations: tuple[Relation, ...]
    evictions: tuple[Eviction, ...]
    buckets: tuple[BucketStats, ...]

    @property
    def related(self) -> int:
        """New link entries written by the relate step (a new pair counts 2)."""
        return sum(len(relation.added) for relation in self.relations)

    def fact_changes(self) -> list[FactChange]:
        changes = [c.change for c in self.confirmations]
        for merge in self.merges:
            changes += [change for change in (merge.keeper_change, merge.merged_change) if not change.empty]
        return changes + [e.change for e in self.evictions]

    def links_added(self) -> list[Link]:
        return [link for m in self.merges for link in m.added] + [
            link for r in self.relations for link in r.added
        ]

    def summary(self) -> dict[str, int]:
        return {
            "reflected": self.reflected,
            "confirmed": len(self.confirmations),
            "consolidated": len(self.merges),
            "related": self.related,
            "evicted": len(self.evictions),
        }


def plan_dream(
    facts: Sequence[MaintFact],
    links: Sequence[Link],
    now: int,
    *,
    origin: str | None = None,
    confirm_count: int = CONFIRM_COUNT,
    confirm_confidence: float = CONFIRM_CONFIDENCE,
    confirm_importance: float = CONFIRM_IMPORTANCE,
    consolidate_threshold: float = CONSOLIDATE_THRESHOLD,
    relates_threshold: float = RELATES_THRESHOLD,
    evict_below_score: float = EVICT_BELOW_SCORE,
    evict_min_age_ms: float = EVICT_MIN_AGE_MS,
    max_related_per_record: int = MAX_RELATED_PER_RECORD,
    embedder: Any = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    target_miss: float = DEFAULT_TARGET_MISS,
    seed: int = DEFAULT_SEED,
    workers: int = 2,
    progress: Callable[[str, int, int], None] | None = None,
) -> DreamPlan:
    """Plan one dream over the facts of `origin` (an origin key), or of every origin when None.

    Pass facts of every lifecycle: archived predecessors count as corrections. Links are
    `(from, kind, to)` tuples (explicit links and the `supersedes` edges). A fact without an
    embedding is embedded from its content with `embedder` (HRR by default). `relates_threshold ≥ 1`
    turns relating off; `evict_min_age_ms = math.inf` turns eviction off. Every cross-fact step runs
    per origin bucket (owner first, then the other keys in code-point order), so nothing ever merges
    or links across principals. `progress(phase, done, total)` hears of each slice of each search
    (a million facts take a few hundred).
    """
    if not 0.0 < consolidate_threshold <= 1.0:
        raise ValueError("consolidate_threshold must lie in (0, 1]")
    relating = relates_threshold < 1.0
    if relating and relates_threshold <= 0.0:
        raise ValueError("relates_threshold must be above 0 (or ≥ 1 to turn relating off)")
    scope = sorted((f for f in facts if origin is None or f.origin_key == origin), key=lambda f: f.memory_id)
    state = {fact.memory_id: fact for fact in scope}
    links = sorted(set(links))  # a fixed order, so inherited links come out the same whatever the input order
    reflected = sum(1 for fact in scope if fact.is_active)

    confirmations = _confirm(scope, links, confirm_count, confirm_confidence, confirm_importance)
    for confirmation in confirmations:
        state[confirmation.memory_id] = dataclasses.replace(
            state[confirmation.memory_id], **confirmation.change.after
        )

    ledger = RelateLedger(links)
    out_links: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for source, kind, target in links:
        out_links[source].append((kind, target))
    active = [fact for fact in state.values() if fact.is_active]
    buckets = defaultdict(list)
    for fact in active:
        buckets[fact.origin_key].append(fact)

    merges: list[Merge] = []
    declined: list[DeclinedMerge] = []
    to_relate: list[tuple[str, list[str], np.ndarray, np.ndarray, np.ndarray]] = []  # per bucket: pairs to link
    stats: list[BucketStats] = []
    search = {"exact_limit": exact_limit, "target_miss": target_miss, "seed": seed, "workers": workers}
    for key in origin_order(buckets):
        bucket = buckets[key]  # already in memory-id order, and a snapshot: keeper choices read it
        where = f" ({len(buckets)} origins)" if len(buckets) > 1 else ""
        if progress is not None:
            progress(f"embedding {len(bucket):,} facts{where}", 0, 0)
        groups = bucket_vectors(bucket, embedder or _BATCH_HRR)
        # Consolidate: every pair at the merge bar, strongest first (merges chain, so order matters).
        left, right, sims, bucket_stats = similar_pair_arrays(
            bucket, consolidate_threshold, None, groups=groups, progress=_phase(progress, "finding duplicates" + where),
            **search,
        )  # fmt: skip
        ids = [f.memory_id for f in bucket]
        merged_rows = bytearray(len(bucket))  # 1 where the fact was merged away in this pass
        declined_here: list[int] = []  # pair codes i·n + j of declined pairs
        if len(sims):
            scores = dict(zip(ids, live_scores(bucket, now).tolist(), strict=True))
            for i, j, sim in _pairs_as_numbers(left, right, sims):
                if merged_rows[i] or merged_rows[j]:
                    continue
                a, b = bucket[i], bucket[j]
                keep, drop, reason = _choose_keeper(a, b, scores)
                if keep.is_confirmed and drop.is_confirmed:
                    declined_here.append(i * len(bucket) + j)
                    declined.append(DeclinedMerge(a.memory_id, b.memory_id, key, sim))
                    continue
                merges.append(
                    _merge(state, ledger, out_links, keep.memory_id, drop.memory_id, key, sim, reason, now)
                )
                merged_rows[j if drop is b else i] = 1
            del scores  # a million entries: not needed while searching for related facts
        del left, right, sims
        if relating:
            excluded = np.frombuffer(merged_rows, dtype=bool)
            # Every pair touching a merged fact would be dropped below: leave those facts out of the
            # search itself (a quarter of a template-heavy million, and the densest part of it).
            groups = [_without_rows(rows, matrix, excluded, in_place=embedder is None) for rows, matrix in groups]
            chunks = similar_pair_chunks(groups, relates_threshold, progress=_phase(progress, "finding related facts" + where),
                                         **search)  # fmt: skip
            pair_stats = PairStats()
            rows_i, rows_j, rows_sim = _strongest_per_row(
                chunks, len(bucket), excluded, np.asarray(declined_here, dtype=np.int64),
                max_related_per_record, pair_stats,
            )  # fmt: skip
            bucket_stats = pair_stats.of(key, len(bucket))
            to_relate.append((key, ids, rows_i, rows_j, rows_sim))
        stats.append(bucket_stats)
        del groups

    relations = []
    # `RelateLedger.add` both ways for each pair, inlined: this loop runs once per related pair (and
    # there are hundreds of thousands in a large origin).
    present, count = ledger.present, ledger.count
    cap = max_related_per_record
    for key, ids, rows_i, rows_j, rows_sim in to_relate:
        for i, j, sim in zip(rows_i.tolist(), rows_j.tolist(), rows_sim.tolist(), strict=True):
            a, b = ids[i], ids[j]
            # Both ends are still active: merged facts were left out, and nothing else archives here.
            if a == b:
                continue
            added = []
            forward, backward = (a, "relates", b), (b, "relates", a)
            if forward not in present and count.get((a, "relates"), 0) < cap:
                present.add(forward)
                count[(a, "relates")] += 1
                added.append(forward)
            if backward not in present and count.get((b, "relates"), 0) < cap:
                present.add(backward)
                count[(b, "relates")] += 1
                added.append(backward)
            if added:
                relations.append(Relation(a, b, key, sim, tuple(added)))

    evictions = _evict(state, now, evict_below_score, evict_min_age_ms)
    return DreamPlan(
        now,
        reflected,
        tuple(origin_order(buckets)),
        tuple(confirmations),
        tuple(merges),
        tuple(declined),
        tuple(relations),
        tuple(evictions),
        tuple(stats),
    )


def _pairs_as_numbers(left: np.ndarray, right: np.ndarray, sims: np.ndarray, step: int = 65_536):
    """(i, j, similarity) as Python numbers, in order, a step at a time: 8.6 million merge candidates
    turned into lists at once held 0.9 GB of Python ints and floats."""
    for start in range(0, len(sims), step):
        stop = start + step
        yield from zip(left[start:stop].tolist(), right[start:stop].tolist(), sims[start:stop].tolist(), strict=True)


def _without_rows(
    rows: np.ndarray, matrix: np.ndarray, excluded: np.ndarray, *, in_place: bool
) -> tuple[np.ndarray, np.ndarray]:
    """A vector group without its excluded rows. Each row's vector, and so its LSH signature and
    every cosine it takes part in, is unchanged. `in_place` compacts the matrix where it lies (a
    million 256-d rows are 1 GB: a filtered copy beside them would double that); only for a matrix
    this plan made (the batch embedder's, or one stacked from stored vectors), never an embedder's
    own array."""
    keep = np.flatnonzero(~excluded[rows])
    if len(keep) == len(rows):
        return rows, matrix
    if not in_place:
        return rows[keep], matrix[keep]
    # Row k takes row keep[k] ≥ k: block by block in order, no source is overwritten before it is read.
    for start in range(0, len(keep), 65536):
        block = keep[start : start + 65536]
        matrix[start : start + len(block)] = matrix[block]
    try:
        # Hands the tail back. Safe without numpy's reference check (which our own names would fail):
        # nothing holds a view of the matrix by now, the duplicate search's having ended with it.
        matrix.resize((len(keep), *matrix.shape[1:]), refcheck=False)
    except ValueError:  # not an array that owns its memory: keep the tail allocated
        matrix = matrix[: len(keep)]
    return rows[keep], matrix


def _phase(progress: Callable[[str, int, int], None] | None, phase: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    progress(phase, 0, 0)
    return lambda done, total: progress(phase, done, total)


# ------------------------------------------------------------------ relate: each row's strongest pairs

# Directed entries held before the weaker ones of each row are dropped (16 bytes each).
_RELATE_BUFFER = 2_000_000


def _strongest_per_row(
    chunks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray, Any]],
    n: int,
    excluded: np.ndarray,
    declined: np.ndarray,
    keep: int,
    stats: PairStats,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs the relate step can act on, in its order (strongest first, then the rows).

    A fact's own `relates` links go to its neighbours in that order until it holds `keep` of them;
    an existing link is skipped but was already counted. So the link a → b is only ever added when
    b is among a's `keep` strongest neighbours, and every pair outside both ends' `keep` strongest
    is a no-op: dropping those pairs changes nothing, and leaves at most n·keep of them (rather than
    the tens of millions a template-heavy million facts have above the bar). Pairs touching a
    merged row or declined as a merge are left out first, as the step would skip them.

    Each row's entries are kept as (row, partner, similarity), ranked by similarity and then the
    partner (the same order as the pair's id code, for a fixed row). Once a row holds `keep`
    entries, its weakest one is a floor: a later pair below it can never rank, so it is dropped as
    it arrives, and the held entries stay near n·keep.
    """
    index = np.int32 if n < 2**31 else np.int64
    rows = np.zeros(0, dtype=index)
    partners = np.zeros(0, dtype=index)
    sims = np.zeros(0, dtype=np.float64)
    floor = np.full(n, -np.inf)  # a full row's weakest held similarity (−∞ until it holds `keep`)
    held: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    size = 0

    def fold() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        all_rows = np.concatenate([rows, *(part[0] for part in held)])
        all_partners = np.concatenate([partners, *(part[1] for part in held)])
        all_sims = np.concatenate([sims, *(part[2] for part in held)])
        order = np.lexsort((all_partners, -all_sims, all_rows))
        all_rows, all_partners, all_sims = all_rows[order], all_partners[order], all_sims[order]
        del order
        starts = np.flatnonzero(np.concatenate(([True], all_rows[1:] != all_rows[:-1])))
        rank = offsets_within_runs(np.diff(np.append(starts, len(all_rows))))  # rank inside its row
        top = rank < keep
        last = rank[top] == keep - 1
        all_rows, all_partners, all_sims = all_rows[top], all_partners[top], all_sims[top]
        floor[all_rows[last]] = all_sims[last]
        return all_rows, all_partners, all_sims

    for left, right, similarity, result in chunks:
        stats.add(result)
        usable = ~(excluded[left] | excluded[right])
        if len(declined):
            usable &= ~np.isin(left * n + right, declined)
        left, right, similarity = left[usable], right[usable], similarity[usable]
        for a, b in ((left, right), (right, left)):
            ranks = similarity >= floor[a]  # ties may still rank, by partner
            held.append((a[ranks].astype(index), b[ranks].astype(index), similarity[ranks]))
            size += int(np.count_nonzero(ranks))
        if size > max(_RELATE_BUFFER, len(rows) // 2):
            rows, partners, sims = fold()
            held, size = [], 0
    if held:
        rows, partners, sims = fold()
    # Each kept pair once (it may be among the strongest of both its ends), in the step's order.
    low, high = np.minimum(rows, partners).astype(np.int64), np.maximum(rows, partners).astype(np.int64)
    codes, first = np.unique(low * n + high, return_index=True)
    sims = sims[first]
    order = np.lexsort((codes, -sims))
    codes, sims = codes[order], sims[order]
    return codes // n, codes % n, sims


# ------------------------------------------------------------------ embedding a whole origin


class BatchHrrEmbedder:
    """`hrr.HrrEmbedder.embed`, bit for bit, for a whole origin at once.

    The HRR embedder splits every text into words and every word into framed trigrams, then hashes
    each distinct feature of the batch; at 100,000 facts that per-text Python work dominates. Here
    each distinct WORD is broken into features once (texts repeat words far more than they repeat
    features), and each distinct feature is hashed once. The arithmetic after that is
    `HrrEmbedder.embed`'s, step for step and with the same array layouts, so every vector is
    identical to the last bit (`tests/memory/engine/maintenance/test_dream_scale.py` holds the two to that).

    Memory stays near the output's size: features are numbered over the whole batch (first
    appearance, as `embed` numbers them), but the count matrix and the atoms' cosines and sines are
    built one block of `CHUNK` texts at a time, over the features that block uses. A block's rows
    then hold the same entries in the same order as the whole batch's matrix would, so the sums
    come out the same. (In one go, a million texts took 3 GB of index arrays beside the vectors.)
    """

    id = hrr.EMBEDDER_ID
    dims = hrr.DIMS
    min_sim = hrr.DEFAULT_MIN_SIM
    CHUNK = 16384  # texts per block of the count matrix and the dense arithmetic (rows are independent)

    def embed(self, texts: Sequence[str], dtype: type = np.float32) -> np.ndarray:
        n = len(texts)
        if n == 0:
            return np.zeros((0, hrr.DIMS), dtype=dtype)
        words = _WordFeatures.of(texts)
        raw_phases = self._raw_phases(words.names)
        out = np.empty((n, hrr.DIMS), dtype=dtype)
        for start in range(0, n, self.CHUNK):
            block, used = words.counts(start, min(n, start + self.CHUNK))
            phases = raw_phases[used].astype(np.float64) * 2.0 * math.pi / 65536.0
            cos_sum = block @ np.cos(phases)
            sin_sum = block @ np.sin(phases)
            angle = np.arctan2(sin_sum, cos_sum)
            vectors = np.empty((block.shape[0], hrr.DIMS), dtype=np.float64)
            vectors[:, 0::2] = np.cos(angle)
            vectors[:, 1::2] = np.sin(angle)
            vectors /= np.sqrt((vectors * vectors).sum(axis=1, keepdims=True))
            out[start : start + self.CHUNK] = vectors.astype(dtype, copy=False)
        return out

    @staticmethod
    def _raw_phases(names: Sequence[str]) -> np.ndarray:
        """`hrr._atom` of every name before scaling: a (len(names), 128) uint16 array (256 B a name)."""
        sha = hashlib.sha256
        rounds = range(hrr.PHASES // 16)
        out = np.empty((len(names), hrr.PHASES), dtype=np.uint16)
        step = 65536  # names hashed per join (the digests of all of them at once would be 2 KB a name)
        for start in range(0, len(names), step):
            part = names[start : start + step]
            digests = b"".join(sha(f"{name}:{r}".encode()).digest() for name in part for r in rounds)
            out[start : start + len(part)] = np.frombuffer(digests, dtype="<u2").reshape(len(part), hrr.PHASES)
        return out


@dataclass
class _WordFeatures:
    """The texts of a batch as word ids, and each distinct word's feature columns (`hrr.features`),
    columns numbered in order of first appearance over the whole batch."""

    names: list[str]
    text_words: np.ndarray  # word id of each word of each text, texts one after another
    text_starts: np.ndarray  # text t's words are text_words[text_starts[t] : text_starts[t + 1]]
    word_columns: np.ndarray  # every word's feature columns, words one after another
    word_starts: np.ndarray  # word w's columns are word_columns[word_starts[w] : word_starts[w + 1]]

    @classmethod
    def of(cls, texts: Sequence[str]) -> _WordFeatures:
        column: dict[str, int] = {}
        names: list[str] = []
        word_index: dict[str, int] = {}
        word_columns: list[int] = []
        word_starts = [0]

        def add_word(word: str) -> int:
            # "" stands for a text without words, whose only feature is the empty marker.
            feats = [hrr.EMPTY_FEATURE]
            if word:
                framed = "^" + word + "$"
                feats = ["w:" + word, *("g:" + framed[i : i + 3] for i in range(len(framed) - 2))]
            for feature in feats:
                c = column.get(feature)
                if c is None:
                    c = column[feature] = len(names)
                    names.append(feature)
                word_columns.append(c)
            word_starts.append(len(word_columns))
            word_index[word] = len(word_starts) - 2
            return word_index[word]

        split = hrr._SEPARATORS.split
        lookup = word_index.get
        parts: list[np.ndarray] = []  # word ids, converted to arrays as they come (a list of ints is 4x larger)
        pending: list[int] = []
        lengths = np.empty(len(texts), dtype=np.int64)
        for t, text in enumerate(texts):
            words = [word for word in split(text.lower()) if word] or [""]
            found = list(map(lookup, words))
            if None in found:  # features are numbered in order of first appearance, as `embed` does
                for k, w in enumerate(found):
                    if w is None:
                        w = lookup(words[k])
                        found[k] = w if w is not None else add_word(words[k])
            pending += found
            lengths[t] = len(found)
            if len(pending) > 1 << 20:
                parts.append(np.asarray(pending, dtype=np.int64))
                pending = []
        parts.append(np.asarray(pending, dtype=np.int64))
        return cls(
            names, np.concatenate(parts), np.concatenate(([0], np.cumsum(lengths))),
            np.asarray(word_columns, dtype=np.int64), np.asarray(word_starts, dtype=np.int64),
        )  # fmt: skip

    def counts(self, first: int, stop: int) -> tuple[sparse.csr_matrix, np.ndarray]:
        """Texts first…stop-1 as a (texts × used features) count matrix, and the used features' columns
        (ascending, so each row keeps the whole batch's column order)."""
        word_ids = self.text_words[self.text_starts[first] : self.text_starts[stop]]
        per_word = self.word_starts[word_ids + 1] - self.word_starts[word_ids]
        cols = self.word_columns[np.repeat(self.word_starts[word_ids], per_word) + offsets_within_runs(per_word)]
        text_of_word = np.repeat(np.arange(stop - first), np.diff(self.text_starts[first : stop + 1]))
        rows = np.repeat(text_of_word, per_word)
        used, local = np.unique(cols, return_inverse=True)
        matrix = sparse.csr_matrix((np.ones(len(cols)), (rows, local.ravel())), shape=(stop - first, len(used)))
        return matrix, used


_BATCH_HRR = BatchHrrEmbedder()


# ------------------------------------------------------------------ confirm


def _confirm(
    scope: Sequence[MaintFact], links: Sequence[Link], needed: int, confidence: float, importance_floor: float
) -> list[Confirmation]:
    """Promote each unconfirmed active fact with a subject key whose assertions or corrections reach `needed`.

    assertions = access_count + 1 (each restatement bumps the count). corrections = how many
    non-active facts of the same slot (origin, subject key) were superseded by a fact of that same
    slot, i.e. are the target of a `contradicts`/`transition` link from it. Requiring the same slot
    counts genuine user corrections and leaves out consolidation merges across slots.
    """
    by_id = {fact.memory_id: fact for fact in scope}

    def slot(fact: MaintFact) -> tuple[str, str | None]:
        return (fact.origin_key, fact.subject_key)

    superseded = set()
    for source, kind, target in links:
        if kind not in SUPERSEDE_KINDS or source not in by_id or target not in by_id:
            continue
        a, t = by_id[source], by_id[target]
        if a.subject_key and t.subject_key and slot(a) == slot(t):
            superseded.add(target)
    corrections: dict[tuple[str, str | None], int] = defaultdict(int)
    for fact in scope:
        if not fact.is_active and fact.subject_key and fact.memory_id in superseded:
            corrections[slot(fact)] += 1
    out = []
    for fact in scope:
        if not fact.is_active or not fact.subject_key or fact.is_confirmed:
            continue
        assertions = fact.access_count + 1
        corrected = corrections.get(slot(fact), 0)
        if max(assertions, corrected) < needed:
            continue
        reason = f"asserted {assertions}×" if assertions >= needed else f"corrected {corrected}× in its slot"
        prior = {"status": fact.status, "confidence": fact.confidence, "importance": fact.importance}
        after = {
            "status": "confirmed",
            "confidence": confidence,
            "importance": max(fact.importance, importance_floor),
        }
        out.append(
            Confirmation(
                fact.memory_id, fact.origin_key, fact.subject_key, assertions, corrected, reason,
                FactChange(fact.memory_id, prior, after),
            )
        )  # fmt: skip
    return out


# ------------------------------------------------------------------ consolidate


def _choose_keeper(a: MaintFact, b: MaintFact, scores: dict[str, float]) -> tuple[MaintFact, MaintFact, str]:
    """(keeper, duplicate, deciding rule). Each rule dominates the next; `a` is the smaller id.

    1. a trusted source beats an untrusted one (untrusted content must never archive an owner fact);
    2. the richer fact wins (§1.12: subject key, segment specificity, confidence, importance, uses);
    3. a confirmed belief beats an unconfirmed one;
    4. the higher live score wins, and a tie keeps `a`.
    """
    if a.is_trusted != b.is_trusted:
        return (a, b, "trusted source") if a.is_trusted else (b, a, "trusted source")
    richer = compare_richness(a, b)
    if richer:
        return (a, b, "richer metadata") if richer > 0 else (b, a, "richer metadata")
    if a.is_confirmed != b.is_confirmed:
        return (a, b, "confirmed belief") if a.is_confirmed else (b, a, "confirmed belief")
    if scores[a.memory_id] >= scores[b.memory_id]:
        tie = scores[a.memory_id] == scores[b.memory_id]
        return a, b, "equal live score: smaller id kept" if tie else "higher live score"
    return b, a, "higher live score"


def _merge(
    state: dict[str, MaintFact],
    ledger: RelateLedger,
    out_links: dict[str, list[tuple[str, str]]],
    keep_id: str,
    drop_id: str,
    key: str,
    sim: float,
    reason: str,
    now: int,
) -> Merge:
    """Fold `drop` into `keep` on the working state: metadata, links, then the bi-temporal archive.

    The keeper gains every outbound link of the duplicate it lacks (except links to itself and the
    duplicate's own `contradicts`/`transition` history), then `contradicts` and `transition` links to
    the duplicate. The duplicate is archived with
    `valid_to = now`. Both read the CURRENT state, so chains of merges compose.
    """
    keep, drop = state[keep_id], state[drop_id]
    new_keep = merge_metadata(keep, drop)
    inherited = [
        (keep_id, kind, target)
        for kind, target in out_links[drop_id]
        if target != keep_id and kind not in SUPERSEDE_KINDS
    ]
    wanted = [*inherited, *((keep_id, kind, drop_id) for kind in SUPERSEDE_KINDS)]
    added = []
    for link in dict.fromkeys(wanted):
        if link not in ledger.present:
            ledger.present.add(link)
            ledger.count[(link[0], link[1])] += 1
            out_links[keep_id].append((link[1], link[2]))
            added.append(link)
    new_drop = dataclasses.replace(drop, lifecycle="archived", valid_to=now)
    state[keep_id], state[drop_id] = new_keep, new_drop
    archive = FactChange(
        drop_id,
        {"lifecycle": drop.lifecycle, "valid_to": drop.valid_to},
        {"lifecycle": "archived", "valid_to": now},
    )
    return Merge(
        keep_id, drop_id, key, sim, reason, FactChange.between(keep, new_keep), archive, tuple(added)
    )


# ------------------------------------------------------------------ evict


def _evict(state: dict[str, MaintFact], now: int, below: float, min_age_ms: float) -> list[Eviction]:
    """Archive active, unconfirmed facts at least `min_age_ms` old whose live score is below `below`.

    Reads the state after confirmations and merges, so a freshly confirmed belief is spared and a
    keeper is scored with what it inherited. `valid_to` is set to `now` unless the fact has one.
    """
    candidates = [
        f for f in state.values() if f.is_active and not f.is_confirmed and now - f.created_at >= min_age_ms
    ]
    candidates.sort(key=lambda f: f.memory_id)
    out = []
    for fact, score in zip(candidates, live_scores(candidates, now).tolist(), strict=True):
        if score >= below:
            continue
        valid_to = fact.valid_to if fact.valid_to is not None else now
        change = FactChange(
            fact.memory_id,
            {"lifecycle": fact.lifecycle, "valid_to": fact.valid_to},
            {"lifecycle": "archived", "valid_to": valid_to},
        )
        reason = f"live score {score:.4f} < {below} at {(now - fact.created_at) / DAY_MS:.1f} days old"
        out.append(Eviction(fact.memory_id, fact.origin_key, score, now - fact.created_at, reason, change))
    return out
