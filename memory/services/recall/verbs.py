"""Recall, explain, context and feedback over the recall index (ENGINE-SPEC §3, §9).

Every verb resolves the caller's origin first and reads only that origin's index: an owner sees
owner facts, a channel peer only facts of its own channel, conversation and session, and an
unknown or malformed origin sees nothing. Filters (lifecycle, validity, classification clearance,
intent scope, point in time) narrow the candidates before anything is scored.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from django.utils import timezone

from memory import signals
from memory.engine import tuning as tuning_rules
from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry
from memory.engine.maintenance.decay import apply_feedback
from memory.engine.recall import relevance as relevance_rules
from memory.engine.recall.context import pack_context
from memory.engine.recall.core import explain as engine_explain
from memory.engine.recall.fusion import prepare as prepare_fused
from memory.engine.recall.graph_recall import recall_with_graph
from memory.engine.recall.lanes import Hit
from memory.engine.recall.selection import Selection, select, why_kept, why_left_out
from memory.engine.safety.scan import scan_for_threats
from memory.models import Fact, Workspace
from memory.services.mutation import mutate
from memory.services.recall import embedding, reinforcement
from memory.services.recall.index import CLEARANCE, RecallIndexUnavailable, ScopeIndex, registry  # noqa: F401
from memory.services.writes import untrusted
from memory.timestamps import to_ms
from tideline_kit import telemetry

DEFAULT_K = 8


@dataclass(frozen=True)
class RecallHit:
    id: str
    content: str
    score: float
    segment: str
    source_type: str | None
    trust_class: str
    components: dict[str, Any] = field(default_factory=dict)
    blocked: bool = False
    threats: tuple[str, ...] = ()
    modality: str | None = None
    media_pointer: str | None = None
    # How well the fact answers the query, 0 to 1 on a fixed scale (memory.engine.recall.relevance); `score`
    # is what ranks, and also weighs decay, trust and links, so the two need not fall together.
    relevance: float = 0.0
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["threats"] = list(self.threats)
        out["components"] = _jsonable(self.components)
        return out


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class RecallFilters:
    clearance: str = "PII"  # the most sensitive classification the caller may see
    intent: str | None = None  # facts scoped to another intent are hidden
    as_of: datetime | None = None
    # What an agent recalls is active memory. The console's search may look at other lifecycles
    # (archived, superseded, pruned or held facts) and at facts scoped to any intent; such a view
    # never reinforces what it finds.
    lifecycles: frozenset[str] | None = None
    any_intent: bool = False
    # With `as_of`: also leave out what retention has expired by now (an agent never reads an expired
    # fact, whatever point in time it asks about); without, a fact expired at T only.
    expired_now_hidden: bool = False


def _view(index: ScopeIndex, now_ms: int, filters: RecallFilters):
    """Engine columns narrowed by clearance, intent and point in time (a shallow copy; arrays shared).

    None when the origin has no facts; `RecallIndexUnavailable` when a failed sync emptied the index
    meanwhile (an emptied index must never read as "no facts"). Call under the index's lock."""
    cols, extra = index.usable().cols, index.extra
    if cols is None:
        return None
    allowed = extra.clearance <= CLEARANCE.get(filters.clearance, 2)
    if filters.intent is not None:
        allowed &= extra.unscoped | (extra.intent_scope == filters.intent)
    elif not filters.any_intent:
        allowed &= extra.unscoped
    active = cols.active
    if filters.lifecycles is not None:
        active = np.isin(cols.lifecycle, sorted(filters.lifecycles))
    if filters.as_of is not None:
        # Live at T: written by T and not yet archived or pruned at T (validity is checked at T too).
        active = (cols.created_at <= now_ms) & ~(extra.archived_at <= now_ms) & ~(extra.pruned_at <= now_ms)
        active &= ~(extra.visible_from > now_ms)  # a held write was not recallable before its admission
    if index.expiry_rules:
        # Retention is enforced here, not only by its scheduled run: past its policy, a fact is gone.
        allowed &= ~expired_rows(index, now_ms)
        if filters.as_of is not None and filters.expired_now_hidden:
            allowed &= ~expired_rows(index, int(to_ms(timezone.now())))
    if filters.as_of is None and filters.lifecycles is None and allowed.all():
        return cols
    view = copy.copy(cols)
    view.active = active & allowed  # the stored lifecycle stays; recall reads `active`
    if filters.lifecycles is not None:
        # An archived or superseded fact's validity ended when it left active memory; looking for
        # it on purpose, that end must not hide it.
        view.valid_to = np.where(cols.active, cols.valid_to, np.nan)
    if filters.as_of is not None:
        # Reinforcement after T had not happened yet: never let a later access look like the future.
        view.last_accessed_at = np.minimum(cols.last_accessed_at, now_ms)
    return view


