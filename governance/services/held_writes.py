"""Held writes become review items: governance follows memory's `write_held` signal.

The receiver runs inside the write's mutation, so the item and the held fact commit (or roll back)
together; its return value is the item's id, which the write reports as `review_item_id`.
"""

from __future__ import annotations

from governance.models import ReviewItem
from memory.models import Fact, Workspace


def open_held_write_review(sender, *, workspace: Workspace, fact: Fact, held_by: Fact, reason: str, **kwargs) -> int:
    """One open quarantine item per (held fact, slot holder); a repeat finds the existing one."""
    item, _ = ReviewItem.objects.get_or_create(
        workspace=workspace, kind="quarantine", fact=fact, other_fact=held_by, status="open",
        defaults={"reason": reason, "details": {"subject_key": fact.subject_key, "source_type": fact.source_type}},
    )  # fmt: skip
    return item.pk
