"""Closing review items whose facts were deleted, retracted or shredded: nothing is left to decide.

Connected to memory's `facts_deleted` and `origin_shredded` signals (governance/apps.py), so it runs
inside the deleting (or shredding) mutation: the deletion, the closed items and their `reviewed` events commit together. Items are
never deleted with their facts (the foreign keys are SET_NULL); they keep the memory ids they named.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from governance.models import ReviewItem
from memory.models import Workspace
from memory.services.mutation import Mutation

_CHUNK = 500


def close_items_of_deleted_facts(sender, *, workspace: Workspace, memory_ids: Sequence[str], kind: str = "deleted",
                                 reason: str = "", mutation: Mutation, **_) -> int:  # fmt: skip
    """Close every open item of `workspace` that names one of `memory_ids`; returns how many closed."""
    gone = set(memory_ids)
    items: dict[int, ReviewItem] = {}
    ids = sorted(gone)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        named = Q(fact_memory_id__in=chunk) | Q(other_memory_id__in=chunk)
        for item in ReviewItem.objects.filter(named, workspace=workspace, status=ReviewItem.Status.OPEN):
            items[item.pk] = item
    for item in items.values():
        deleted = [i for i in (item.fact_memory_id, item.other_memory_id) if i and i in gone]
        words = f"fact{'s' if len(deleted) > 1 else ''} {' and '.join(deleted)} {'were' if len(deleted) > 1 else 'was'} {kind}"
        words += f" ({reason})" if reason else ""
        item.status = ReviewItem.Status.CLOSED
        item.resolved_at = mutation.now
        item.details = {**(item.details or {}), "closed_reason": words[:1000]}
        mutation.record("reviewed", fact_ids=deleted, review_item=item.pk,
                        review_kind=item.kind, review_action="closed", reason=words)  # fmt: skip
    ReviewItem.objects.bulk_update(list(items.values()), ["status", "resolved_at", "details"], batch_size=_CHUNK)
    return len(items)


def close_items_of_shredded_origin(sender, *, workspace: Workspace, origin_key: str, reason: str = "",
                                   mutation: Mutation, **_) -> int:  # fmt: skip
    """Close every open item of `workspace` that names a fact of the shredded origin `origin_key`.

    The facts stay as tombstones, so the items are found through their foreign keys (one query,
    whatever the origin's size) and closed like those of deleted facts."""
    named = Q(fact__origin_key=origin_key) | Q(other_fact__origin_key=origin_key)
    pairs = ReviewItem.objects.filter(named, workspace=workspace, status=ReviewItem.Status.OPEN).values_list(
        "fact__origin_key", "fact_memory_id", "other_fact__origin_key", "other_memory_id")
    shredded: set[str] = set()
    for origin, memory_id, other_origin, other_id in pairs:
        shredded |= {i for i, o in ((memory_id, origin), (other_id, other_origin)) if o == origin_key and i}
    if not shredded:
        return 0
    return close_items_of_deleted_facts(sender, workspace=workspace, memory_ids=sorted(shredded), kind="shredded",
                                        reason=reason, mutation=mutation)
