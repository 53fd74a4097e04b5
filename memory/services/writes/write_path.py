"""The write path (ENGINE-SPEC §2, ARCHITECTURE.md §3): a write is not an append.

Inside one mutation (workspace lock held, revision bumped) a new fact goes through, in order:
validate → worthiness → provenance gate → threat scan (untrusted only) → exact dedup (keyed content
hash) → near dedup (token Jaccard ≥ 0.85, via `near_duplicates`) → subject-slot supersession →
explicit `supersedes` → insert → links → events. Every check that can refuse runs before anything
is written, so a refusal leaves exactly one row: a `blocked` event with the content's keyed hash
and length, never the content itself.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory import sealing, signals
from memory.engine.facts import fields as F
from memory.engine.facts import records as R
from memory.engine.facts import validation as V
from memory.engine.recall.tokenize import jaccard, token_set
from memory.engine.writes import holds
from memory.models import Fact, Link
from memory.services.mutation import Mutation, mutate
from memory.services.recall import embedding
from memory.services.writes import policy
from memory.services.writes.near_duplicates import find_duplicates, index_facts, unindex_facts
from memory.timestamps import to_ms
from tideline_kit import telemetry

Error = policy.TidelineError



@dataclass
class NewFact:
    """What a writer asks to remember. Everything but content and segment is optional."""

    content: str
    segment: str
    origin: R.Origin = field(default_factory=R.Origin.owner)
    source_type: str | None = None
    subject_key: str | None = None
    supersedes: tuple[str, ...] = ()
    importance: float | None = None
    tier: str | None = None
    classification: str | None = None
    intent_scope: str | None = None
    force: bool = False
    metadata: dict | None = None
    links: tuple[tuple[str, str, str], ...] = ()  # (kind, target memory id, reason)
    source_turn: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    confidence: float | None = None
    status: str | None = None
    source_pointers: tuple[str, ...] = ()
    modality: str | None = None
    media_pointer: str | None = None
    # A person writing on the origin's behalf, in words ("made in the console by ada": a correction
    # of a peer's fact): a hold's reason names them instead of the origin.
    made_by: str = ""
    # Set by a gated import so a record keeps its identity and history.
    memory_id: str | None = None
    created_at: datetime | None = None


@dataclass
class WriteResult:
    fact: Fact
    outcome: str  # "created" | "reinforced" | "confined" | "held" | "unchanged" (a repeated correction)
    superseded: list[str] = field(default_factory=list)
    review_item_id: int | None = None
    rules: tuple[str, ...] = ()  # a held write: the rules that held it
    detected: tuple[str, ...] = ()  # kinds of personal data and secrets found in the text (never their values)

    @property
    def deduplicated(self) -> bool:
        return self.outcome == "reinforced"


# How a write ended, as metrics and traces name it (a confined write is stored, in its origin's scope).
WRITE_OUTCOMES = {"created": "stored", "confined": "stored", "reinforced": "reinforced", "held": "held",
                  "unchanged": "unchanged"}  # fmt: skip


def write_fact(*, workspace, new: NewFact, actor: str, now: datetime | None = None,
               embedder: Any = embedding.CONFIGURED) -> WriteResult:  # fmt: skip
    """Remember one fact, or raise a typed refusal (`TidelineError` subclass) after logging it.

    `embedder`: whose vector a new fact gets, in the same transaction (default: the configured one)."""
    refusal: Error | None = None
    with telemetry.operation("memory.write", workspace_id=workspace.pk, records=1,
                             origin=getattr(new.origin, "kind", "")) as op:  # fmt: skip
        with mutate(workspace, actor=actor, now=now) as m:
            try:
                result = _write(m, new, embedder)
            except Error as error:
                _record_refusal(m, new, error)
                refusal = error
        if refusal is not None:
            raise refusal
        op.set(outcome=WRITE_OUTCOMES.get(result.outcome, result.outcome))
    if result.outcome in ("created", "confined"):
        signals.send_after(signals.fact_written, Fact, workspace=workspace, fact=result.fact)
    return result


def _record_refusal(m: Mutation, new: NewFact, error: Error) -> None:
    # The refused request may hold anything (a NUL, an id with '/', a 10,000-character segment): the
    # event keeps only what is known to be storable, and never mints a data key for a bad origin.
    content = new.content if isinstance(new.content, str) else ""
    origin = new.origin if isinstance(new.origin, R.Origin) and _valid_origin(new.origin) else None
    hmac = None
    # A refused secret leaves no trace of its text at all, not even a keyed hash of it.
    if content and origin is not None and not V.UNSTORABLE.search(content) and error.kind != "secret":
        hmac = sealing.content_hash(m.workspace.pk, origin.key, R.normalize_for_hash(content))
    m.record(
        "blocked",
        fact_ids=[new.memory_id] if V.is_memory_id(new.memory_id) else [],
        reason=error.message,
        refusal=error.kind,
        rules=list(error.rules),
        segment=_known(new.segment, R.SEGMENTS),
        source_type=_known(new.source_type, R.SOURCE_TYPES),
        origin=origin.key if origin is not None else "(invalid)",
        content_length=len(content),
        content_hmac=hmac,
    )


def _valid_origin(origin: R.Origin) -> bool:
    try:
        R.check_origin(origin)
    except R.OriginError:
        return False
    return True


def _known(value: Any, allowed: tuple[str, ...]) -> str | None:
    """A vocabulary value as is; anything else as a short escaped quote (safe in any JSON column)."""
    if value is None or value in allowed:
        return value
    return R.shown(value, 40)


def _write(m: Mutation, new: NewFact, embedder: Any = embedding.CONFIGURED) -> WriteResult:
    content = policy.validate(new)
    content = V.check_fields(
        content=content, source_type=new.source_type, origin=new.origin, memory_id=new.memory_id,
        subject_key=new.subject_key, intent_scope=new.intent_scope, source_turn=new.source_turn,
        media_pointer=new.media_pointer, source_pointers=new.source_pointers, supersedes=new.supersedes,
        links=new.links, importance=new.importance, confidence=new.confidence,
        # A record's own createdAt must not lie in the future; the store clock (`now`) is the caller's
        # to inject (tests and replays move it), so it is not judged here.
        created_at_ms=to_ms(new.created_at), valid_from_ms=to_ms(new.valid_from),
        valid_to_ms=to_ms(new.valid_to), now_ms=time.time() * 1000,
    ).strip()  # fmt: skip
    screened = policy.screen_sensitive(new, content)  # before anything is stored, hashed or indexed
    if screened.detected:
        new = dataclasses.replace(new, classification=screened.classification)
    result = _write_screened(m, new, screened.content, embedder)
    if screened.detected:
        result.detected = screened.detected
        for event in m.events:  # the write's own event names what was found (kinds only)
            if result.fact.memory_id in event.fact_ids and event.kind in ("created", "confined", "held", "reinforced"):
                event.data["detected"] = list(screened.detected)
    return result


def _write_screened(m: Mutation, new: NewFact, content: str, embedder: Any) -> WriteResult:
    policy.check_worthiness(new, content)
    workspace, origin = m.workspace, new.origin
    trusted = not R.is_untrusted_source(new.source_type)
    subject_key = R.normalize_subject_key(new.subject_key)
    same_origin = Fact.objects.filter(workspace=workspace, origin_key=origin.key)
    active = same_origin.filter(lifecycle="active")
    targets = list(same_origin.filter(memory_id__in=list(new.supersedes))) if new.supersedes else []
    slot_write = bool(subject_key) and not new.supersedes
    holders = list(active.filter(subject_key=subject_key).order_by("created_at", "pk")) if slot_write else []
    decision = policy.gate(new, targets=targets, holders=holders)
    addressed = policy.scan(new, content)  # refuses an attack; a hold when the text addresses the agent

    confined = isinstance(decision, policy.Confine)
    if confined and decision.drop_subject_key:
        subject_key, slot_write = None, False  # kept outside the slot, which a trusted value holds
    slot_priors = [p for p in holders if trusted or R.is_untrusted_source(p.source_type)] if slot_write else []
    hold = _hold_for_review(workspace, new, decision, confined, corrects=bool(new.supersedes or slot_priors)) or addressed

    # Restatement and dedup: never for explicit corrections (`supersedes`), and only ever into a
    # fact of the same origin and trust class, so an untrusted write cannot reinforce a trusted one.
    # A write that would be held may reinforce what is already admitted, but never promote it.
    if not new.supersedes:
        if slot_write:
            restated = _most_similar(content, slot_priors)
            if restated is not None:
                return _reinforce(m, restated, new, decision, promote=hold is None)
        else:
            duplicate = _duplicate_of(workspace, origin, trusted, content)
            if duplicate is not None:
                return _reinforce(m, duplicate, new, decision, promote=hold is None)

    if hold is not None:
        replaces = slot_priors or [t for t in targets if t.lifecycle == "active"]
        if confined and decision.contradicts:
            replaces = [h for h in holders if h.memory_id == decision.contradicts[0]]
        return _write_held(m, new, content, decision, subject_key, hold, replaces, embedder)

    fact = _build(m, new, content, decision, subject_key)
    slot_archived = slot_priors
    explicit = [t for t in targets if t.lifecycle == "active" and t not in slot_archived]
    fact.save()
    index_facts([fact])
    embedding.embed_new([fact], embedder)
    _archive(m, slot_archived + explicit)
    links = _links(m, fact, new, slot_archived)
    m.record(
        "created", fact_ids=[fact.memory_id], segment=fact.segment, source_type=fact.source_type,
        targets=list(new.supersedes) + [p.memory_id for p in slot_archived], links=links,
        content_length=fact.content_length, notes=list(decision.notes),
    )  # fmt: skip
    if confined:
        m.record("confined", fact_ids=[fact.memory_id], reason=decision.reason, rules=list(decision.rules),
                 requested_segment=new.segment, segment=fact.segment)  # fmt: skip
    return WriteResult(fact, "confined" if confined else "created", [p.memory_id for p in slot_archived + explicit])


def _hold_for_review(workspace, new: NewFact, decision, confined: bool, *, corrects: bool) -> holds.Hold | None:
    settings = holds.HoldSettings(hold_durable_promotions=workspace.hold_durable_promotions,
                                  hold_confined_writes=workspace.hold_confined_writes)  # fmt: skip
    return holds.hold_for_review(
        owner_origin=new.origin.is_owner, tier=decision.tier, segment=decision.segment, corrects=corrects,
        classification=new.classification or R.DEFAULT_CLASSIFICATION, confined=confined,
        disputes_trusted_slot=confined and bool(decision.contradicts),
        gate_reason=getattr(decision, "reason", ""), made_by=new.made_by, settings=settings,
    )  # fmt: skip


def _write_held(m: Mutation, new: NewFact, content: str, decision, subject_key: str | None, hold: holds.Hold,
                replaces: list[Fact], embedder: Any) -> WriteResult:  # fmt: skip
    """Store a write that waits for a verdict: lifecycle `held`, out of recall, nothing it would
    replace touched yet. The same content held again finds the waiting fact; content a reviewer
    blocked is refused rather than queued a second time."""
    digest = sealing.content_hash(m.workspace.pk, new.origin.key, R.normalize_for_hash(content))
    priors = Fact.objects.filter(workspace=m.workspace, origin_key=new.origin.key, content_hash=digest,
                                 held_at__isnull=False)  # fmt: skip
    # Only within the write's trust class, as dedup: an untrusted write never answers with a trusted fact.
    untrusted = list(R.UNTRUSTED_SOURCE_TYPES)
    if R.is_untrusted_source(new.source_type):
        priors = priors.filter(source_type__in=untrusted)
    else:
        priors = priors.exclude(source_type__in=untrusted)
    prior = priors.order_by("-created_at", "-pk").first()
    if prior is not None and prior.lifecycle == "held":
        item_id = _announce_hold(m, prior, replaces, hold)
        m.record("held", fact_ids=[prior.memory_id], reason=hold.reason, rules=list(hold.rules), hold=hold.kind,
                 review_item=item_id, repeated=True)  # fmt: skip
        return WriteResult(prior, "held", [], item_id, tuple(hold.rules))
    if prior is not None and prior.status == "retracted" and prior.admitted_at is None:
        raise policy.WriteGateError(f"memory write blocked: a reviewer blocked this content before ({prior.memory_id}); "
                                    "it is not held for review again", ("review_blocked",))  # fmt: skip
    fact = _build(m, new, content, decision, subject_key)
    fact.lifecycle, fact.held_at = "held", m.now
    fact.save()
    embedding.embed_new([fact], embedder)
    links = _links(m, fact, new, [])
    m.record("created", fact_ids=[fact.memory_id], segment=fact.segment, source_type=fact.source_type,
             targets=[], links=links, content_length=fact.content_length, notes=list(decision.notes),
             lifecycle="held")  # fmt: skip
    item_id = _announce_hold(m, fact, replaces, hold)
    m.record("held", fact_ids=[fact.memory_id], reason=hold.reason, rules=list(hold.rules), hold=hold.kind,
             review_item=item_id, replaces=[f.memory_id for f in replaces])  # fmt: skip
    return WriteResult(fact, "held", [], item_id, tuple(hold.rules))


def _duplicate_of(workspace, origin: R.Origin, trusted: bool, content: str) -> Fact | None:
    """The fact this content repeats: same keyed hash first, else the most similar near-duplicate."""
    digest = sealing.content_hash(workspace.pk, origin.key, R.normalize_for_hash(content))
    found = find_duplicates(workspace_id=workspace.pk, origin_key=origin.key, trusted=trusted, content=content,
                            content_hash=digest)  # fmt: skip
    if found.exact:
        return _richest(list(Fact.objects.filter(pk__in=found.exact)))
    if not found.near:
        return None
    best = found.near[0].similarity
    return _richest(list(Fact.objects.filter(pk__in=[d.fact_id for d in found.near if d.similarity == best])))


def _most_similar(content: str, priors: list[Fact]) -> Fact | None:
    """The prior restating `content` (Jaccard ≥ 0.85): most similar first, then the richest (Decision 4)."""
    tokens = token_set(content)
    scored = [(jaccard(tokens, token_set(p.content)), p) for p in priors]
    scored = [(s, p) for s, p in scored if s >= R.DEDUP_SIMILARITY]
    if not scored:
        return None
    best = max(s for s, _ in scored)
    return _richest([p for s, p in scored if s == best])


def _richness(fact: Fact) -> tuple:
    specificity = R.SEGMENT_DEFAULTS[fact.segment].specificity
    return (1 if fact.subject_key else 0, specificity, fact.confidence or 0, fact.importance, fact.access_count,
            fact.created_at, fact.pk)  # fmt: skip


def _richest(facts: list[Fact]) -> Fact | None:
    return max(facts, key=_richness) if facts else None


def _reinforce(m: Mutation, existing: Fact, new: NewFact, decision, *, promote: bool = True) -> WriteResult:
    """Fold a restatement into the fact it repeats (ENGINE-SPEC §1.12 and §2 step 6). With
    `promote` False (a write that would be held for review) it only counts as a use."""
    before = {"segment": existing.segment, "importance": existing.importance, "access_count": existing.access_count}
    incoming_segment = decision.segment
    if existing.segment not in R.SEGMENT_DEFAULTS or not promote:
        incoming_segment = existing.segment
    if R.SEGMENT_DEFAULTS[incoming_segment].specificity > R.SEGMENT_DEFAULTS[existing.segment].specificity:
        defaults = R.SEGMENT_DEFAULTS[incoming_segment]
        existing.segment, existing.tier, existing.decay_rate = incoming_segment, defaults.tier, defaults.decay_rate
    if promote:
        existing.importance = max(existing.importance, decision.importance)
    if new.confidence is not None and not R.is_untrusted_source(new.source_type):
        existing.confidence = max(existing.confidence or 0.0, new.confidence)
    if not existing.subject_key and new.subject_key:
        existing.subject_key = R.normalize_subject_key(new.subject_key)
    if not existing.source_turn and new.source_turn:
        existing.source_turn = new.source_turn
    existing.access_count += 1
    existing.last_accessed_at = m.now
    existing.save(update_fields=["segment", "tier", "decay_rate", "importance", "confidence", "subject_key",
                                 "source_turn", "access_count", "last_accessed_at"])  # fmt: skip
    m.record("reinforced", fact_ids=[existing.memory_id], before=before,
             after={"segment": existing.segment, "importance": existing.importance, "access_count": existing.access_count},
             source_type=new.source_type)  # fmt: skip
    return WriteResult(existing, "reinforced")


def _build(m: Mutation, new: NewFact, content: str, decision, subject_key: str | None) -> Fact:
    created = new.created_at or m.now
    written = {spec.name: list(getattr(new, spec.name)) if spec.is_sequence else getattr(new, spec.name)
               for spec in _AS_WRITTEN}  # fmt: skip
    return Fact(
        workspace=m.workspace,
        **written,
        memory_id=new.memory_id or R.make_memory_id(),
        content=content,
        segment=decision.segment,
        tier=decision.tier,
        importance=decision.importance,
        decay_rate=R.SEGMENT_DEFAULTS[decision.segment].decay_rate,
        access_count=0,
        last_accessed_at=created,
        created_at=created,
        lifecycle="active",
        written_by=m.actor,
        subject_key=subject_key,
        status=decision.status,
        classification=new.classification or R.DEFAULT_CLASSIFICATION,
    )


# What the write path decides itself (from the gate's decision, or a default); every other field of
# the request that the Fact stores is stored as written (the vocabulary's "write" fields).
_DECIDED = frozenset({"memory_id", "content", "segment", "tier", "importance", "status", "subject_key", "created_at",
                      "classification"})  # fmt: skip
_AS_WRITTEN = tuple(spec for spec in F.fields_for("write") if spec.stored_in and spec.name not in _DECIDED)


def _archive(m: Mutation, facts: list[Fact]) -> None:
    for fact in facts:
        fact.lifecycle, fact.valid_to, fact.archived_at = "archived", m.now, m.now
        fact.save(update_fields=["lifecycle", "valid_to", "archived_at"])
    unindex_facts([f.pk for f in facts])
    if facts:
        m.record("superseded", fact_ids=[f.memory_id for f in facts], reason="replaced by a newer value")


def _links(m: Mutation, fact: Fact, new: NewFact, slot_archived: list[Fact]) -> list[dict[str, Any]]:
    """Writer-supplied links first, then `contradicts` + `transition` to each archived slot value."""
    wanted = [(kind, target, reason) for kind, target, reason in new.links]
    for prior in slot_archived:
        wanted += [("contradicts", prior.memory_id, ""), ("transition", prior.memory_id, "")]
    if not wanted:
        return []
    pks = dict(Fact.objects.filter(workspace=m.workspace, memory_id__in={t for _, t, _ in wanted}).values_list("memory_id", "pk"))
    rows, seen, described = [], set(), []
    for position, (kind, target, reason) in enumerate(wanted):
        key = (pks.get(target) or target, kind)
        if key in seen:
            continue
        seen.add(key)
        described.append({"kind": kind, "target": target})
        rows.append(Link(workspace=m.workspace, from_fact=fact, to_fact_id=pks.get(target),
                         dangling_target="" if target in pks else target, kind=kind, reason=reason or "",
                         position=position, created_by=m.actor))  # fmt: skip
    Link.objects.bulk_create(rows)
    return described


def _announce_hold(m: Mutation, fact: Fact, replaces: list[Fact], hold: holds.Hold) -> int | None:
    """Tell whoever follows held writes (governance opens a review item); its id, if one was opened."""
    responses = signals.write_held.send(sender=Fact, workspace=m.workspace, fact=fact,
                                        held_by=replaces[0] if replaces else None, replaces=[f.memory_id for f in replaces],
                                        hold_kind=hold.kind, rules=hold.rules, reason=hold.reason, mutation=m,
                                        detector_score=hold.detector_score)  # fmt: skip
    return signals.first_id(responses)