def expired_rows(index: ScopeIndex, now_ms: float) -> np.ndarray:
    """Which rows of the index its workspace's retention rules have expired by `now_ms`."""
    cols, extra = index.cols, index.extra
    return expiry.expired_mask(
        index.expiry_rules, now_ms, origin_key=index.origin_key, segments=cols.segments,
        classifications=extra.classification, tiers=extra.tier, source_types=cols.source_types,
        confirmed=cols.confirmed, created_at=cols.created_at, last_accessed_at=cols.last_accessed_at,
    )  # fmt: skip


def _blocked(index: ScopeIndex, hit) -> tuple[bool, tuple[str, ...]]:
    row = index.rows[hit.memory_id]
    if not R.is_untrusted_source(row.source_type):
        return False, ()
    # The write path's judgement, so a newer rule applies to older facts; it remembers verdicts per
    # content (bounded), as the same facts come back query after query.
    verdict = untrusted.judge(row.content)
    return verdict.action != "allow", verdict.rules


def _untrusted_rules(text: str) -> list[str]:
    verdict = untrusted.judge(text)
    return list(verdict.rules) if verdict.action != "allow" else []


def _hits(index: ScopeIndex, raw_hits) -> list[RecallHit]:
    out = []
    for hit in raw_hits:
        row = index.rows[hit.memory_id]
        blocked, threats = _blocked(index, hit)
        content = row.content
        if blocked:
            content = f"[BLOCKED] this {row.segment} fact matched threat pattern(s): {', '.join(threats)}"
        i = hit.row
        out.append(RecallHit(
            id=hit.memory_id, content=content, score=float(hit.score), segment=row.segment,
            source_type=row.source_type, trust_class=R.trust_class(row.source_type),
            components=dict(hit.components), blocked=blocked, threats=threats,
            modality=index.extra.modality[i], media_pointer=index.extra.media_pointer[i],
            relevance=float(hit.components.get("relevance", 0.0)), why=relevance_rules.describe(hit.components),
        ))  # fmt: skip
    return out


SEED_COUNT = 4
# With a learned embedder the fused lane gives its cosine a share of the relevance blend (the
# tuning's `learned_weight`, 0.4 by default: the lexical lane keeps 1 − 0.25 − 0.4). Chosen from a
# flat region on LoCoMo's development conversations (docs/BENCHMARKS.md).
LEARNED_SETTINGS = tuning_rules.DEFAULT.fusion(learned=True)
CONFIGURED = embedding.CONFIGURED


