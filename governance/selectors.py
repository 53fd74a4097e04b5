"""Reads of governance records for the console; every one is scoped to one workspace."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.db.models import Count, F, Q, QuerySet, prefetch_related_objects
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from governance.models import ReviewItem
from memory import sealing
from memory import selectors as memory_selectors
from memory.engine.facts import records as R
from memory.models import Fact, Link, Workspace
from memory.services.lifecycle.curation import successor_of


def open_review_items(workspace: Workspace) -> QuerySet[ReviewItem]:
    """The workspace's review items waiting for a decision, newest first."""
    return ReviewItem.objects.filter(workspace=workspace, status=ReviewItem.Status.OPEN)


def open_review_count(workspace: Workspace) -> int:
    return open_review_items(workspace).count()


QUEUE_PAGE_SIZE = 25
# A text search decrypts the facts of every item the other filters kept; past this many it stops
# reading and says so, so one search cannot decrypt a whole workspace.
SEARCH_CAP = 1000


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
    """The queue under the list page's filters (all but the text search, see `search_items`).

    Without the facts: joined before the sort, they made PostgreSQL read every fact of the workspace
    (0.2 s at 100,000 facts); `with_facts` loads them for the rows shown."""
    items = ReviewItem.objects.filter(workspace=workspace)
    status = data.get("status") or ReviewItem.Status.OPEN
    if status != "any":
        items = items.filter(status=status)
    if data.get("kind"):
        items = items.filter(kind=data["kind"])
    if data.get("origin"):
        # The item keeps its facts' origins: no fact is read to filter by origin.
        items = items.filter(Q(fact_origin_key=data["origin"]) | Q(other_origin_key=data["origin"]))
    if data.get("age"):
        items = items.filter(created_at__lte=timezone.now() - timedelta(days=data["age"]))
    if data.get("sort") == "strongest":
        # Items without a score sort last; JSON numbers compare as numbers on both databases (and a
        # stray non-number cannot make a cast fail).
        items = items.order_by(F("details__score").desc(nulls_last=True), "-created_at", "-id")
    else:
        items = items.order_by("-created_at", "-id")
    return items


def search_items(items: QuerySet[ReviewItem], text: str) -> tuple[list[int], bool]:
    """The ids of the items whose fact or other fact contains `text` (case-insensitive) or is the fact
    with that memory id, in the queryset's order (`with_facts` loads a page of them).

    Content is sealed at rest, so the match runs here over the decrypted facts. A substring match
    (not recall) because a reviewer searches for words they saw: recall ranks by meaning, caps its
    hits and scores one origin at a time, and an item's facts may belong to two origins. Returns the
    matches and whether the search stopped at SEARCH_CAP items. Reads columns, not model instances:
    a search reads up to 2 × SEARCH_CAP facts.
    """
    needle = text.casefold()
    rows = list(items.values_list("pk", "fact_id", "other_fact_id", "fact_memory_id", "other_memory_id")
                [: SEARCH_CAP + 1])  # fmt: skip
    truncated = len(rows) > SEARCH_CAP
    rows = rows[:SEARCH_CAP]
    texts = _readable_texts({pk for row in rows for pk in row[1:3] if pk is not None})
    matches = [
        pk for pk, fact_id, other_id, fact_memory_id, other_memory_id in rows
        if needle in (fact_memory_id.casefold(), other_memory_id.casefold())  # the inspector's link
        or needle in texts.get(fact_id, "") or needle in texts.get(other_id, "")
    ]  # fmt: skip
    return matches, truncated


def _readable_texts(fact_ids: set[int]) -> dict[int, str]:
    """The casefolded content of these facts, one key fetch per origin; a shredded origin's are left out."""
    openers: dict[tuple[int, str], Any] = {}
    texts = {}
    columns = ("pk", "workspace_id", "origin_key", "sealed_content")
    for pk, workspace_id, origin_key, sealed in Fact.objects.filter(pk__in=fact_ids).values_list(*columns):
        key = (workspace_id, origin_key)
        if key not in openers:
            try:
                openers[key] = sealing.unsealer(workspace_id, origin_key, "content")
            except sealing.KeyDestroyedError:
                openers[key] = None
        if openers[key] is not None:
            texts[pk] = openers[key](sealed).decode("utf-8").casefold()
    return texts


