"""A reviewer's verdict on a review item, and its undo: each one mutation with one event (docs/ARCHITECTURE.md §9).

The rules live in `governance.engine.verdicts`; the fact and link changes go through memory's
public primitives (`memory.services.lifecycle.curation`). The item keeps what the verdict changed
(`details["decision"]`: each fact's state before and after, the links it added), so an undo puts
back exactly that, and refuses when a fact changed after the verdict.
"""

from __future__ import annotations

from typing import Any

from governance.engine.verdicts import ItemFacts, VerdictRefused, check_author, check_undo, plan_verdict
from governance.models import ReviewItem
from governance.services import recall_log, webhooks
from governance.services.acting import Actor, actor_text, require_role
from memory.models import Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.lifecycle.curation import add_fact_links, fact_states, remove_fact_links, set_fact_states
from memory.services.mutation import mutate
from tideline_kit import telemetry

# Every queue action is one `reviewed` event (the event log filters by it) naming the item, the
# action (decided, undone, closed), the verdict and the reviewer; each fact it changed also gets
# memory's own event (archived, restored, held…) from the curation primitives.
DECISION_KEYS = ("verdict", "verdict_reason", "decided_by", "decision")


@telemetry.operation("governance.verdict.decide")
def decide(workspace: Workspace, item_id: int, verdict: str, *, actor: Actor | str, reason: str = "",
           expected: dict[str, dict] | None = None, user=None) -> ReviewItem:  # fmt: skip
    """Apply `verdict` to item `item_id`. `expected` is the facts' state as the reviewer saw it
    (memory_id -> fields, as `fact_states` returns them): when it differs now, nothing changes."""
    actor = actor_text(actor)
    with mutate(workspace, actor=actor) as m:
        item = _locked_item(workspace, item_id)
        require_role(user, workspace, f"decide_{item.kind}", f"decide {item.kind} items")
        replaces = [mid for mid in item.details.get("replaces", []) if isinstance(mid, str)]
        ids = [mid for mid in (item.fact.memory_id, item.other_fact.memory_id if item.other_fact else None) if mid]
        states = fact_states(workspace, ids + replaces)
        _check_expected(states, expected)
        other_id = ids[1] if len(ids) > 1 else None
        facts = ItemFacts(kind=item.kind, status=item.status, fact_id=ids[0], other_id=other_id,
                          fact_lifecycle=states[ids[0]]["lifecycle"], fact_status=states[ids[0]]["status"],
                          other_lifecycle=states[other_id]["lifecycle"] if other_id else None,
                          replaces=tuple(mid for mid in replaces if states.get(mid, {}).get("lifecycle") == "active"))  # fmt: skip
        try:
            check_author(item.kind, item.fact.written_by, actor)
            plan = plan_verdict(facts, verdict, note=reason, now=m.now.isoformat())
        except VerdictRefused as refused:
            raise RequestError(refused.message, kind=refused.kind) from None
        why = f"review #{item.pk}: {verdict}" + (f" ({reason})" if reason else "")
        set_fact_states(m, plan.states, reason=why)
        added = add_fact_links(m, plan.links)
        now_states = fact_states(workspace, list(dict.fromkeys([*plan.states, *ids])))  # the item's facts too: which stand
        decision = {
            "before": {mid: {name: states[mid][name] for name in fields} for mid, fields in plan.states.items()},
            "after": {mid: {name: now_states[mid][name] for name in fields} for mid, fields in plan.states.items()},
            "links_added": added,
        }
        item.status = plan.item_status
        item.resolved_at = m.now
        item.resolved_by = user
        item.details = {**item.details, "verdict": verdict, "verdict_reason": reason, "decided_by": actor,
                        "decision": decision}  # fmt: skip
        item.save(update_fields=["status", "resolved_at", "resolved_by", "details"])
        m.record("reviewed", fact_ids=sorted(set(ids) | set(plan.states)), reason=reason, review_item=item.pk,
                 review_kind=item.kind, review_action="decided", verdict=verdict, reviewer=actor, **decision)  # fmt: skip
        standing = [mid for mid in ids if now_states.get(mid, {}).get("lifecycle") == "active"]
        recall_log.after_verdict(workspace, decision, reviewer=actor, kept=standing)
        webhooks.emit(workspace, "review.decided", review_item=item.pk, kind=item.kind, verdict=verdict,
                      facts=len(set(ids) | set(plan.states)), revision=m.revision)  # fmt: skip
    return item