def _rank(index: ScopeIndex, view, query: str, now_ms: int, scope: R.Origin, k: int, embedder: Any = None,
          tuning: tuning_rules.Tuning | None = None, floor: float | None = None,
          cut: float | None = None, detail_left_out: bool = True) -> Selection:  # fmt: skip
    """Tideline's default ranking: the fused lane (stemmed BM25 + expansion + n-grams, × decay × trust,
    plus a learned embedder's cosine when one is configured and the scope has its vectors), whose
    best facts may propose more along typed links when the query or its top seeds call for it
    (ENGINE-SPEC §3.7); then the facts that earn a place (`selection.select`).

    With the workspace's tuning in force, or `tuning` (an evaluation trying a proposal's values);
    each hit's components name the settings version that ranked it ("proposed" for a trial).

    Every candidate, the walk's included, is judged by its own words: only hits reaching the tuning's
    `relevance_floor`, its `relevance_cut` × the best hit's relevance and its `match_cut` (with a
    learned embedder, `learned_match_cut`) × the best match strength (`selection.py`) come back,
    most relevant first. `k` is a maximum, and a query the memory holds nothing for gets none.
    `floor` and `cut` override the tuning's (`cut` stands for the relevance cut and turns the match
    cut off: 0 and 0 to see every candidate)."""
    version: int | str = "proposed" if tuning is not None else index.tuning_version
    tuning = tuning or index.tuning or tuning_rules.DEFAULT
    floor = tuning.relevance_floor if floor is None else floor
    lane_args: dict[str, Any] = {"settings": tuning.fusion()}
    if embedder is not None:
        learned = registry.with_learned(index, view, embedder.fingerprint)
        if learned is not None:
            view = learned
            lane_args = {"settings": tuning.fusion(learned=True), "embedder": embedder,
                         "query_vector": embedder.embed_one(query)}  # fmt: skip
    match_cut = tuning.match_cut_for(learned="embedder" in lane_args) if cut is None else 0.0
    cut = tuning.relevance_cut if cut is None else cut
    fused = prepare_fused(view, query, now_ms, scope, **lane_args)
    if fused is None:
        return Selection([], floor=floor, cut=cut, limit=k)
    judged = fused.candidates(max(k, 2 * SEED_COUNT))
    seeds = select(judged, floor=floor, cut=0.0, limit=max(k, 2 * SEED_COUNT)).hits
    walked = recall_with_graph(view, index.links, query, now_ms, scope, limit=len(seeds) + k, seed_count=SEED_COUNT,
                               seed_hits=seeds, graph=registry.link_graph(index), hop_decay=tuning.hop_decay,
                               graph_weight=tuning.graph_weight) if seeds else []  # fmt: skip
    by_id = {hit.memory_id: hit for hit in judged}
    reached = [hit.row for hit in walked if hit.memory_id not in by_id]
    by_id.update({hit.memory_id: hit for hit in fused.judge(reached)})
    # The walk's order (fused ranks and link proximity) breaks ties in relevance; it lends none.
    candidates = [_walked(by_id[hit.memory_id], hit) for hit in walked if hit.memory_id in by_id]
    shown = {hit.memory_id for hit in candidates}
    candidates += [hit for hit in judged if hit.memory_id not in shown]
    chosen = select(candidates, floor=floor, cut=cut, match_cut=match_cut, limit=k)
    fused.detail(chosen.hits + ([item.hit for item in chosen.left_out] if detail_left_out else []))
    for hit in chosen.hits:
        hit.components["settings_version"] = version
        hit.components["kept_because"] = why_kept(chosen, hit)
    for item in chosen.left_out:
        item.hit.components["left_out_because"] = why_left_out(chosen, item)
    return chosen


def _walked(judged: Hit, walked: Hit) -> Hit:
    """A candidate as judged by its own words, with what the walk says about how it was reached."""
    route = {key: walked.components[key] for key in WALK_KEYS if key in walked.components}
    if route.get("via_graph"):
        route["relevance_via_link"] = True
    return Hit(judged.memory_id, walked.score, {**judged.components, **route}, judged.row)


WALK_KEYS = ("route", "formula", "rrf_k", "graph_rank", "hop", "graph_weight", "via_graph", "rrf_lexical", "rrf_vector",
             "rrf_graph")  # fmt: skip


def _now_ms(filters: RecallFilters, now: datetime | None) -> int:
    moment = filters.as_of or now or timezone.now()
    return int(to_ms(moment))


