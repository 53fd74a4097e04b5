"""Replay: could recall have returned a fact at moment T for a given caller, and if not, why not.

Gathers what the pure rules (memory.engine.recall.visibility) need from the database: the fact's times,
the changes the event log recorded for it, the fact that superseded it, the retention rule that had
expired it, and, for a fact a purge removed, its content-free receipt. The inspector and
`tideline explain --fact ID --as-of T` both answer through here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory import selectors
from memory.engine.recall import visibility
from memory.models import Fact, MemoryEvent, Workspace
from memory.services.errors import NotFoundError
from memory.services.lifecycle import curation
from memory.services.lifecycle.expiry import expired_by
from memory.timestamps import to_ms

# A fact's own events read for the answer (its page shows the same window).
EVENTS = 200


@dataclass(frozen=True)
class Replay:
    fact_id: str
    at: datetime
    visible: bool
    reasons: tuple[str, ...]
    purged: bool = False
    caller: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"fact_id": self.fact_id, "at": self.at.isoformat(), "visible": self.visible,
                "reasons": list(self.reasons), "purged": self.purged, "caller": self.caller}  # fmt: skip


def replay(workspace: Workspace, memory_id: str, moment: datetime, *, caller: visibility.Caller | None = None) -> Replay:
    """Whether recall could have returned `memory_id` at `moment` (for `caller`, if given), with reasons.

    `NotFoundError` when the workspace never had such a fact (or no receipt of its purge is left)."""
    asked = caller.__dict__ if caller is not None else {}
    fact = None if "\x00" in memory_id else Fact.objects.filter(workspace=workspace, memory_id=memory_id).first()
    if fact is None:
        return _replay_purged(workspace, memory_id, moment, asked)
    events = list(selectors.filtered_events(workspace, {"fact": memory_id})[:EVENTS])
    times = visibility.FactTimes(
        created_ms=to_ms(fact.created_at), archived_ms=to_ms(fact.archived_at), pruned_ms=to_ms(fact.pruned_at),
        valid_to_ms=to_ms(fact.valid_to), held_ms=to_ms(fact.held_at), admitted_ms=to_ms(fact.admitted_at),
        lifecycle=fact.lifecycle, status=fact.status, readable=fact.is_readable,
    )  # fmt: skip
    changes = [visibility.Change(to_ms(e.at), e.kind, e.actor, e.reason) for e in events]
    successor = None
    if fact.archived_at is not None or fact.valid_to is not None:
        found = curation.successor_of(fact)
        successor = (found.memory_id, to_ms(found.created_at)) if found is not None else None
    rule = expired_by(fact, now=moment)
    scope = []
    if caller is not None:
        scope = visibility.outside(caller, origin_key=fact.origin_key, origin_label=fact.origin.label(),
                                   classification=fact.classification, intent_scope=fact.intent_scope or "")  # fmt: skip
    answer = visibility.why(times, changes, to_ms(moment), successor=successor,
                            expired=rule.describe() if rule else None, scope=scope)  # fmt: skip
    return Replay(memory_id, moment, answer.visible, answer.reasons, caller=asked)


def purge_receipt(workspace: Workspace, memory_id: str) -> MemoryEvent | None:
    """The `purged` event that removed `memory_id`, if any (an id no fact can have finds none)."""
    if not memory_id or "\x00" in memory_id or len(memory_id) > 128:
        return None
    return selectors.filtered_events(workspace, {"fact": memory_id, "kind": MemoryEvent.Kind.PURGED}).first()


def _replay_purged(workspace: Workspace, memory_id: str, moment: datetime, asked: dict) -> Replay:
    receipt = purge_receipt(workspace, memory_id)
    if receipt is None:
        raise NotFoundError(f"workspace {workspace.name!r} has no fact {memory_id!r} and no receipt of one being purged")
    written = selectors.filtered_events(workspace, {"fact": memory_id}).exclude(pk=receipt.pk).order_by("revision").first()
    answer = visibility.purged(
        visibility.Change(to_ms(receipt.at), receipt.kind, receipt.actor, receipt.reason), to_ms(moment),
        written_ms=to_ms(written.at) if written is not None else None,
    )  # fmt: skip
    reasons = (*answer.reasons, f"receipt: the purged event at revision {receipt.revision}")
    return Replay(memory_id, moment, False, reasons, purged=True, caller=asked)
