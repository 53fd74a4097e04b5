"""Replay: could recall have returned a fact at moment T, and if not, why not (ENGINE-SPEC §6.3: "why was it
visible, or not?").

Pure: the caller passes the fact's timestamps and the changes the event log recorded for it (kind,
moment, actor, reason), and gets a yes/no with reasons in words. The rules mirror what point-in-time
recall applies (memory.services.recall.verbs): written by T, not archived or pruned by T, validity not
ended by T, a held write only from its admission on, not expired by a retention rule at T; a
shredded origin is never readable, and a caller sees only its own origin up to its clearance.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

# Event kinds that take a fact out of recall, and those that put it back.
LEAVING = frozenset({"archived", "superseded", "pruned", "evicted", "invalidated"})


@dataclass(frozen=True)
class FactTimes:
    created_ms: float
    archived_ms: float | None = None
    pruned_ms: float | None = None
    valid_to_ms: float | None = None
    held_ms: float | None = None
    admitted_ms: float | None = None
    lifecycle: str = "active"
    status: str | None = None
    readable: bool = True


@dataclass(frozen=True)
class Change:
    at_ms: float
    kind: str
    actor: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Caller:
    """Who is asking: recall sees one origin's facts, up to a classification, within an intent."""

    origin_key: str
    clearance: str = "PII"
    intent: str | None = None


CLEARANCE_ORDER = ("PUBLIC", "INTERNAL", "PII")


@dataclass(frozen=True)
class Visibility:
    visible: bool
    reasons: tuple[str, ...]


def _when(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def _by(actor: str) -> str:
    """Who did it, in words: the maintenance passes by name, people by their user name."""
    if actor.endswith("gc"):
        return "the decay GC"
    if actor.endswith("dream"):
        return "the nightly dream"
    if actor.startswith("user:"):
        return actor.removeprefix("user:")
    return actor or "an unnamed actor"


def _leaving(changes: list[Change], moment_ms: float) -> Change | None:
    """The change that took the fact out: the latest leaving event at or before the moment."""
    found = [c for c in changes if c.kind in LEAVING and c.at_ms <= moment_ms + 1]
    return max(found, key=lambda c: c.at_ms) if found else None


def outside(caller: Caller, *, origin_key: str, origin_label: str, classification: str, intent_scope: str) -> list[str]:
    """Why a caller could never see the fact whatever the moment: another origin, above its
    clearance, or scoped to another intent (recall applies exactly these filters)."""
    reasons = []
    if caller.origin_key != origin_key:
        reasons.append(f"it belongs to origin {origin_label}: a caller recalling as another origin never sees it")
    if CLEARANCE_ORDER.index(classification) > CLEARANCE_ORDER.index(caller.clearance):
        reasons.append(f"it is classified {classification}, above the caller's clearance ({caller.clearance})")
    if intent_scope and intent_scope != caller.intent:
        reasons.append(f"it is scoped to the intent {intent_scope!r}, which the caller did not ask for")
    return reasons


def purged(receipt: Change, at_ms: float, *, written_ms: float | None = None) -> Visibility:
    """A fact whose row a purge removed: only its receipt remains to say what happened."""
    when = f"{_when(receipt.at_ms)} by {_by(receipt.actor)}" + (f": {receipt.reason}" if receipt.reason else "")
    if at_ms >= receipt.at_ms:
        return Visibility(False, (f"it was purged ({when}); only the content-free receipt remains",))
    if written_ms is not None and written_ms > at_ms:
        return Visibility(False, (f"it had not been written yet (written {_when(written_ms)})",))
    return Visibility(False, (
        f"it was purged later ({when}): its content and history are gone, so whether recall returned it "
        "then can no longer be replayed",
    ))  # fmt: skip


def why(fact: FactTimes, changes: list[Change], at_ms: float, *, successor: tuple[str, float] | None = None,
        expired: str | None = None, scope: list[str] | tuple[str, ...] = ()) -> Visibility:  # fmt: skip
    """Whether recall could have returned the fact at `at_ms`, with the reasons it could not.

    `successor` is (memory id, when) of the fact that replaced it, if any; `expired` names the
    retention rule that had expired it by then; `scope` the caller's reasons (see `outside`)."""
    reasons: list[str] = list(scope)
    if not fact.readable:
        reasons.append("its origin was crypto-shredded: nothing of it can be read any more")
    if fact.created_ms > at_ms:
        reasons.append(f"it had not been written yet (written {_when(fact.created_ms)})")
    if fact.held_ms is not None and (fact.admitted_ms is None or fact.admitted_ms > at_ms):
        if fact.lifecycle == "held":
            reasons.append("it was held for review and still waits for a verdict")
        elif fact.admitted_ms is None:
            reasons.append("it was held for review, then blocked by a reviewer")
        else:
            reasons.append(f"it was held for review until a reviewer admitted it ({_when(fact.admitted_ms)})")
    if fact.archived_ms is not None and fact.archived_ms <= at_ms:
        change = _leaving(changes, fact.archived_ms)
        who = f" by {_by(change.actor)}" if change else ""
        if successor is not None:
            reasons.append(f"it was superseded by {successor[0]} ({_when(fact.archived_ms)}){who}")
        elif fact.status == "retracted":
            reasons.append(f"it was retracted ({_when(fact.archived_ms)}){who}")
        else:
            why_text = f": {change.reason}" if change and change.reason else ""
            reasons.append(f"it was archived ({_when(fact.archived_ms)}){who}{why_text}")
    if fact.pruned_ms is not None and fact.pruned_ms <= at_ms:
        change = _leaving(changes, fact.pruned_ms)
        reasons.append(f"it was pruned ({_when(fact.pruned_ms)}) by {_by(change.actor) if change else 'the decay GC'}")
    if fact.valid_to_ms is not None and fact.valid_to_ms <= at_ms and fact.archived_ms != fact.valid_to_ms:
        if successor is not None and fact.archived_ms is None:  # e.g. an imported slot value: closed, no archive time
            reasons.append(f"it was superseded by {successor[0]}: its validity ended {_when(fact.valid_to_ms)}")
        else:
            reasons.append(f"its validity had ended ({_when(fact.valid_to_ms)})")
    if expired and fact.created_ms <= at_ms:
        reasons.append(f"it had expired under {expired}")
    return Visibility(not reasons, tuple(reasons))