def recall(
    *, workspace: Workspace, query: str, origin: Any, k: int = DEFAULT_K, filters: RecallFilters = RecallFilters(),
    reinforce: bool = True, now: datetime | None = None, embedder: Any = CONFIGURED,
    tuning: tuning_rules.Tuning | None = None, floor: float | None = None, cut: float | None = None,
) -> list[RecallHit]:
    """Hybrid + graph recall for `query`, best first; reinforces the returned facts unless told not to.

    `embedder`: the learned embedder whose vectors join the fused lane (default: the configured one;
    None for model-free recall whatever the settings say). `tuning`: rank with these values instead
    of the workspace's (an evaluation's trial; never reinforces). `floor` and `cut` override the
    tuning's relevance floor and cuts (`cut=0` returns every hit reaching the floor, up to `k`)."""
    return recall_selection(workspace=workspace, query=query, origin=origin, k=k, filters=filters, reinforce=reinforce,
                            now=now, embedder=embedder, tuning=tuning, floor=floor, cut=cut, left_out=False).hits


@dataclass(frozen=True)
class Recalled:
    """What recall returned, and the candidates it left out (most relevant first), each saying why."""

    hits: list[RecallHit]
    left_out: list[RecallHit] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # left out per reason: floor, cut, limit


def recall_selection(
    *, workspace: Workspace, query: str, origin: Any, k: int = DEFAULT_K, filters: RecallFilters = RecallFilters(),
    reinforce: bool = True, now: datetime | None = None, embedder: Any = CONFIGURED,
    tuning: tuning_rules.Tuning | None = None, floor: float | None = None, cut: float | None = None,
    left_out: bool = True,
) -> Recalled:
    """`recall`, with the candidates it left out and why (for `explain` and the console); with
    `left_out=False` only their count per reason (an agent's recall needs no more)."""
    with telemetry.operation("memory.recall", workspace_id=workspace.pk, k=k) as op:
        found = _recall_selection(workspace, query, origin, k, filters, reinforce, now, embedder, tuning, floor, cut,
                                  left_out)  # fmt: skip
        op.set(outcome="answered" if found.hits else "abstained", records=len(found.hits))
        return found


def _recall_selection(workspace, query, origin, k, filters, reinforce, now, embedder, tuning, floor, cut,
                      left_out) -> Recalled:  # fmt: skip
    scope = _scope(origin)
    if scope is None:
        return Recalled([])
    embedder = embedding.resolve(embedder)
    index = registry.get(workspace, scope)
    now_ms = _now_ms(filters, now)
    moment = now or timezone.now()
    reinforced: list[int] = []
    served = reinforce and filters.as_of is None and filters.lifecycles is None and tuning is None
    with index.lock:
        view = _view(index, now_ms, filters)
        chosen = None
        if view is not None:
            chosen = _rank(index, view, query, now_ms, scope, k, embedder, tuning, floor, cut, detail_left_out=left_out)
        hits = _hits(index, chosen.hits) if chosen else []
        dropped = _hits(index, [item.hit for item in chosen.left_out]) if chosen and left_out else []
        if served and hits:
            reinforced = _reinforce_in_index(index, [h.id for h in hits], moment)
        version = index.tuning_version
    if reinforced:
        # After the lock: a request holding a database connection must never wait for an index lock
        # that another request holds while it waits for a connection (the pool would deadlock).
        reinforcement.record(index.workspace_id, reinforced, moment)
    if served and floor is None and cut is None:
        signals.send_after(signals.recall_served, Workspace, workspace=workspace, query=query, origin_key=scope.key,
                           memory_ids=[h.id for h in hits], settings_version=version or 0, at=moment)  # fmt: skip
    return Recalled(hits, dropped, chosen.counts() if chosen else {})


SEARCH_ORIGINS_LIMIT = 100  # origins one console search reads; each has its own index to build


@dataclass(frozen=True)
class Search:
    hits: list[RecallHit]
    origins_searched: int
    origins_total: int


