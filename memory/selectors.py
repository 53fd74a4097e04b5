"""Reads for the console: querysets with their filters, and the origins a workspace holds."""

from __future__ import annotations

from django.db.models import QuerySet

from memory.engine import records as R
from memory.models import Fact, Workspace

SORTS = {
    "-created": ("-created_at", "-id"), "created": ("created_at", "id"), "-importance": ("-importance", "-id"),
    "importance": ("importance", "id"), "-accessed": ("-access_count", "-id"),
}  # fmt: skip


def filtered_facts(workspace: Workspace, data: dict) -> QuerySet[Fact]:
    """Facts of one workspace narrowed by the browser's filters (all optional)."""
    facts = Fact.objects.filter(workspace=workspace)
    for field in ("segment", "tier", "lifecycle", "classification"):
        if data.get(field):
            facts = facts.filter(**{field: data[field]})
    if data.get("origin") is not None:
        facts = facts.filter(origin_key=data["origin"].key)
    source = data.get("source_type")
    if source == "legacy":
        facts = facts.filter(source_type__isnull=True)
    elif source:
        facts = facts.filter(source_type=source)
    if data.get("trust") == "untrusted":
        facts = facts.filter(source_type__in=list(R.UNTRUSTED_SOURCE_TYPES))
    elif data.get("trust") == "trusted":
        facts = facts.exclude(source_type__in=list(R.UNTRUSTED_SOURCE_TYPES))
    if data.get("subject_key"):
        facts = facts.filter(subject_key=R.normalize_subject_key(data["subject_key"]))
    if data.get("created_from"):
        facts = facts.filter(created_at__date__gte=data["created_from"])
    if data.get("created_to"):
        facts = facts.filter(created_at__date__lte=data["created_to"])
    return facts.order_by(*SORTS.get(data.get("sort") or "-created", SORTS["-created"]))


def origins_of(workspace: Workspace) -> list[R.Origin]:
    """Every origin that wrote in the workspace: the owner first, then peers by key."""
    rows = (
        Fact.objects.filter(workspace=workspace)
        .values_list("origin_kind", "channel_id", "conversation_id", "session_key", "account_id")
        .distinct()
    )
    origins = {R.Origin(*row).key: R.Origin(*row) for row in rows}
    return sorted(origins.values(), key=lambda o: (not o.is_owner, o.key))


def filtered_events(workspace: Workspace, data: dict):
    """The workspace's events, newest first, narrowed by kind, actor, fact and date."""
    from django.db import connection

    from memory.models import MemoryEvent

    events = MemoryEvent.objects.filter(workspace=workspace)
    if data.get("kind"):
        events = events.filter(kind=data["kind"])
    if data.get("actor"):
        events = events.filter(actor__icontains=data["actor"])
    if data.get("date_from"):
        events = events.filter(at__date__gte=data["date_from"])
    if data.get("date_to"):
        events = events.filter(at__date__lte=data["date_to"])
    if data.get("fact"):
        if connection.vendor == "postgresql":
            events = events.filter(fact_ids__contains=[data["fact"]])
        else:  # SQLite: a JSON text match on the quoted id, exact enough for memory ids
            events = events.filter(fact_ids__icontains=f'"{data["fact"]}"')
    return events.order_by("-revision", "-id")
