"""Reads for the console: querysets with their filters, and the origins a workspace holds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import numpy as np
from django.db.models import Q, QuerySet

from memory.engine.facts import records as R
from memory.models import Fact, Workspace

SORTS = {
    "-created": ("-created_at", "-id"), "created": ("created_at", "id"), "-importance": ("-importance", "-id"),
    "importance": ("importance", "id"), "-accessed": ("-access_count", "-id"),
}  # fmt: skip


def sort_in_memory(facts: list[Fact], sort: str) -> list[Fact]:
    """Facts already read (a search's best matches) in one of the browser's orders, ties by key."""
    field, descending = SORT_KEYS[sort]
    return sorted(facts, key=lambda f: (getattr(f, field), f.pk), reverse=descending)


SCORE_COLUMNS = ("importance", "decay_rate", "access_count", "last_accessed_at", "tier")


def scores_now(rows) -> np.ndarray:
    """Effective scores now of rows of `SCORE_COLUMNS` values."""
    from django.utils import timezone

    from memory.engine.maintenance.decay import effective_score
    from memory.timestamps import to_ms

    if not rows:
        return np.zeros(0)
    columns = list(zip(*rows, strict=True))
    return np.atleast_1d(effective_score(
        np.array(columns[0], dtype=float), np.array(columns[1], dtype=float), np.array(columns[2], dtype=float),
        np.array([to_ms(t) for t in columns[3]], dtype=float), int(to_ms(timezone.now())),
        np.array([tier == "permanent" for tier in columns[4]]),
    ))  # fmt: skip


def scoring_below(facts: QuerySet[Fact], below: float) -> list[tuple[int, float]]:
    """(key, score now) of the active facts among `facts` whose effective score is below `below`,
    lowest first: what the decay GC will archive next unless they are used. The score depends on the
    clock, so it is computed here from five numeric columns (no fact text is read)."""
    rows = list(facts.filter(lifecycle="active").order_by().values_list("pk", *SCORE_COLUMNS))
    scores = scores_now([row[1:] for row in rows])
    low = np.flatnonzero(scores < below)
    low = low[np.lexsort((low, scores[low]))]
    return [(rows[i][0], float(scores[i])) for i in low]


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
    # Days as ranges of the column itself (not `created_at::date`), so the (workspace, created_at)
    # index serves them and the planner can estimate them.
    if data.get("created_from"):
        facts = facts.filter(created_at__gte=_day_start(data["created_from"]))
    if data.get("created_to") and data["created_to"] < date.max:  # up to 9999-12-31 is no bound at all
        facts = facts.filter(created_at__lt=_day_start(data["created_to"] + timedelta(days=1)))
    return facts.order_by(*SORTS.get(data.get("sort") or "-created", SORTS["-created"]))  # "relevance" too


# ---------------------------------------------------------------- one page of the facts browser

PAGE_SIZE = 50
# Counting stops here: below it the count is exact, above it PostgreSQL's planner estimate ("about
# 100,000") or, where there is none (SQLite), a lower bound ("more than 10,000") is shown instead.
COUNT_CAP = 10_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The column each sort pages by (then the id, which breaks ties), and whether it runs descending.
SORT_KEYS = {"-created": ("created_at", True), "created": ("created_at", False), "-importance": ("importance", True),
             "importance": ("importance", False), "-accessed": ("access_count", True)}  # fmt: skip


@dataclass(frozen=True)
class FactCount:
    """How many facts match: exact, a planner estimate, or at least `value` (a capped count)."""

    value: int
    kind: str = "exact"  # "exact" | "estimate" | "at_least"

    @property
    def exact(self) -> bool:
        return self.kind == "exact"

    @property
    def label(self) -> str:
        noun = "fact" if self.value == 1 and self.exact else "facts"
        if self.kind == "estimate":
            return f"about {_round_estimate(self.value):,} {noun}"
        if self.kind == "at_least":
            return f"more than {self.value:,} {noun}"
        return f"{self.value:,} {noun}"


def _round_estimate(value: int) -> int:
    """Two significant figures: 100,096 → 100,000; 24,123 → 24,000."""
    if value < 100:
        return value
    scale = 10 ** (len(str(value)) - 2)
    return round(value / scale) * scale


@dataclass
class FactPage:
    """One page of facts. Pages are keyset ("seek") pages: `after`/`before` carry the sort key and id of
    the row the page starts after (or ends before), so a page costs one index range scan at any depth,
    plus a count that stops at COUNT_CAP rows (`count_facts`), and none at all when everything fits
    on one page. An explicit `page=N` (old links, bookmarks) still works, by OFFSET; the page number
    is known only then."""

    object_list: list
    total: FactCount
    has_next: bool
    has_previous: bool
    next_cursor: str | None = None
    previous_cursor: str | None = None
    number: int | None = None
    num_pages: int | None = None


def encode_cursor(fact: Fact, sort: str) -> str:
    field, _ = SORT_KEYS[sort]
    value = getattr(fact, field)
    if field == "created_at":  # microseconds since the epoch: exact and URL-friendly
        value = (value - _EPOCH) // timedelta(microseconds=1)
    return f"{value!r}_{fact.pk}"


def decode_cursor(text: str, sort: str) -> tuple | None:
    """(sort value, id) from a cursor, or None when it is malformed or belongs to another sort."""
    field, _ = SORT_KEYS[sort]
    value, _, pk = (text or "").partition("_")
    try:
        pk = int(pk)
        if field == "created_at":
            return _EPOCH + timedelta(microseconds=int(value)), pk
        if field == "importance":
            number = float(value)
            return (number, pk) if 0.0 <= number <= 1.0 else None
        return int(value), pk
    except (ValueError, OverflowError):
        return None


def _seek(facts: QuerySet[Fact], field: str, value, pk: int, *, below: bool) -> QuerySet[Fact]:
    """Rows whose (field, id) is below (value, pk), or above it: the row comparison written as
    `field <= value AND (field < value OR id < pk)`, so an index range on `field` serves it."""
    op, bound = ("lt", "lte") if below else ("gt", "gte")
    return facts.filter(**{f"{field}__{bound}": value}).filter(Q(**{f"{field}__{op}": value}) | Q(**{f"id__{op}": pk}))


def fact_page(facts: QuerySet[Fact], sort: str, params) -> FactPage:
    """The page of `facts` (ordered by `SORTS[sort]`) that `params` (after, before or page) asks for."""
    sort = sort if sort in SORT_KEYS else "-created"
    field, descending = SORT_KEYS[sort]
    after = decode_cursor(params.get("after", ""), sort) if params.get("after") else None
    before = decode_cursor(params.get("before", ""), sort) if params.get("before") and after is None else None
    number = None
    if after is None and before is None and params.get("page"):
        number = page_number(params.get("page"))
    if before is not None:
        # Walk backwards from the cursor in reverse order, then turn the rows round.
        rows = list(_seek(facts, field, *before, below=not descending).reverse()[: PAGE_SIZE + 1])
        has_previous = len(rows) > PAGE_SIZE
        rows = rows[:PAGE_SIZE][::-1]
        if len(rows) < PAGE_SIZE:  # ran into the start (rows were added or removed): show the first page
            return fact_page(facts, sort, {})
        has_next = True
    elif after is not None:
        rows = list(_seek(facts, field, *after, below=descending)[: PAGE_SIZE + 1])
        has_next, has_previous, rows = len(rows) > PAGE_SIZE, True, rows[:PAGE_SIZE]
        if not rows:  # past the end (the last rows went away): the first page instead of an empty one
            return fact_page(facts, sort, {})
    else:
        start = ((number or 1) - 1) * PAGE_SIZE
        rows = list(facts[start : start + PAGE_SIZE + 1])
        has_next, has_previous, rows = len(rows) > PAGE_SIZE, start > 0, rows[:PAGE_SIZE]
        if not rows and start:  # past the end: the first page instead of an empty one
            return fact_page(facts, sort, {})
    if not has_next and not has_previous:
        total = FactCount(len(rows))  # the whole result is on this page: no count needed
    elif not has_next and number is not None:
        total = FactCount((number - 1) * PAGE_SIZE + len(rows))
    else:
        total = count_facts(facts)
    page = FactPage(rows, total, has_next, has_previous)
    if rows:
        page.next_cursor = encode_cursor(rows[-1], sort) if has_next else None
        page.previous_cursor = encode_cursor(rows[0], sort) if has_previous else None
    if number is not None:
        page.number = number
        page.num_pages = -(-total.value // PAGE_SIZE) if total.exact else None
    return page


# No workspace has a billion pages; a bigger number (up to 64 bits and beyond) would overflow the
# database's OFFSET, so it is read as "past the end", which shows the first page.
MAX_PAGE = 10**9


def page_number(text) -> int:
    """The page a `page=` parameter asks for: 1 for anything that is not a sensible positive number."""
    try:
        number = int(str(text).strip())
    except (TypeError, ValueError):
        return 1
    return number if 1 <= number <= MAX_PAGE else 1


def count_facts(facts: QuerySet[Fact]) -> FactCount:
    """Exact up to COUNT_CAP, an estimate above it.

    `COUNT(*)` over the query cut at COUNT_CAP + 1 rows reads at most that many rows when the filter
    is unselective (a few ms), and gives the exact number when it is selective. Only above the cap
    does PostgreSQL's planner estimate (an EXPLAIN: nothing is read) give the size, shown as "about
    N" and never below the cap; SQLite has no estimate, so "more than COUNT_CAP" is shown there. The
    estimate alone is not trusted to decide: a filter it cannot see into (a date cast, correlated
    columns) can be off by orders of magnitude.
    """
    from django.db import connection

    unordered = facts.order_by()
    capped = unordered.values("id")[: COUNT_CAP + 1].count()
    if capped <= COUNT_CAP:
        return FactCount(capped)
    estimate = _planner_rows(unordered) if connection.vendor == "postgresql" else None
    if estimate is not None:
        return FactCount(max(estimate, COUNT_CAP + 1), "estimate")
    return FactCount(COUNT_CAP, "at_least")


def _planner_rows(facts: QuerySet[Fact]) -> int | None:
    """PostgreSQL's estimate of how many rows the query returns (EXPLAIN, nothing executed)."""
    import json

    try:
        plan = json.loads(facts.values("id").explain(format="json"))
        return int(plan[0]["Plan"]["Plan Rows"])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _day_start(day):
    """Midnight starting `day` in the current time zone (what `created_at__date` compares in)."""
    from django.utils import timezone

    return timezone.make_aware(datetime.combine(day, datetime.min.time()), timezone.get_current_timezone())


def fact_or_none(workspace: Workspace, memory_id: str) -> Fact | None:
    """The workspace's fact with this id, or None. An id no fact can have (a NUL, which PostgreSQL
    refuses in text, or longer than the column) is not looked up at all."""
    if not memory_id or "\x00" in memory_id or len(memory_id) > Fact._meta.get_field("memory_id").max_length:
        return None
    return Fact.objects.filter(workspace=workspace, memory_id=memory_id).first()


def origins_of(workspace: Workspace) -> list[R.Origin]:
    """Every origin that wrote in the workspace: the owner first, then peers by key."""
    origins = [origin_from_key(key) for key in distinct_origin_keys(workspace)]
    return sorted((o for o in origins if o is not None), key=lambda o: (not o.is_owner, o.key))


def distinct_origin_keys(workspace: Workspace) -> list[str]:
    """The workspace's distinct origin keys, in order, by a loose index scan.

    A plain `SELECT DISTINCT origin_key` reads every fact of the workspace (PostgreSQL has no skip
    scan: ~80 ms at 100,000 facts). This recursive query jumps from one key to the next through the
    (workspace, origin_key, …) index instead: one index probe per distinct key, whatever the size.
    """
    from django.db import connection

    table = connection.ops.quote_name(Fact._meta.db_table)
    sql = (
        f"WITH RECURSIVE keys(k) AS ("
        f" SELECT (SELECT origin_key FROM {table} WHERE workspace_id = %s ORDER BY origin_key LIMIT 1)"
        f" UNION ALL"
        f" SELECT (SELECT origin_key FROM {table} WHERE workspace_id = %s AND origin_key > keys.k"
        f" ORDER BY origin_key LIMIT 1) FROM keys WHERE keys.k IS NOT NULL"
        f") SELECT k FROM keys WHERE k IS NOT NULL"
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, [workspace.pk, workspace.pk])
        return [row[0] for row in cursor.fetchall()]


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


def _actor_matches(wanted: str):
    """Events whose actor contains `wanted`. A person is `user:<username>` in the log; older gold-set and
    proposal events named them bare (`demo-owner`), so `user:demo-owner` also finds those (a bare
    actor never holds a colon), and the log itself is never rewritten."""
    from django.db.models import Q

    matches = Q(actor__icontains=wanted)
    person = wanted[len("user:"):] if wanted.lower().startswith("user:") else ""
    if person:
        matches |= Q(actor__icontains=person) & ~Q(actor__contains=":")
    return matches


def filtered_events(workspace: Workspace, data: dict):
    """The workspace's events, newest first, narrowed by kind, actor, fact and date."""
    from django.db import connection

    from memory.models import MemoryEvent

    events = MemoryEvent.objects.filter(workspace=workspace)
    if data.get("kind"):
        events = events.filter(kind=data["kind"])
    if data.get("actor"):
        events = events.filter(_actor_matches(data["actor"]))
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


# How many of a workspace's newest events a fact's page reads through. On SQLite the event log has no
# index on the facts it names (PostgreSQL has one, migration 0017), so a lookup reads events one by
# one; past this window the page links the log.
EVENT_WINDOW = 20_000


def events_of_fact(workspace: Workspace, memory_id: str, *, limit: int = 20,
                   window: int = EVENT_WINDOW) -> tuple[list, bool]:  # fmt: skip
    """`events_of_facts` for one fact."""
    return events_of_facts(workspace, [memory_id], limit=limit, window=window)[memory_id]


def events_of_facts(workspace: Workspace, memory_ids: list[str], *, limit: int = 20,
                    window: int = EVENT_WINDOW) -> dict[str, tuple[list, bool]]:  # fmt: skip
    """For each fact, its newest `limit` events (newest first) among the workspace's newest `window`
    events, and whether it may have more (more than `limit`, or older than the window).

    One pass over the window serves every fact; then one query reads the events kept. PostgreSQL
    matches the JSON list exactly (`@>`). SQLite has no JSON containment in the ORM: a text match on
    the quoted id narrows the rows and an exact check in Python keeps only events that name this
    very id (the text match ignores case).
    """
    from django.db import connection

    from memory.models import MemoryEvent

    ids = list(dict.fromkeys(memory_ids))
    if not ids:
        return {}
    events = MemoryEvent.objects.filter(workspace=workspace).order_by("-revision", "-id")
    # The window's oldest revision, found on the (workspace, revision) index; None when the whole
    # log fits in the window (then the answer is complete).
    floor = next(iter(events.values_list("revision", flat=True)[window : window + 1]), None) if window else None
    if floor is not None:
        events = events.filter(revision__gte=floor)
    lookup = "fact_ids__contains" if connection.vendor == "postgresql" else "fact_ids__icontains"
    naming = Q()
    for memory_id in ids:
        naming |= Q(**{lookup: [memory_id] if connection.vendor == "postgresql" else f'"{memory_id}"'})
    kept: dict[str, list[int]] = {memory_id: [] for memory_id in ids}
    for pk, named in events.filter(naming).values_list("pk", "fact_ids"):  # at most `window` rows
        for memory_id in ids:
            if memory_id in named and len(kept[memory_id]) <= limit:
                kept[memory_id].append(pk)
        if all(len(pks) > limit for pks in kept.values()):
            break
    rows = MemoryEvent.objects.in_bulk([pk for pks in kept.values() for pk in pks[:limit]])
    return {memory_id: ([rows[pk] for pk in pks[:limit]], len(pks) > limit or floor is not None)
            for memory_id, pks in kept.items()}  # fmt: skip


def _bars(rows: list[tuple[str, int]], filters=None) -> list[dict]:
    """One bar per (label, count); `filters(label)` gives the facts list's query for the bar's set,
    so the dashboard links each number to the facts it counts."""
    from urllib.parse import urlencode

    top = max((n for _, n in rows), default=0) or 1
    return [{"label": label, "n": n, "pct": round(100 * n / top, 1),
             "query": urlencode(filters(label)) if filters else ""} for label, n in rows]  # fmt: skip


HISTOGRAM_SAMPLE = 5000


def _week(monday: str) -> dict:
    start = date.fromisoformat(monday)
    return {"created_from": monday, "created_to": (start + timedelta(days=6)).isoformat()}


RUN_LABELS = {"dream_run": "Dream", "gc_run": "Decay GC", "retention_run": "Retention"}


def maintenance_runs(workspace: Workspace, limit: int = 6) -> list[dict]:
    """The latest runs of every kind of maintenance, each with its counts, and whether an undo has
    reversed it (a dream run can be undone; its `restored` event names the run)."""
    from memory.models import MemoryEvent

    # A dream records its run when it starts and again when it ends: one line per run, the latest
    # event's (a run that never finished shows as such, with what it planned).
    seen: set[str] = set()
    runs = []
    for event in (MemoryEvent.objects.filter(workspace=workspace, kind__in=list(RUN_LABELS)).defer("fact_ids")
                  .order_by("-revision")[:limit * 2]):  # fmt: skip
        run = event.data.get("run") if event.kind == "dream_run" else None
        if run and run in seen:
            continue
        if run:
            seen.add(run)
        runs.append(event)
    runs = runs[:limit]
    run_ids = [e.data.get("run") for e in runs if e.kind == "dream_run" and e.data.get("run")]
    undone = {}
    if run_ids:
        # Only what the page shows of an undo: its `fact_ids` name every fact the run touched.
        undoes = MemoryEvent.objects.filter(workspace=workspace, kind="restored", data__run__in=run_ids)
        # The whole `data`, not `data__run`: SQLite hands a key's text back through json.loads, so a
        # run id of twelve decimal digits would come back as a number and match nothing.
        for data, revision, actor in undoes.order_by("-revision").values_list("data", "revision", "actor"):
            undone[data.get("run")] = {"revision": revision, "actor": actor}
    shown = []
    for event in runs:
        counts = ", ".join(f"{name} {value:,}" for name, value in event.data.items()
                           if isinstance(value, int) and not isinstance(value, bool) and name != "policy")  # fmt: skip
        if event.kind == "retention_run" and event.data.get("name"):
            counts = f"policy “{event.data['name']}”: {counts}"
        label = RUN_LABELS[event.kind] + (" (started, not finished)" if event.data.get("status") == "started" else "")
        shown.append({"kind": event.kind, "label": label, "at": event.at, "revision": event.revision,
                      "counts": counts, "undone_by": undone.get(event.data.get("run")) if event.kind == "dream_run" else None})  # fmt: skip
    return shown


def dashboard(workspace: Workspace) -> dict:
    """Counts and distributions for the workspace dashboard, each one aggregate query (no per-fact loop
    except the score histogram, which reads four numeric columns of active facts)."""
    from django.db.models import Count
    from django.db.models.functions import Mod, TruncWeek
    from django.utils import timezone

    from memory.models import MemoryEvent

    # Facts of a crypto-shredded origin are tombstones: counted apart, never in the figures.
    gone = shredded_origin_keys(workspace)
    facts = Fact.objects.filter(workspace=workspace).exclude(origin_key__in=gone)
    shredded = Fact.objects.filter(workspace=workspace, origin_key__in=gone).count() if gone else 0

    def counted(field):
        return _bars(list(facts.values_list(field).annotate(n=Count("id")).order_by(field)), lambda v: {field: v})

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
    histogram = []
    rows = list(active.values_list(*SCORE_COLUMNS))
    if rows:
        scores = scores_now(rows)
        counts, edges = np.histogram(scores, bins=10, range=(0.0, 1.0))
        scale = active_count / len(rows)
        histogram = _bars([(f"{edges[i]:.1f}–{edges[i + 1]:.1f}", int(round(c * scale))) for i, c in enumerate(counts)])
    origins = [((origin_from_key(key) or R.Origin.owner()).label() if key != "owner" else "owner", n)
               for key, n in facts.values_list("origin_key").annotate(n=Count("id")).order_by("origin_key")]  # fmt: skip
    return {
        "total": total,
        "shredded": shredded,
        "by_segment": counted("segment"),
        "by_tier": counted("tier"),
        "by_lifecycle": counted("lifecycle"),
        "by_origin": _bars(origins, lambda label: {"origin": label}),
        "by_trust": _bars([("trusted", total - untrusted), ("untrusted", untrusted)], lambda v: {"trust": v}),
        "per_week": _bars([(week.strftime("%Y-%m-%d"), n) for week, n in weekly], _week),
        "score_histogram": histogram,
        "decaying_soon": sum(bar["n"] for bar in histogram[:2]) if histogram else 0,
        "maintenance_runs": maintenance_runs(workspace),
        # The fields the page shows: an event's `fact_ids` can name a million facts (a bulk import).
        "recent_events": list(MemoryEvent.objects.filter(workspace=workspace).order_by("-revision", "-id")
                              .values("revision", "at", "kind", "actor")[:10]),  # fmt: skip
        "recall_mode": recall_mode(workspace, total),
        "by_classification": counted("classification"),
        "sensitive_found": sensitive_found(workspace),
    }


def shredded_origin_keys(workspace: Workspace) -> list[str]:
    """The workspace's origins whose data key was destroyed (crypto-shred): their facts are tombstones."""
    from memory import sealing

    return [key for key in distinct_origin_keys(workspace) if not sealing.keyring.exists(workspace.pk, key)]


def sensitive_found(workspace: Workspace) -> list[dict]:
    """Personal data and secrets found in the text of writes (and by `tideline scan`), by kind, as the
    event log records them (kinds only): [{"label", "n"}], most first."""
    from collections import Counter

    from memory.engine.safety.sensitive import LABELS
    from memory.models import MemoryEvent

    counts: Counter = Counter()
    kinds = ("created", "confined", "held", "reclassified")
    for found in (MemoryEvent.objects.filter(workspace=workspace, kind__in=kinds, data__has_key="detected")
                  .values_list("data__detected", flat=True).iterator(chunk_size=2000)):  # fmt: skip
        counts.update(kind for kind in (found or []) if kind in LABELS)
    return [{"label": LABELS[kind], "n": n} for kind, n in counts.most_common()]


def recall_mode(workspace: Workspace, total: int) -> dict:
    """Which recall the workspace gets: model-free, or a learned embedder and how many facts carry its vectors."""
    from django.conf import settings

    from memory.services.recall import embedding

    name = getattr(settings, "TIDELINE_EMBEDDER", "")
    embedder = embedding.resolve(embedding.CONFIGURED)
    if embedder is None:
        return {"configured": name, "available": not name}
    done = embedding.embedded_count(workspace, embedder.fingerprint)
    return {"configured": name, "available": True, "fingerprint": embedder.fingerprint, "embedded": done,
            "missing": max(0, total - done)}  # fmt: skip


KIND_COLORS = {"strong": "#c0392b", "medium": "#7f8c8d", "weak": "#bdc3c7"}
# Twenty community colours, each at least 3:1 against the white canvas, the most distinct first.
# Past twenty a colour comes back, so every community also carries its number (drawn in its
# swatch, its hover label and the side panel): colour is never the only way to tell two apart.
PALETTE = ["#1f77b4", "#e6550d", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#d6339c", "#0f8b8d", "#8a7f00",
           "#1b2a80", "#6b6b6b", "#b15928", "#006d2c", "#ad1457", "#6a3d9a", "#a6761d", "#3f51b5", "#5b7c00",
           "#4e342e", "#00838f"]  # fmt: skip
DARK_INK = "#000000"  # white or black: one of them is always at least 4.5:1 on a colour
LEGEND_COMMUNITIES = 50  # the page lists (and filters by) this many of the largest communities


def _contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""

    def luminance(color: str) -> float:
        channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def ink_on(color: str) -> str:
    """The colour of a community's number written on its swatch: white or dark, whichever reads better."""
    return "#ffffff" if _contrast(color, "#ffffff") >= _contrast(color, DARK_INK) else DARK_INK


def graph_payload(export) -> dict:
    """The Memory Graph for the browser: nodes placed by community (deterministic, no physics), typed
    edges, clusters and stats. Communities sit on a sunflower spiral, their members on a smaller one,
    so clusters read as islands at any size without an O(n²) layout.

    The drawing data is columnar, to stay small at thousands of nodes (5,000 nodes and 20,000 edges
    are ~0.8 MB instead of ~3.6 MB as one object per node and edge): `nodes` holds one list per field
    (`cluster` and `segment` are indexes into `clusters` and `segments`), `edges` is a flat list of
    source index, target index, kind index triples, and colours follow from the cluster (nodes) and
    the kind's strength (edges, `kind_strength`) in the browser."""
    import math

    from memory.templatetags.reveal import reveal_text  # labels are drawn as text: invisible characters shown

    golden = math.pi * (3 - math.sqrt(5))
    # Facts without any link are not drawn (each would be a "community" of one): the page counts them.
    linked = {end for e in export.edges for end in (e.source, e.target)}
    members: dict[str, list] = {}
    for node in export.nodes:
        if node.id in linked:
            members.setdefault(node.cluster_id, []).append(node)
    order = sorted(members, key=lambda cid: (-len(members[cid]), cid))
    segments = sorted({node.segment for node in export.nodes})
    segment_index = {name: i for i, name in enumerate(segments)}
    # Only the communities that have a drawn node, in the export's order (by size).
    drawn = [c for c in export.clusters if c.id in members]
    cluster_index = {c.id: i for i, c in enumerate(drawn)}
    # Every community the page names (drawn, or of more than one fact) has a number, 1 for the largest,
    # and the colour that goes with it.
    numbered = [c for c in export.clusters if c.id in members or c.size > 1]
    number_of = {c.id: i + 1 for i, c in enumerate(numbered)}
    color_of = {c.id: PALETTE[i % len(PALETTE)] for i, c in enumerate(numbered)}
    columns: dict[str, list] = {"id": [], "label": [], "x": [], "y": [], "size": [], "cluster": [], "segment": []}
    area = 0.0
    for index, cid in enumerate(order):
        group = sorted(members[cid], key=lambda n: (-n.importance, n.id))
        radius = math.sqrt(len(group)) * 1.2
        # Vogel's sunflower weighted by area: the k-th community sits at twice the root of the area of
        # the bigger ones before it, so islands stay apart without the drawing growing faster than the
        # memory (a spiral that grew by each radius spread 5,000 facts so thin that every community
        # shrank to a dot).
        distance = 2.0 * math.sqrt(area)
        cx, cy = distance * math.cos(index * golden), distance * math.sin(index * golden)
        area += radius * radius
        for i, node in enumerate(group):
            r = math.sqrt(i + 0.5) * 1.1
            columns["id"].append(node.id)
            columns["label"].append(reveal_text(node.label))
            columns["x"].append(round(cx + r * math.cos(i * golden), 2))
            columns["y"].append(round(cy + r * math.sin(i * golden), 2))
            columns["size"].append(round(3 + 6 * node.importance, 1))
            columns["cluster"].append(cluster_index[cid])
            columns["segment"].append(segment_index[node.segment])
    position = {node_id: i for i, node_id in enumerate(columns["id"])}
    kinds = sorted({e.kind for e in export.edges})
    kind_index = {name: i for i, name in enumerate(kinds)}
    strength_of = {e.kind: e.strength for e in export.edges}
    edges: list[int] = []
    for e in export.edges:
        edges += (position[e.source], position[e.target], kind_index[e.kind])
    clusters = [{"id": c.id, "label": reveal_text(c.label), "size": c.size, "representative": c.representative,
                 "color": color_of[c.id], "number": number_of[c.id], "ink": ink_on(color_of[c.id])} for c in drawn]  # fmt: skip
    stats = export.stats
    data = {"nodes": columns, "edges": edges, "segments": segments, "kinds": kinds,
            "kind_strength": [strength_of[k] for k in kinds], "strength_colors": KIND_COLORS, "clusters": clusters}  # fmt: skip
    return {
        "data": data, "node_count": len(columns["id"]), "edge_count": len(export.edges), "kinds": kinds,
        "segments": segments,
        # The 50 largest communities (of every active fact, drawn or not) for the list and the filter.
        "clusters": [{"id": c.id, "label": c.label, "size": c.size, "color": color_of[c.id], "number": number_of[c.id],
                      "ink": ink_on(color_of[c.id])} for c in export.clusters if c.size > 1][:LEGEND_COMMUNITIES],
        "stats": {"total_memories": stats.total_memories, "connections": stats.connections,
                  "clusters": sum(1 for c in export.clusters if c.size > 1), "isolated": stats.isolated,
                  "by_type": stats.by_type, "added_last_7d": stats.added_last_7d, "modularity": stats.modularity},
    }  # fmt: skip
