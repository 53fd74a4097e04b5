"""Held writes become review items: governance follows memory's `write_held` signal.

The receiver runs inside the write's mutation, so the item and the held fact commit (or roll back)
together; its return value is the item's id, which the write reports as `review_item_id`.
"""

from __future__ import annotations

from django.urls import reverse

from governance.models import ReviewItem
from governance.services import notifications, webhooks
from memory.models import Fact, Workspace


def open_held_write_review(sender, *, workspace: Workspace, fact: Fact, held_by: Fact | None, reason: str,
                           hold_kind: str = "quarantine", replaces=(), rules=(), detector_score: float | None = None,
                           **kwargs) -> int:  # fmt: skip
    """One open item per held fact (and what it disputes); the same write held again finds it."""
    item, created = ReviewItem.objects.get_or_create(
        workspace=workspace, kind=hold_kind, fact=fact, other_fact=held_by, status="open",
        defaults={"reason": reason[:1000], "details": {
            "subject_key": fact.subject_key, "source_type": fact.source_type, "rules": list(rules),
            "replaces": list(replaces), "author": fact.written_by,
            **({"detector_score": detector_score} if detector_score is not None else {}),
        }},
    )  # fmt: skip
    if created:
        webhooks.emit(workspace, "review.opened", review_item=item.pk, kind=hold_kind, facts=1)
        if hold_kind == "promotion":
            notifications.approval_awaits(workspace, what=f"a durable promotion (review item #{item.pk})",
                                          path=reverse("governance:review-detail", args=[workspace.name, item.pk]))  # fmt: skip
    return item.pk
