"""What a reviewer's verdict may be, and what it does to the two facts, as plain data (issue 12).

An item names the fact under review (the newer one of a contradiction, or the held write) and the
fact it conflicts with. The verdicts:

- supersede: the fact under review wins; the other is archived with `valid_to`, and the winner
  gets `supersedes` + `transition` links to it;
- coexist: both stay, linked `relates` with a note saying why; the pair is never reopened;
- block: the fact under review is archived as rejected (status `retracted`);
- dismiss: not a real conflict; nothing changes but the item.

A held write (status `disputed`) is admitted (status `asserted`) by every verdict but block.
No Django here: the service reads the facts, asks for a plan, and writes it in one mutation.
"""

from __future__ import annotations

from dataclasses import dataclass

VERDICTS = ("supersede", "coexist", "block", "dismiss")
VERDICTS_BY_KIND = {"contradiction": VERDICTS, "quarantine": VERDICTS}
DECIDERS_BY_KIND = {"contradiction": frozenset({"owner", "admin"}), "quarantine": frozenset({"owner", "admin"})}
HELD_STATUS = "disputed"


class VerdictRefused(Exception):
    """A verdict that cannot be applied; `kind` is the request error kind (validation, conflict)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class ItemFacts:
    """What a plan needs to know of an item: its kind and status and both facts' state."""

    kind: str
    status: str
    fact_id: str  # under review: the newer fact, or the held write
    other_id: str
    fact_lifecycle: str
    other_lifecycle: str
    fact_status: str | None = None


@dataclass(frozen=True)
class VerdictPlan:
    verdict: str
    states: dict[str, dict]  # memory_id -> the fields to set (valid_to/archived_at "now" = the mutation's time)
    links: tuple[tuple[str, str, str, str], ...]  # (from, kind, to, note)
    item_status: str


def may_decide(roles: set[str], item_kind: str) -> bool:
    """Owners and admins decide contradictions and held writes."""
    return bool(set(roles) & DECIDERS_BY_KIND.get(item_kind, frozenset()))


def check_verdict(item: ItemFacts, verdict: str) -> None:
    """Refuse a verdict the item's kind does not take, or an item that is not open."""
    allowed = VERDICTS_BY_KIND.get(item.kind, ())
    if verdict not in allowed:
        raise VerdictRefused(f"{verdict!r} is not a verdict for a {item.kind} item (one of: {', '.join(allowed)})",
                             "validation")  # fmt: skip
    if item.status != "open":
        raise VerdictRefused(f"this item is already decided ({item.status}); undo its verdict to decide again",
                             "conflict")  # fmt: skip
    if item.fact_lifecycle != "active" or item.other_lifecycle != "active":
        raise VerdictRefused("the facts changed since this item was opened (one is no longer active); "
                             "nothing was changed", "conflict")  # fmt: skip


def plan_verdict(item: ItemFacts, verdict: str, *, note: str = "", now: str) -> VerdictPlan:
    """What `verdict` does to the item's facts and links; `now` is the ISO moment of the mutation."""
    check_verdict(item, verdict)
    held = item.fact_status == HELD_STATUS
    admit = {item.fact_id: {"status": "asserted"}} if held else {}
    if verdict == "supersede":
        states = {**admit, item.other_id: {"lifecycle": "archived", "valid_to": now, "archived_at": now}}
        links = ((item.fact_id, "supersedes", item.other_id, ""), (item.fact_id, "transition", item.other_id, ""))
        return VerdictPlan(verdict, states, links, "resolved")
    if verdict == "coexist":
        links = ((item.fact_id, "relates", item.other_id, note or "reviewed: both hold"),)
        return VerdictPlan(verdict, admit, links, "resolved")
    if verdict == "block":
        states = {item.fact_id: {"lifecycle": "archived", "status": "retracted", "archived_at": now}}
        return VerdictPlan(verdict, states, (), "resolved")
    return VerdictPlan(verdict, admit, (), "dismissed")


def check_undo(status: str, decision: dict | None, current: dict[str, dict]) -> None:
    """Only a decided item's latest verdict is undone, and only while its facts are as it left them."""
    if status == "open" or not decision:
        raise VerdictRefused("this item has no verdict to undo", "conflict")
    for memory_id, after in decision.get("after", {}).items():
        now = current.get(memory_id)
        if now is None or any(now.get(name) != value for name, value in after.items()):
            raise VerdictRefused(f"{memory_id} changed after the verdict; undo would overwrite that, "
                                 "so nothing was changed", "conflict")  # fmt: skip