def with_facts(items) -> list[ReviewItem]:
    """One page of items, or of item ids as `search_items` gives them, with both facts loaded (a
    constant number of queries, whatever the page size)."""
    items = list(items)
    if items and not isinstance(items[0], ReviewItem):
        found = ReviewItem.objects.in_bulk(items)
        items = [found[pk] for pk in items if pk in found]
    prefetch_related_objects(items, "fact", "other_fact")
    return items


def queue_origins(workspace: Workspace) -> list[str]:
    """The workspace's origin keys, for the origin filter.

    Every origin that wrote, by memory's loose index scan: only those of the facts under review
    meant joining every item to its facts (0.35 s at 10,000 items and 100,000 facts)."""
    return memory_selectors.distinct_origin_keys(workspace)


# ---------------------------------------------------------------- one item's page
EVENTS_PER_FACT = 20
LINKS_PER_FACT = 50
DETAIL_VALUE_CHARS = 300
# Details the page shows in its own places (the summary, the verdict); every other key is listed as is.
SHOWN_DETAILS = ("score", "signal", "verdict", "verdict_reason", "decided_by", "decision", "closed_reason")


def item_sides(workspace: Workspace, item: ReviewItem) -> list[dict]:
    """The columns of an item's page: the fact under review and, when the item has one, the other fact.

    Each side carries its fact (None once deleted, with the memory id the item kept), its links
    both ways, its newest events, what it superseded and what superseded it. A constant number of
    queries per side, whatever the workspace holds.
    """
    pair = {item.fact_memory_id, item.other_memory_id} - {""}
    sides = [_side(workspace, "Fact under review", item.fact, item.fact_memory_id, pair)]
    if item.other_fact is not None or item.other_memory_id:
        sides.append(_side(workspace, "Other fact", item.other_fact, item.other_memory_id, pair))
    # A deleted fact's events stay in the log: they say what happened to it.
    events = memory_selectors.events_of_facts(workspace, [side["memory_id"] for side in sides if side["memory_id"]],
                                              limit=EVENTS_PER_FACT)  # fmt: skip
    for side in sides:
        if side["memory_id"]:
            side["events"], side["more_events"] = events[side["memory_id"]]
            side["events_url"] = (reverse("memory:event-list", args=[workspace.name]) + "?"
                                  + urlencode({"fact": side["memory_id"]}))  # fmt: skip
    _resolve_superseded(workspace, sides)
    return sides


def _side(workspace: Workspace, title: str, fact: Fact | None, kept_id: str, pair: set[str]) -> dict:
    memory_id = fact.memory_id if fact is not None else kept_id
    side = {"title": title, "fact": fact, "memory_id": memory_id, "links": [], "more_links": False,
            "events": [], "more_events": False, "events_url": "", "superseded": [], "superseded_by": None}  # fmt: skip
    if fact is None:
        return side
    links = list(Link.objects.filter(Q(from_fact=fact) | Q(to_fact=fact)).select_related("from_fact", "to_fact")
                 .order_by("kind", "pk")[: LINKS_PER_FACT + 1])  # fmt: skip
    side["more_links"] = len(links) > LINKS_PER_FACT
    for link in links[:LINKS_PER_FACT]:
        outbound = link.from_fact_id == fact.pk
        other = link.to_fact if outbound else link.from_fact
        other_id = other.memory_id if other is not None else link.dangling_target
        side["links"].append({"arrow": "→" if outbound else "←", "kind": link.kind, "link": link, "other": other,
                              "other_id": other_id, "in_item": other_id in pair and other_id != memory_id})  # fmt: skip
    # Superseding archives a fact and ends its validity, so only such a fact can have a successor; an
    # active one skips the search (a text scan of its origin's `supersedes` lists when no link names it).
    if fact.lifecycle != "active" or fact.valid_to is not None or fact.status == "superseded":
        side["superseded_by"] = successor_of(fact)
    return side


