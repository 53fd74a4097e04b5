"""Reads of governance records for the console; every one is scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet

from governance.models import ReviewItem
from memory.models import Workspace


def open_review_items(workspace: Workspace) -> QuerySet[ReviewItem]:
    """The workspace's review items waiting for a decision, newest first."""
    return ReviewItem.objects.filter(workspace=workspace, status=ReviewItem.Status.OPEN)


def open_review_count(workspace: Workspace) -> int:
    return open_review_items(workspace).count()
