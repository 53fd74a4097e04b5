"""Reads of governance records for the console; every one is scoped to one workspace."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from governance.models import ReviewItem
from memory.models import Workspace


def open_review_items(workspace: Workspace) -> QuerySet[ReviewItem]:
    """The workspace's review items waiting for a decision, newest first."""
    return ReviewItem.objects.filter(workspace=workspace, status=ReviewItem.Status.OPEN)


def open_review_count(workspace: Workspace) -> int:
    return open_review_items(workspace).count()


QUEUE_PAGE_SIZE = 25
# A text search decrypts the facts of every item the other filters kept; past this many it stops
# reading and says so, so one search cannot decrypt a whole workspace.
SEARCH_CAP = 2000


def review_item_or_none(workspace: Workspace, item_id) -> ReviewItem | None:
    """One item of this workspace with both facts, or None for an unknown id or another workspace's."""
    try:
        number = int(str(item_id))
    except (TypeError, ValueError):
        return None
    queryset = ReviewItem.objects.filter(workspace=workspace).select_related("fact", "other_fact", "resolved_by")
    return queryset.filter(pk=number).first() if 0 < number < 2**63 else None


def open_counts_by_kind(workspace: Workspace) -> dict[str, int]:
    """Open items per kind (every kind listed, 0 when none wait)."""
    counts = dict.fromkeys(ReviewItem.Kind.values, 0)
    rows = open_review_items(workspace).order_by().values_list("kind").annotate(n=Count("id"))
    counts.update(dict(rows))
    return counts


def filtered_review_items(workspace: Workspace, data: dict) -> QuerySet[ReviewItem]:
    """The queue under the list page's filters (all but the text search, see `search_items`)."""
    items = ReviewItem.objects.filter(workspace=workspace).select_related("fact", "other_fact")
    status = data.get("status") or ReviewItem.Status.OPEN
    if status != "any":
        items = items.filter(status=status)
    if data.get("kind"):
        items = items.filter(kind=data["kind"])
    if data.get("origin"):
        items = items.filter(Q(fact__origin_key=data["origin"]) | Q(other_fact__origin_key=data["origin"]))
    if data.get("age"):
        items = items.filter(created_at__lte=timezone.now() - timedelta(days=data["age"]))
    if data.get("sort") == "strongest":
        # Items without a score sort last; JSON numbers compare as numbers on both databases (and a
        # stray non-number cannot make a cast fail).
        items = items.order_by(F("details__score").desc(nulls_last=True), "-created_at", "-id")
    else:
        items = items.order_by("-created_at", "-id")
    return items


def search_items(items: QuerySet[ReviewItem], text: str) -> tuple[list[ReviewItem], bool]:
    """Items whose fact or other fact contains `text` (case-insensitive), in the queryset's order.

    Content is sealed at rest, so the match runs here over the decrypted facts. A substring match
    (not recall) because a reviewer searches for words they saw: recall ranks by meaning, caps its
    hits and scores one origin at a time, and an item's facts may belong to two origins. Returns the
    matches and whether the search stopped at SEARCH_CAP items.
    """
    needle = text.casefold()
    matches = []
    for count, item in enumerate(items.iterator(chunk_size=500)):
        if count >= SEARCH_CAP:
            return matches, True
        facts = [fact for fact in (item.fact, item.other_fact) if fact is not None and fact.is_readable]
        if any(needle in fact.content.casefold() for fact in facts):
            matches.append(item)
    return matches, False


def queue_origins(workspace: Workspace) -> list[str]:
    """The origin keys of the facts under review, for the origin filter."""
    keys = set(ReviewItem.objects.filter(workspace=workspace).values_list("fact__origin_key", flat=True))
    keys |= set(ReviewItem.objects.filter(workspace=workspace, other_fact__isnull=False)
                .values_list("other_fact__origin_key", flat=True))  # fmt: skip
    return sorted(keys)