def _resolve_superseded(workspace: Workspace, sides: list[dict]) -> None:
    """What each fact replaced: targets of its transition links (supersedes, transition, corrects) and
    the ids its `supersedes` list names, resolved to facts in one query for both sides."""
    facts = [side["fact"] for side in sides if side["fact"] is not None]
    if not facts:
        return
    named: dict[int, dict[str, str]] = {fact.pk: {} for fact in facts}
    transitions = Link.objects.filter(from_fact__in=facts, kind__in=R.TRANSITION_KINDS).order_by("pk")
    for from_pk, kind, to_id, dangling in transitions.values_list("from_fact_id", "kind", "to_fact__memory_id",
                                                                  "dangling_target")[:200]:  # fmt: skip
        named[from_pk].setdefault(to_id or dangling, kind)
    for fact in facts:
        for memory_id in (fact.supersedes or [])[:50]:
            named[fact.pk].setdefault(str(memory_id), "named in supersedes")
    wanted = {memory_id for ids in named.values() for memory_id in ids}
    found = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace, memory_id__in=wanted)}
    for side in sides:
        if side["fact"] is not None:
            side["superseded"] = [{"memory_id": memory_id, "how": how, "fact": found.get(memory_id)}
                                  for memory_id, how in named[side["fact"].pk].items()]  # fmt: skip


def detail_rows(details: dict) -> list[dict]:
    """The item's details the page has no place for, as rows of `key`, `text` and `code` (JSON shown
    as code): new detectors' details show up without a template change. Long values are cut."""
    rows = []
    for key, value in (details or {}).items():
        if key in SHOWN_DETAILS:
            continue
        if key == "trust_mismatch":  # a flag for code; people read what it means
            key, value = "trust", ("an untrusted source disagrees with a trusted one" if value
                                   else "both sides have the same trust")  # fmt: skip
        text, code = _detail_text(value)
        if len(text) > DETAIL_VALUE_CHARS:
            text = text[: DETAIL_VALUE_CHARS - 1] + "…"
        rows.append({"key": str(key).replace("_", " "), "text": text, "code": code})
    return rows


def _detail_text(value) -> tuple[str, bool]:
    """Words for flat values (a list of names reads as a list); JSON for anything nested."""
    if value is None or value == "" or value == []:
        return "—", False
    if isinstance(value, bool):
        return ("yes" if value else "no"), False
    if isinstance(value, str | int | float):
        return str(value), False
    if isinstance(value, list) and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ", ".join(str(v) for v in value), False
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str), True


# ---------------------------------------------------------------- moving through the queue
def queue_neighbours(workspace: Workspace, data: dict, item: ReviewItem) -> tuple[int | None, int | None]:
    """The ids of the items just before and just after `item` in the queue as the list page orders it
    under the same filters (`data`: the filter form's cleaned values), or None at either end.

    A keyset from the item's own sort key, so it works for an item that has left the filtered set (a
    verdict just closed it) and reads one row per side, however long the queue. With a text search,
    each side is searched from the item on (capped as the list's search is)."""
    items = filtered_review_items(workspace, data).exclude(pk=item.pk)
    after, before = _keyset(item, data.get("sort") == "strongest")
    later, earlier = items.filter(after), items.filter(before).reverse()
    if data.get("q"):
        found_later, _ = search_items(later, data["q"])
        found_earlier, _ = search_items(earlier, data["q"])
        return (found_earlier[0] if found_earlier else None), (found_later[0] if found_later else None)
    return earlier.values_list("pk", flat=True).first(), later.values_list("pk", flat=True).first()


def _keyset(item: ReviewItem, by_score: bool) -> tuple[Q, Q]:
    """(after, before): the items sorting after and before `item` in the list's order."""
    at, pk = item.created_at, item.pk
    later = Q(created_at__lt=at) | Q(created_at=at, pk__lt=pk)
    earlier = Q(created_at__gt=at) | Q(created_at=at, pk__gt=pk)
    if not by_score:
        return later, earlier
    score = (item.details or {}).get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        # Unscored items sort last, among themselves newest first; every scored item comes before.
        return Q(details__score__isnull=True) & later, Q(details__score__isnull=False) | earlier
    return (Q(details__score__lt=score) | Q(details__score__isnull=True) | Q(details__score=score) & later,
            Q(details__score__gt=score) | Q(details__score=score) & earlier)  # fmt: skip