@telemetry.operation("governance.verdict.undo")
def undo(workspace: Workspace, item_id: int, *, user=None, actor: Actor | str) -> ReviewItem:
    """Put the facts, links and item back as they were before the item's verdict."""
    actor = actor_text(actor)
    with mutate(workspace, actor=actor) as m:
        item = _locked_item(workspace, item_id)
        require_role(user, workspace, f"decide_{item.kind}", f"decide {item.kind} items")
        decision = item.details.get("decision")
        try:
            check_undo(item.status, decision, fact_states(workspace, list((decision or {}).get("after", {}))))
        except VerdictRefused as refused:
            raise RequestError(refused.message, kind=refused.kind) from None
        verdict = item.details.get("verdict")
        set_fact_states(m, decision["before"], reason=f"review #{item.pk}: undo of {verdict}")
        remove_fact_links(m, decision["links_added"], reason=f"review #{item.pk}: undo of {verdict}")
        item.status = ReviewItem.Status.OPEN
        item.resolved_at = None
        item.resolved_by = None
        item.details = {k: v for k, v in item.details.items() if k not in DECISION_KEYS}
        item.save(update_fields=["status", "resolved_at", "resolved_by", "details"])
        m.record("reviewed", fact_ids=sorted(decision["before"]) or [item.fact_memory_id], reason=f"undo of {verdict}",
                 review_item=item.pk, review_kind=item.kind, review_action="undone", verdict=verdict, reviewer=actor,
                 restored=decision["before"], links_removed=decision["links_added"])  # fmt: skip
        webhooks.emit(workspace, "review.decided", review_item=item.pk, kind=item.kind, verdict=f"undo {verdict}",
                      facts=len(decision["before"]), revision=m.revision)  # fmt: skip
    return item


def _locked_item(workspace: Workspace, item_id: Any) -> ReviewItem:
    """The item, read under the workspace lock `mutate()` holds, so a double submit sees the first."""
    try:
        pk = int(item_id)
    except (TypeError, ValueError):
        raise NotFoundError(f"no review item {item_id!r} in workspace {workspace.name!r}") from None
    item = ReviewItem.objects.select_related("fact", "other_fact").filter(workspace=workspace, pk=pk).first()
    if item is None:
        raise NotFoundError(f"no review item {item_id!r} in workspace {workspace.name!r}")
    if item.fact is None or (item.other_fact is None and item.other_memory_id):
        raise RequestError(f"review item {pk} names a fact that was deleted; nothing is left to decide", kind="conflict")
    return item


def _check_expected(states: dict[str, dict], expected: dict[str, dict] | None) -> None:
    for memory_id, fields in (expected or {}).items():
        now = states.get(memory_id)
        if now is None or any(now.get(name) != value for name, value in fields.items()):
            raise RequestError(f"{memory_id} changed since this item was shown; reload it and decide again "
                               "(nothing was changed)", kind="conflict")  # fmt: skip


def refuse_restoring_blocked(sender: Any, *, workspace: Workspace, memory_ids: list[str], **kwargs: Any) -> dict[str, str]:
    """`memory.signals.restore_requested`: a fact whose latest verdict is block comes back only by
    undoing that verdict (by someone allowed to decide the item), never by the console's Restore,
    which would leave the item saying "resolved / block" over a recallable fact."""
    latest: dict[str, ReviewItem] = {}
    decided = (ReviewItem.objects.filter(workspace=workspace, fact_memory_id__in=memory_ids,
                                         status=ReviewItem.Status.RESOLVED)
               .only("pk", "kind", "fact_memory_id", "details").order_by("resolved_at", "pk"))  # fmt: skip
    for item in decided:
        latest[item.fact_memory_id] = item
    return {
        memory_id: (f"a reviewer blocked it ({item.get_kind_display().lower()} #{item.pk}, by "
                    f"{item.details.get('decided_by') or 'a reviewer'}); only undoing that verdict on the review "
                    "item brings it back")  # fmt: skip
        for memory_id, item in latest.items()
        if item.details.get("verdict") == "block"
    }
