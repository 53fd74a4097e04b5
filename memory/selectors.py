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
    # Distinct origin keys come straight off the (workspace, origin_key, …) index; a key holds
    # every part of the origin, so nothing else needs reading.
    keys = Fact.objects.filter(workspace=workspace).values_list("origin_key", flat=True).order_by("origin_key").distinct()
    origins = [origin_from_key(key) for key in keys]
    return sorted((o for o in origins if o is not None), key=lambda o: (not o.is_owner, o.key))


def origin_from_key(key: str) -> R.Origin | None:
    """The inverse of `Origin.key`."""
    import json

    if key == "owner":
        return R.Origin.owner()
    try:
        channel, account, conversation, session = json.loads(key[len("channel:") :])
    except (ValueError, TypeError):
        return None
    return R.Origin("channel", channel, conversation, session, account)


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


def _bars(rows: list[tuple[str, int]]) -> list[dict]:
    top = max((n for _, n in rows), default=0) or 1
    return [{"label": label, "n": n, "pct": round(100 * n / top, 1)} for label, n in rows]


HISTOGRAM_SAMPLE = 5000


def dashboard(workspace: Workspace) -> dict:
    """Counts and distributions for the workspace dashboard, each one aggregate query (no per-fact loop
    except the score histogram, which reads four numeric columns of active facts)."""
    from datetime import timedelta

    import numpy as np
    from django.db.models import Count
    from django.db.models.functions import Mod, TruncWeek
    from django.utils import timezone

    from governance.models import ReviewItem
    from memory.engine.decay import effective_score
    from memory.models import MemoryEvent
    from memory.timestamps import to_ms

    facts = Fact.objects.filter(workspace=workspace)

    def counted(field):
        return _bars(list(facts.values_list(field).annotate(n=Count("id")).order_by(field)))

    untrusted = facts.filter(source_type__in=list(R.UNTRUSTED_SOURCE_TYPES)).count()
    total = facts.count()
    since = timezone.now() - timedelta(weeks=12)
    weekly = (
        facts.filter(created_at__gte=since).annotate(week=TruncWeek("created_at")).values_list("week")
        .annotate(n=Count("id")).order_by("week")
    )  # fmt: skip
    # The score distribution is estimated from an even sample (every k-th id) on big workspaces, so
    # the dashboard reads at most a few thousand rows whatever the size.
    active = facts.filter(lifecycle="active")
    active_count = active.count()
    step = max(1, active_count // HISTOGRAM_SAMPLE)
    if step > 1:
        active = active.annotate(bucket=Mod("id", step)).filter(bucket=0)
    active = active.values_list("importance", "decay_rate", "access_count", "last_accessed_at", "tier")
    histogram = []
    rows = list(active)
    if rows:
        scores = effective_score(
            np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), np.array([r[2] for r in rows]),
            np.array([to_ms(r[3]) for r in rows]), int(to_ms(timezone.now())), np.array([r[4] == "permanent" for r in rows]),
        )  # fmt: skip
        counts, edges = np.histogram(scores, bins=10, range=(0.0, 1.0))
        scale = active_count / len(rows)
        histogram = _bars([(f"{edges[i]:.1f}–{edges[i + 1]:.1f}", int(round(c * scale))) for i, c in enumerate(counts)])
    origins = [((origin_from_key(key) or R.Origin.owner()).label() if key != "owner" else "owner", n)
               for key, n in facts.values_list("origin_key").annotate(n=Count("id")).order_by("origin_key")]  # fmt: skip
    return {
        "total": total,
        "by_segment": counted("segment"),
        "by_tier": counted("tier"),
        "by_lifecycle": counted("lifecycle"),
        "by_origin": _bars(origins),
        "by_trust": _bars([("trusted", total - untrusted), ("untrusted", untrusted)]),
        "per_week": _bars([(week.strftime("%Y-%m-%d"), n) for week, n in weekly]),
        "score_histogram": histogram,
        "decaying_soon": sum(bar["n"] for bar in histogram[:2]) if histogram else 0,
        "open_reviews": ReviewItem.objects.filter(workspace=workspace, status="open").count(),
        "maintenance_runs": MemoryEvent.objects.filter(workspace=workspace, kind__in=["dream_run", "gc_run", "retention_run"]).order_by("-revision")[:5],
        "recent_events": MemoryEvent.objects.filter(workspace=workspace).order_by("-revision", "-id")[:10],
    }


KIND_COLORS = {"strong": "#c0392b", "medium": "#7f8c8d", "weak": "#bdc3c7"}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d"]  # fmt: skip


def graph_payload(export) -> dict:
    """The Memory Graph for the browser: nodes placed by community (deterministic, no physics), typed
    edges, clusters and stats. Communities sit on a sunflower spiral, their members on a smaller one,
    so clusters read as islands at any size without an O(n²) layout."""
    import math

    golden = math.pi * (3 - math.sqrt(5))
    members: dict[str, list] = {}
    for node in export.nodes:
        members.setdefault(node.cluster_id, []).append(node)
    order = sorted(members, key=lambda cid: (-len(members[cid]), cid))
    color_of = {cid: PALETTE[i % len(PALETTE)] for i, cid in enumerate(order)}
    nodes, offset = [], 0.0
    for index, cid in enumerate(order):
        group = sorted(members[cid], key=lambda n: (-n.importance, n.id))
        radius = math.sqrt(len(group)) * 1.2
        offset += radius
        cx, cy = offset * math.cos(index * golden) * 2.2, offset * math.sin(index * golden) * 2.2
        offset += radius * 0.3
        for i, node in enumerate(group):
            r = math.sqrt(i + 0.5) * 1.1
            nodes.append({
                "id": node.id, "label": node.label, "segment": node.segment, "cluster": cid,
                "x": round(cx + r * math.cos(i * golden), 3), "y": round(cy + r * math.sin(i * golden), 3),
                "size": round(3 + 6 * node.importance, 2), "color": color_of[cid], "source_type": node.source_type,
            })  # fmt: skip
    edges = [{"source": e.source, "target": e.target, "kind": e.kind, "strength": e.strength,
              "color": KIND_COLORS.get(e.strength, "#999")} for e in export.edges]  # fmt: skip
    clusters = [{"id": c.id, "label": c.label, "size": c.size, "representative": c.representative,
                 "color": color_of.get(c.id, "#999")} for c in export.clusters]  # fmt: skip
    stats = export.stats
    return {"nodes": nodes, "edges": edges, "clusters": clusters,
            "stats": {"total_memories": stats.total_memories, "connections": stats.connections,
                      "clusters": stats.clusters, "by_type": stats.by_type, "added_last_7d": stats.added_last_7d,
                      "modularity": stats.modularity}}  # fmt: skip