def search(*, workspace: Workspace, query: str, origins: Sequence[R.Origin], lifecycles: Collection[str],
           k: int = 200) -> Search:  # fmt: skip
    """The console's search across origins: each origin's own ranking, merged best first.

    Origins never share an index (scoping is by index), so a search over several reads each one;
    scores are comparable enough to interleave (each is recall's fused score), and a fact appears
    once. Passive: finding a fact here is not a use of it."""
    filters = RecallFilters(lifecycles=frozenset(lifecycles), any_intent=True)
    merged: dict[str, RecallHit] = {}
    chosen = list(origins)[:SEARCH_ORIGINS_LIMIT]
    for origin in chosen:
        # A person searching wants every match that reaches the floor, not only the best few.
        for hit in recall(workspace=workspace, query=query, origin=origin, k=k, filters=filters, reinforce=False, cut=0.0):
            merged.setdefault(hit.id, hit)
    hits = sorted(merged.values(), key=lambda h: -h.score)[:k]
    return Search(hits, len(chosen), len(origins))


def explain(*, workspace: Workspace, query: str, origin: Any, k: int = DEFAULT_K,
            filters: RecallFilters = RecallFilters(), now: datetime | None = None,
            embedder: Any = CONFIGURED, floor: float | None = None, cut: float | None = None) -> list[RecallHit]:  # fmt: skip
    """Recall's ranking with every score component of every hit; never reinforces. `floor=0` (and
    `cut=0`) also explain the hits the workspace's relevance floor (and cut) would hold back."""
    return explain_selection(workspace=workspace, query=query, origin=origin, k=k, filters=filters, now=now,
                             embedder=embedder, floor=floor, cut=cut).hits  # fmt: skip


def explain_selection(*, workspace: Workspace, query: str, origin: Any, k: int = DEFAULT_K,
                      filters: RecallFilters = RecallFilters(), now: datetime | None = None,
                      embedder: Any = CONFIGURED, floor: float | None = None, cut: float | None = None) -> Recalled:  # fmt: skip
    """`explain`, with the candidates recall left out and why (each hit says why it was kept)."""
    found = recall_selection(workspace=workspace, query=query, origin=origin, k=k, filters=filters, reinforce=False,
                             now=now, embedder=embedder, floor=floor, cut=cut)  # fmt: skip
    scope = _scope(origin)
    if not found.hits or scope is None:
        return found
    index = registry.get(workspace, scope)
    now_ms = _now_ms(filters, now)
    with index.lock:
        view = _view(index, now_ms, filters)
        detail = {h.memory_id: h.components for h in engine_explain(view, query, now_ms, scope, limit=None, mode="default")}
    hits = [RecallHit(**{**h.__dict__, "components": {**h.components, "lexical_detail": detail.get(h.id, {})}})
            for h in found.hits]  # fmt: skip
    return Recalled(hits, found.left_out, found.counts)


def context(*, workspace: Workspace, query: str, origin: Any, max_chars: int = 1200, k: int = DEFAULT_K,
            filters: RecallFilters = RecallFilters(), now: datetime | None = None,
            embedder: Any = CONFIGURED) -> str | None:  # fmt: skip
    """What recall returns, in its order, packed greedily into at most `max_chars`, untrusted facts
    fenced, with a last line saying how many facts were left out and why; passive (no reinforcement)."""
    with telemetry.operation("memory.context", workspace_id=workspace.pk, k=k) as op:
        scope = _scope(origin)
        if scope is None:
            return None
        embedder = embedding.resolve(embedder)
        index = registry.get(workspace, scope)
        now_ms = _now_ms(filters, now)
        with index.lock:
            view = _view(index, now_ms, filters)
            if view is None:
                return None
            chosen = _rank(index, view, query, now_ms, scope, k, embedder, detail_left_out=False)
            op.set(outcome="answered" if chosen.hits else "abstained", records=len(chosen.hits))
            # Context goes straight into a prompt, so every line is rescanned, the owner's included.
            return pack_context(view, chosen.hits, max_chars=max_chars,
                                threat_scan=lambda text: list(scan_for_threats(text).rules),
                                untrusted_scan=_untrusted_rules, left_out=chosen.counts())  # fmt: skip


