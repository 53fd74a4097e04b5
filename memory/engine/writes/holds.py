"""Which writes wait for a reviewer before they can be recalled (ENGINE-SPEC Decision 17).

A held write is stored (nothing is lost) with lifecycle `held`: recall, context, exports for agents
and the graph's default view do not see it until a reviewer's verdict admits it. Two kinds:

- a **held write** (`quarantine`): untrusted content disputing a slot an owner-authored fact holds,
  and, when the workspace asks for it, any untrusted write the gate confined;
- a **durable promotion** (`promotion`), when the workspace holds them (the default): a write that
  would become a permanent-tier fact from a non-owner origin, a PII-classified write from a channel
  peer, or a channel peer's correction (an explicit `supersedes`, the correction segment, or a new
  value for a slot the peer already filled). An approver who is not its author decides it.

Pure: the write path passes plain values and gets a `Hold` (or None) back.
"""

from __future__ import annotations

from dataclasses import dataclass

QUARANTINE = "quarantine"
PROMOTION = "promotion"


@dataclass(frozen=True)
class Hold:
    kind: str  # QUARANTINE or PROMOTION: the review item it opens
    reason: str  # in words, for the reviewer and the write's caller
    rules: tuple[str, ...]
    detector_score: float | None = None  # the injection detector's 0–1 score, for the reviewer


@dataclass(frozen=True)
class HoldSettings:
    hold_durable_promotions: bool = True
    hold_confined_writes: bool = False


def hold_for_review(
    *,
    owner_origin: bool,
    tier: str,
    classification: str,
    segment: str,
    corrects: bool,
    confined: bool,
    disputes_trusted_slot: bool,
    gate_reason: str = "",
    made_by: str = "",
    settings: HoldSettings = HoldSettings(),
) -> Hold | None:
    """Whether a write the gate allowed (or confined) waits for a verdict, and why.

    `tier`, `classification` and `segment` are what would be stored (after the gate's caps);
    `corrects` says the write replaces earlier facts (explicit supersedes or a slot transition);
    `confined`/`disputes_trusted_slot`/`gate_reason` describe the gate's confinement, if any;
    `made_by` says, in words, who made the write when a person wrote it for the origin (e.g. "made in
    the console by ada", a correction of a peer's fact): the reason then names them, not the peer."""
    if disputes_trusted_slot:
        return Hold(QUARANTINE, gate_reason or "untrusted value for a slot an owner-authored fact holds",
                    ("slot_protection",))  # fmt: skip
    if confined and settings.hold_confined_writes:
        return Hold(QUARANTINE, gate_reason or "untrusted write confined by the gate", ("confined_write",))
    if owner_origin or not settings.hold_durable_promotions:
        return None
    reasons, rules = [], []
    written = f"in a channel peer's memory, {made_by}" if made_by else "written by a channel peer"
    if tier == "permanent":
        reasons.append(f"it would be a permanent fact, {written}")
        rules.append("permanent_from_peer")
    if classification == "PII":
        reasons.append(f"it is personal data (PII), {written}")
        rules.append("pii_from_peer")
    if corrects or segment == "correction":
        reasons.append(f"it is a correction of a channel peer's fact, {made_by}" if made_by
                       else "it is a correction by a channel peer")  # fmt: skip
        rules.append("correction_from_peer")
    if not rules:
        return None
    return Hold(PROMOTION, "held for an approver: " + "; ".join(reasons), tuple(rules))
