"""What reviewers decided about held untrusted writes: why each was held, and what the injection
detector's next training run learns from the verdict (ENGINE-SPEC Decision 18).

A write the rules or the detector held for what its text says (an order to the agent), and that a
reviewer then admitted, is a text they read too harshly: it is listed as benign. One a reviewer
blocked is listed as an attack. Holds about where a write goes rather than what it says (a trusted
slot, the gate's confinement) teach the detector nothing and are left out. Nothing here changes a
record; `tideline review admitted` prints the list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from governance.models import ReviewItem
from governance.services.purge import parse_moment
from memory.engine.safety import detector as injection_detector
from memory.engine.safety.scan import scan_for_threats
from memory.models import Fact, Workspace

# Holds about where a write goes, not what it says (memory.engine.writes.holds).
PLACE_RULES = frozenset({"slot_protection", "confined_write"})
# The rules whose reasons no scan match gives, in words.
RULE_WORDS = {
    "slot_protection": "an untrusted source tried to change a value a trusted source set",
    "confined_write": "the write gate confined it to its own origin",
    "detector": "the injection detector read it as an order to the agent",
    "learned_directive": "the learned classifier read it as an order to the agent",
}
# Details the "why it was held" part of the item page shows in its own place.
SHOWN_DETAILS = ("rules", "detector_score")
TELLING_WORDS = 5


@dataclass(frozen=True)
class HeldWhy:
    """Why a write was held, as the item page says it."""

    rules: list[dict[str, str]]  # each {"rule", "name" (readable), "words" (may be "")}
    detector_score: float | None
    threshold: float | None  # the shipped detector's, when its file is there
    telling_words: list[str]
    teaches: bool  # a verdict on it is listed for the detector's next training run


def readable(rule: str) -> str:
    """A rule's name as a person reads it: "ai_addressed_ml" is "AI addressed (other languages)"."""
    words = rule.removesuffix("_ml").split("_")
    name = " ".join("AI" if word == "ai" else word for word in words)
    return name + (" (other languages)" if rule.endswith("_ml") else "")


def why_held(item: ReviewItem) -> HeldWhy | None:
    """The rules that held the item's write, in words, and the detector's score with the words that
    weighed most; None for an item that is not a held write or names no rule. Never fails for a
    missing detector file, an unreadable fact or an item stored before scores were kept."""
    rules = [str(rule) for rule in item.details.get("rules") or () if isinstance(rule, str)]
    if item.kind != ReviewItem.Kind.QUARANTINE or not rules:
        return None
    text = _readable(item.fact)
    reasons = {match.rule: match.reason for match in scan_for_threats(text).matches} if text else {}
    score = _score(item.details)
    detector = injection_detector.shipped()
    # The words that weighed are worth reading only where the detector's score reached its bar.
    reached = detector is not None and score is not None and score >= detector.threshold
    telling = detector.telling_words(text, limit=TELLING_WORDS) if reached and text else []
    return HeldWhy(
        rules=[{"rule": rule, "name": readable(rule), "words": reasons.get(rule) or RULE_WORDS.get(rule, "")}
               for rule in rules],
        detector_score=score, threshold=detector.threshold if detector else None, telling_words=telling,
        teaches=_teaches(rules),
    )  # fmt: skip


@dataclass(frozen=True)
class Decided:
    """One reviewer's verdict on a held untrusted write, as a labelled text."""

    kind: str  # "admitted" or "blocked"
    item: ReviewItem
    text: str

    @property
    def label(self) -> str:
        return "benign" if self.kind == "admitted" else "attack"

    @property
    def detector_score(self) -> float | None:
        return _score(self.item.details)

    def training_line(self, workspace: Workspace) -> dict[str, Any]:
        return {"source": "admitted", "label": self.label, "kind": self.kind, "text": self.text,
                "rules": list(self.item.details.get("rules") or ()), "detector_score": self.detector_score,
                "workspace": workspace.name, "item": self.item.pk,
                "decided_at": self.item.resolved_at.isoformat() if self.item.resolved_at else None}  # fmt: skip


def decided_held_writes(workspace: Workspace, since: datetime | None = None) -> Iterator[Decided]:
    """Held untrusted writes a reviewer admitted or blocked (decided on or after `since`), oldest
    verdict first. A fact deleted since, or shredded (unreadable), is skipped: its text is gone."""
    items = (ReviewItem.objects.filter(workspace=workspace, kind=ReviewItem.Kind.QUARANTINE,
                                       status__in=(ReviewItem.Status.RESOLVED, ReviewItem.Status.DISMISSED))
             .select_related("fact").order_by("resolved_at", "pk"))  # fmt: skip
    if since is not None:
        items = items.filter(resolved_at__gte=since)
    for item in items.iterator(chunk_size=500):
        if not _teaches(item.details.get("rules") or ()):
            continue
        kind = _outcome(item)
        text = _readable(item.fact) if kind else None
        if kind and text is not None:
            yield Decided(kind, item, text)


def parse_since(value: str | None) -> datetime | None:
    """A date (midnight UTC) or an ISO time (naive = UTC); RequestError when it is neither."""
    return parse_moment(value, "since")


def _outcome(item: ReviewItem) -> str | None:
    """"blocked" for a block, "admitted" when the verdict let the held fact into recall, else None."""
    verdict = item.details.get("verdict")
    if verdict == "block":
        return "blocked"
    after = ((item.details.get("decision") or {}).get("after") or {}).get(item.fact_memory_id) or {}
    return "admitted" if verdict and after.get("lifecycle") == "active" else None


def _teaches(rules) -> bool:
    return any(isinstance(rule, str) and rule not in PLACE_RULES for rule in rules)


def _readable(fact: Fact | None) -> str | None:
    return fact.content if fact is not None and fact.is_readable else None


def _score(details: dict) -> float | None:
    score = details.get("detector_score")
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
