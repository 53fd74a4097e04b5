"""The provenance write gate (ENGINE-SPEC §2 step 3, §1.5; Decisions 2, 3 and 5) and the typed errors.

The gate decides, before anything is stored, what an incoming fact may do. It reads plain data only:
the writer's source type and origin key, the fact's segment, tier, status and importance, and the
supersede targets and slot holders the service layer has looked up. Rules, in order:

0. Fail closed (Decision 2): an unknown source type, segment, tier or status is a validation error,
   never "trusted" or "context".
1. Trusted writers (owner, user, channel peers, the dream, legacy records without a source type) are
   never gated: they may write any segment and supersede anything.
2. Segment protection: an untrusted writer (tool output, retrieved document, compaction, extraction)
   may not author identity, preference or correction. A distiller's proposal (post-turn extraction,
   compaction) is confined to `knowledge` instead, kept as evidence; any other writer is blocked.
3. Supersede protection: an untrusted writer may not supersede a trusted fact of its own origin. Its
   own untrusted facts it may revise; targets of other origins are ignored, as the store ignores them.
4. Slot protection (Decision 5): an untrusted value for a slot that holds a trusted value of the same
   origin is confined: stored as knowledge outside the slot, with the trusted facts it disputes listed
   so the service can open a contradiction review item. The slot keeps one active value.
5. Claims are capped (Decision 3): an untrusted writer cannot make a fact permanent, confirmed, or more
   important than its segment's default. These are lowered, not refused, and each change is noted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from memory.engine.facts.records import (
    PROTECTED_SEGMENTS,
    SEGMENT_DEFAULTS,
    SEGMENTS,
    SOURCE_TYPES,
    STATUSES,
    TIERS,
    clamp_importance,
    is_untrusted_source,
)

# ---------------------------------------------------------------- errors


class TidelineError(Exception):
    """A refused request. `kind` says which gate refused it; `rules` name the rules that fired."""

    kind: ClassVar[str] = "error"

    def __init__(self, message: str, rules: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.rules = tuple(rules)

    def to_dict(self) -> dict[str, object]:
        """The JSON shape the CLI and the HTTP API print under `"error"`."""
        return {"kind": self.kind, "message": self.message, "rules": list(self.rules)}


class WriteGateError(TidelineError):
    kind = "write_gate"
    code: ClassVar[str] = "write_gate_blocked"  # the original's error code


class MemoryThreatError(TidelineError):
    kind = "threat"
    code: ClassVar[str] = "memory:threat"

    @classmethod
    def for_rules(cls, rules: Iterable[str]) -> MemoryThreatError:
        rules = tuple(rules)
        return cls("memory content matched threat pattern(s): " + ", ".join(rules), rules)

    @property
    def threats(self) -> list[str]:
        """The matched threat rule ids (the original's attribute name)."""
        return list(self.rules)


class UnworthyFactError(TidelineError):
    kind = "unworthy"


class FactValidationError(TidelineError, ValueError):
    kind = "validation"


class SecretError(TidelineError):
    """Untrusted content holding a secret (an API key, a password, …): refused, never stored."""

    kind = "secret"


# ---------------------------------------------------------------- decisions


class TargetFact(NamedTuple):
    """An existing fact the write would touch, as the service layer found it."""

    memory_id: str
    source_type: str | None
    origin_key: str


@dataclass(frozen=True)
class Allow:
    """Store the fact with these values."""

    action: ClassVar[str] = "allow"
    segment: str
    tier: str
    importance: float
    status: str | None
    notes: tuple[str, ...] = ()  # what Decision 3 lowered, for the audit event


@dataclass(frozen=True)
class Confine:
    """Store the fact as `knowledge`, down-weighted evidence rather than an authoritative fact."""

    action: ClassVar[str] = "confine"
    segment: str
    tier: str
    importance: float
    status: str | None
    reason: str
    rules: tuple[str, ...]
    drop_subject_key: bool = False  # keep it out of the slot, which already holds a trusted value
    contradicts: tuple[str, ...] = ()  # trusted facts it disputes: open a contradiction review item
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Block:
    """Refuse the write; nothing but a `blocked` event is stored."""

    action: ClassVar[str] = "block"
    kind: str  # "write_gate" or "validation"
    message: str
    rule: str
    reason: str = ""  # the `blocked` event's reason (the message without its prefix)

    def to_error(self) -> TidelineError:
        error = WriteGateError if self.kind == WriteGateError.kind else FactValidationError
        return error(self.message, (self.rule,))


GateDecision = Allow | Confine | Block

_TRUSTED_SOURCE_TYPES = frozenset(SOURCE_TYPES) - {s for s in SOURCE_TYPES if is_untrusted_source(s)}


def _invalid(rule: str, field: str, value: object, allowed: Iterable[str]) -> Block:
    message = f"unknown {field} {value!r}; use one of: {', '.join(allowed)}"
    return Block("validation", message, rule, message)


def _denied(rule: str, reason: str) -> Block:
    return Block("write_gate", f"memory write blocked: {reason}", rule, reason)


def confine_untrusted_segment(source_type: str | None, segment: str) -> str:
    """The segment a distiller's proposal is stored under: `knowledge` for an untrusted writer's
    protected segment, otherwise unchanged. A source type that is not known to be trusted counts as
    untrusted here (fail closed)."""
    trusted = source_type is None or source_type in _TRUSTED_SOURCE_TYPES
    return "knowledge" if not trusted and segment in PROTECTED_SEGMENTS else segment


def evaluate_write_gate(
    *,
    segment: str,
    source_type: str | None = None,
    origin_key: str = "owner",
    tier: str | None = None,
    status: str | None = None,
    importance: object = None,
    supersede_targets: Iterable[tuple[str, str | None, str]] = (),
    slot_holders: Iterable[tuple[str, str | None, str]] = (),
    distiller: bool = False,
) -> GateDecision:
    """Decide what a write may do (module docstring, rules 0–5).

    `supersede_targets` are the facts named in `supersedes` and `slot_holders` the active facts with
    the write's subject key, each as (memory_id, source_type, origin_key); pass slot holders only
    for a slot write (a subject key and no explicit supersedes). `distiller` marks a distiller's
    proposal, which is confined rather than blocked when it asks for a protected segment.
    """
    if source_type is not None and source_type not in SOURCE_TYPES:
        return _invalid("unknown_source_type", "source type", source_type, SOURCE_TYPES)
    if segment not in SEGMENTS:
        return _invalid("unknown_segment", "segment", segment, SEGMENTS)
    if tier is not None and tier not in TIERS:
        return _invalid("unknown_tier", "tier", tier, TIERS)
    if status is not None and status not in STATUSES:
        return _invalid("unknown_status", "status", status, STATUSES)

    if not is_untrusted_source(source_type):
        defaults = SEGMENT_DEFAULTS[segment]
        importance = clamp_importance(importance, defaults.importance)
        return Allow(segment, tier or defaults.tier, importance, status)

    reasons: list[str] = []
    rules: list[str] = []
    if segment in PROTECTED_SEGMENTS:
        reason = (
            f"untrusted source {source_type} may not write {segment}: identity, preference and correction "
            "are authoritative segments, written only by the owner"
        )
        if not distiller:
            return _denied("segment_protection", reason)
        reasons.append(reason + "; the proposal is kept as knowledge")
        rules.append("segment_protection")

    # Targets a trusted writer owns are off limits. An unknown (legacy) source type counts as trusted,
    # so an odd old record is protected rather than exposed.
    for target in map(TargetFact._make, supersede_targets):
        if target.origin_key == origin_key and not is_untrusted_source(target.source_type):
            return _denied(
                "supersede_protection",
                f"untrusted source {source_type} may not supersede owner-authored fact {target.memory_id}",
            )

    trusted_holders = tuple(
        holder.memory_id
        for holder in map(TargetFact._make, slot_holders)
        if holder.origin_key == origin_key and not is_untrusted_source(holder.source_type)
    )
    if trusted_holders:
        reasons.append(
            f"the slot holds owner-authored {', '.join(trusted_holders)}; the untrusted value is kept as "
            "knowledge outside the slot for review"
        )
        rules.append("slot_protection")

    final_segment = "knowledge" if rules else segment
    tier, status, importance, notes = _cap_claims(final_segment, tier, status, importance)
    if rules:
        return Confine(
            final_segment,
            tier,
            importance,
            status,
            "; ".join(reasons),
            tuple(rules),
            drop_subject_key=bool(trusted_holders),
            contradicts=trusted_holders,
            notes=notes,
        )
    return Allow(final_segment, tier, importance, status, notes)


def _cap_claims(
    segment: str, tier: str | None, status: str | None, importance: object
) -> tuple[str, str | None, float, tuple[str, ...]]:
    """Decision 3: lower what an untrusted writer claims to the segment's defaults, noting each change."""
    defaults = SEGMENT_DEFAULTS[segment]
    notes = []
    if tier == "permanent":
        notes.append(f"tier permanent lowered to {defaults.tier}: untrusted facts can decay")
        tier = defaults.tier
    if status == "confirmed":
        notes.append("status confirmed dropped: only the owner or the dream confirms a belief")
        status = None
    value = clamp_importance(importance, defaults.importance)
    if value > defaults.importance:
        notes.append(f"importance {value:g} lowered to the {segment} default {defaults.importance:g}")
        value = defaults.importance
    return tier or defaults.tier, status, value, tuple(notes)