def relevance_floor(workspace: Workspace) -> float:
    """The relevance a hit needs in this workspace (its tuning's `relevance_floor`)."""
    from memory.services.tuning import current

    return current(workspace)[1].relevance_floor


def relevance_cut(workspace: Workspace) -> float:
    """The share of the best hit's relevance a hit needs in this workspace (`relevance_cut`)."""
    from memory.services.tuning import current

    return current(workspace)[1].relevance_cut


def match_cut(workspace: Workspace) -> float:
    """The share of the best hit's match strength a hit needs in this workspace (`match_cut`, or
    `learned_match_cut` when a learned embedder is configured)."""
    from memory.services.tuning import current

    return current(workspace)[1].match_cut_for(learned=embedding.configured() is not None)


def feedback(*, workspace: Workspace, fact_id: str, signal: str, actor: str, now: datetime | None = None,
             query: str | None = None) -> Fact | None:  # fmt: skip
    """Up/down-vote an active fact (ENGINE-SPEC §3.12); None for an archived or unknown id. `query`:
    the question whose hit is judged, announced (`memory.signals.feedback_given`) so that the vote
    can become a gold-case candidate; memory itself keeps no query."""
    if signal not in ("up", "down"):
        from memory.services.writes.policy import FactValidationError

        raise FactValidationError(f"feedback must be 'up' or 'down', got {signal!r}", ("bad_signal",))
    if not Fact.objects.filter(workspace=workspace, memory_id=fact_id, lifecycle="active").exists():
        return None
    with mutate(workspace, actor=actor, now=now) as m:
        # Re-read under the workspace lock: a concurrent archive wins, and counters never race.
        fact = Fact.objects.get(workspace=workspace, memory_id=fact_id)
        if fact.lifecycle != "active":
            m.record("feedback", fact_ids=[fact.memory_id], signal=signal, ignored="not active")
            return None
        outcome = apply_feedback(fact.importance, fact.confidence, signal)
        before = {"importance": fact.importance, "confidence": fact.confidence, "access_count": fact.access_count}
        fact.importance, fact.confidence = outcome.importance, outcome.confidence
        fields = ["importance", "confidence"]
        if outcome.touch:
            fact.access_count += 1
            fact.last_accessed_at = m.now
            fields += ["access_count", "last_accessed_at"]
        fact.save(update_fields=fields)
        # Which recall settings served the fact being judged (a proposal's apply or revert moves it).
        m.record("feedback", fact_ids=[fact.memory_id], signal=signal, before=before,
                 after={"importance": fact.importance, "confidence": fact.confidence},
                 settings_version=m.workspace.tuning_version)  # fmt: skip
        if query and query.strip():
            signals.feedback_given.send(sender=Workspace, workspace=workspace, memory_id=fact.memory_id, vote=signal,
                                        query=query.strip(), actor=actor)  # fmt: skip
    return fact


def _reinforce_in_index(index: ScopeIndex, memory_ids: list[str], now: datetime) -> list[int]:
    """Count a use of each hit in this process's index now (the caller holds its lock) and return
    the rows' keys for the one UPDATE that records it (ENGINE-SPEC §3.9; silent, like the original's
    markAccessed)."""
    if index.broken or index.cols is None:
        return []
    pks = [int(index.extra.pk[index.cols.row_index[m]]) for m in memory_ids if m in index.cols.row_index]
    registry.note_access_locked(index, memory_ids, int(to_ms(now)))
    return pks


def _scope(origin: Any) -> R.Origin | None:
    """The caller's origin, or None (sees nothing) when it is missing or malformed."""
    if origin is None:
        return None
    try:
        scope = R.parse_origin(origin)
    except R.OriginError:
        return None
    if not scope.is_owner and not (scope.channel_id and scope.conversation_id and scope.session_key):
        return None
    return scope
