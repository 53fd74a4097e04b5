"""What a reviewer's verdict may be, and what it does to the facts, as plain data (docs/ARCHITECTURE.md §9).

An item names the fact under review (the newer one of a contradiction, or the held write) and,
usually, the fact it conflicts with or would replace. The verdicts:

- supersede: the fact under review wins; the other is archived with `valid_to`, and the winner
  gets `supersedes` + `transition` links to it;
- coexist: both stay, linked `relates` with a note saying why; the pair is never reopened;
- block: the fact under review is archived as rejected (status `retracted`); a held write that was
  blocked is never recallable, not even at a past moment, and the same content is not held again;
- dismiss: not a real conflict; nothing changes but the item (a held write is admitted);
- approve (durable promotions only): the held write is admitted, and what it corrects is archived
  and linked as superseded.

A held write (lifecycle `held`) is admitted (lifecycle `active`, `admitted_at` now) by every verdict
but block. Owners and admins decide contradictions and held writes; approvers and admins decide
durable promotions, and never one they wrote themselves. No Django here: the service reads the
facts, asks for a plan, and writes it in one mutation.
"""

from __future__ import annotations

from dataclasses import dataclass

from governance.engine import permissions

VERDICTS = ("supersede", "coexist", "block", "dismiss", "approve")
VERDICTS_BY_KIND = {
    "contradiction": ("supersede", "coexist", "block", "dismiss"),
    "quarantine": ("supersede", "coexist", "block", "dismiss"),
    "promotion": ("approve", "block"),
}
DECIDERS_BY_KIND = {kind: frozenset(permissions.roles_for(f"decide_{kind}"))
                    for kind in ("contradiction", "quarantine", "promotion")}  # fmt: skip
# Verdicts that need the other fact to still be active (they archive or link it).
NEEDS_OTHER = frozenset({"supersede", "coexist"})


class VerdictRefused(Exception):
    """A verdict that cannot be applied; `kind` is the request error kind (validation, conflict)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class ItemFacts:
    """What a plan needs to know of an item: its kind and status and its facts' state."""

    kind: str
    status: str
    fact_id: str  # under review: the newer fact, or the held write
    other_id: str | None  # the fact it conflicts with; None for a promotion that replaces nothing
    fact_lifecycle: str
    other_lifecycle: str | None = None
    fact_status: str | None = None
    replaces: tuple[str, ...] = ()  # still-active facts a held correction replaces when admitted


@dataclass(frozen=True)
class VerdictPlan:
    verdict: str
    states: dict[str, dict]  # memory_id -> the fields to set (timestamps: the mutation's ISO time)
    links: tuple[tuple[str, str, str, str], ...]  # (from, kind, to, note)
    item_status: str


def may_decide(roles: set[str], item_kind: str) -> bool:
    """Owners and admins decide contradictions and held writes; approvers and admins promotions."""
    return bool(set(roles) & DECIDERS_BY_KIND.get(item_kind, frozenset()))


def check_author(item_kind: str, author: str, actor: str) -> None:
    """A durable promotion needs a second person: its author may not approve (or block) it."""
    if item_kind == "promotion" and author and author == actor:
        raise VerdictRefused("you wrote this fact; a durable promotion must be decided by another approver "
                             "(nothing was changed)", "forbidden")  # fmt: skip


def check_verdict(item: ItemFacts, verdict: str) -> None:
    """Refuse a verdict the item's kind does not take, or an item that is not open or has moved on."""
    allowed = VERDICTS_BY_KIND.get(item.kind, ())
    if verdict not in allowed:
        raise VerdictRefused(f"{verdict!r} is not a verdict for a {item.kind} item (one of: {', '.join(allowed)})",
                             "validation")  # fmt: skip
    if item.status != "open":
        raise VerdictRefused(f"this item is already decided ({item.status}); undo its verdict to decide again",
                             "conflict")  # fmt: skip
    if item.fact_lifecycle not in ("active", "held"):
        raise VerdictRefused(f"{item.fact_id} is {item.fact_lifecycle} since this item was opened; "
                             "nothing was changed", "conflict")  # fmt: skip
    needs_other = verdict in NEEDS_OTHER or (item.kind == "contradiction" and item.other_id is not None)
    if needs_other and item.other_lifecycle != "active":
        raise VerdictRefused("the facts changed since this item was opened (one is no longer active); "
                             "nothing was changed", "conflict")  # fmt: skip


def plan_verdict(item: ItemFacts, verdict: str, *, note: str = "", now: str) -> VerdictPlan:
    """What `verdict` does to the item's facts and links; `now` is the ISO moment of the mutation."""
    check_verdict(item, verdict)
    admit = {item.fact_id: {"lifecycle": "active", "admitted_at": now}} if item.fact_lifecycle == "held" else {}
    if verdict in ("supersede", "approve"):
        losers = (item.other_id,) if verdict == "supersede" else item.replaces
        states = {**admit, **{mid: {"lifecycle": "archived", "valid_to": now, "archived_at": now} for mid in losers}}
        links = tuple(link for mid in losers
                      for link in ((item.fact_id, "supersedes", mid, ""), (item.fact_id, "transition", mid, "")))  # fmt: skip
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
