"""The review queue at scale: page times, verdict times and the nightly pass on a big workspace.

    python -m bench.governance.queue [--facts 100000] [--items 10000] [--repeat 30] [--verdicts 40]
                                     [--no-dream] [--workspace NAME] [--json]

Seeds a fresh workspace of `--facts` synthetic facts (memory's benchmark corpus, every 50th fact
holding a subject slot, one fact in ten from a channel peer) through the bulk import path, and
`--items` open review items (plus a quarter as many decided ones) with one `bulk_create`, spread over
90 days. Then, on the warm server, times as a signed-in owner through Django's test client:

* the queue page in its common views (default, a kind tab, origin + age filters, a later page, the
  strongest-first sort, the htmx table partial and the `?q=` search, which stops at SEARCH_CAP items);
* a verdict (`governance.services.verdicts.decide`, supersede) and its undo, each on its own item;
* the nightly pass as `governance.tasks.run_nightly_everywhere` runs it for one workspace: the
  dream, then the contradiction pass end to end (`find_contradictions`: reading and decrypting the
  active facts, detecting, opening at most the run's cap of items), each reported on its own, and
  the contradiction pass's read and detector split out.

Run it on a scratch database: each run leaves its workspace (a unique name) behind. The figures
in docs/BENCHMARKS.md are copied from its output, with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

OWNER = "qbench-owner"
PARTS = ("pages", "verdicts", "nightly")
PAGE_CASES = ("default", "kind tab", "origin + age", "page 2", "page 200", "strongest first", "htmx table",
              "search ?q=")  # fmt: skip
CHANNEL = {
    "kind": "channel",
    "channelId": "slack",
    "accountId": "acme",
    "conversationId": "ops",
    "sessionKey": "s1",
}


def _progress(label: str, total: int, quiet: bool) -> Callable[[int], None]:
    """A counter on stderr that rewrites its line: seeding 100,000 facts takes minutes."""
    done = [0]

    def step(count: int) -> None:
        done[0] += count
        if not quiet:
            print(
                f"\r  {label}: {done[0]:,}/{total:,}",
                end="" if done[0] < total else "\n",
                file=sys.stderr,
                flush=True,
            )

    return step


def seed_facts(facts: int, *, seed: int = 7, quiet: bool = False):
    """A fresh workspace of `facts` facts through the bulk import path, and an owner who can sign in."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bench.memory.corpus import Corpus
    from memory.engine.facts import records as R
    from memory.models import Membership
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts
    from memory.timestamps import to_ms

    workspace = create_workspace(f"qbench-{facts}-{int(time.time() * 1000)}", actor="bench")
    rng = random.Random(seed)
    now_ms = to_ms(timezone.now())
    lines = []
    for index, fact in enumerate(Corpus(seed=seed).facts(facts)):
        defaults = R.SEGMENT_DEFAULTS[fact.segment]
        created = now_ms - int(rng.random() ** 2 * 365 * 86_400_000) - index
        used = now_ms - int(rng.random() * 3 * 86_400_000)  # in use lately: the dream keeps it active
        channel = index % 10 == 9
        record = {
            "memoryId": f"mem_q_{index:07d}", "content": fact.content, "segment": fact.segment,
            "tier": defaults.tier, "importance": defaults.importance, "decayRate": defaults.decay_rate,
            "accessCount": rng.randint(1, 5), "lastAccessedAt": max(used, created), "createdAt": created, "lifecycle": "active",
            "createdBy": CHANNEL if channel else {"kind": "owner"},
            "sourceType": "channel_message" if channel else "owner_message",
        }  # fmt: skip
        if index % 50 == 0:
            record["subjectKey"] = f"slot_{index // 100}"  # two facts per slot: a slot conflict to find
        lines.append(json.dumps(record))
    report = import_facts(workspace=workspace, lines=lines, actor="bench", source_name="qbench", strict=True,
                          progress=_progress("facts", facts, quiet))  # fmt: skip
    if report.refused:
        raise SystemExit(f"seeding refused {len(report.refused)} lines, e.g. {report.refused[0]}")
    user, _ = get_user_model().objects.get_or_create(username=OWNER)
    Membership.objects.get_or_create(user=user, workspace=workspace, role="owner")
    workspace.refresh_from_db()
    return workspace, user


def seed_items(workspace, items: int, *, seed: int = 7, quiet: bool = False) -> dict[str, int]:
    """`items` open review items and `items // 4` decided ones, in bulk, opened over the last 90 days.

    Seven in ten are contradictions between two facts of one origin, two held writes and one durable
    promotion. Returns how many of each kind are open."""
    from django.utils import timezone

    from governance.models import ReviewItem
    from memory.models import Fact

    rng = random.Random(seed)
    by_origin: dict[str, list[tuple[int, str]]] = {}
    for pk, memory_id, origin in Fact.objects.filter(workspace=workspace).values_list(
        "pk", "memory_id", "origin_key"
    ):
        by_origin.setdefault(origin, []).append((pk, memory_id))
    pools = list(by_origin.items())
    weights = [len(pool) for _, pool in pools]
    step = _progress("review items", items + items // 4, quiet)
    used: set[tuple[int, int]] = set()
    rows, counts = [], dict.fromkeys(ReviewItem.Kind.values, 0)
    while len(rows) < items + items // 4:
        origin_key, pool = rng.choices(pools, weights)[0]
        (a, a_id), (b, b_id) = rng.sample(pool, 2)
        if (a, b) in used or (b, a) in used:
            continue
        used.add((a, b))
        kind = rng.choices(["contradiction", "quarantine", "promotion"], [7, 2, 1])[0]
        opened = len(rows) < items
        status = "open" if opened else rng.choice(["resolved", "dismissed"])
        counts[kind] += opened
        score = round(rng.uniform(0.55, 0.95), 4)
        rows.append(ReviewItem(
            workspace=workspace, kind=kind, status=status, fact_id=b, other_fact_id=a, fact_memory_id=b_id,
            other_memory_id=a_id, fact_origin_key=origin_key, other_origin_key=origin_key,
            reason=f"same subject; values differ ({kind} bench item)",
            details={"score": score, "signal": "value"} if kind == "contradiction" else {},
            resolved_at=None if opened else timezone.now(),
        ))  # fmt: skip
    for start in range(0, len(rows), 2000):
        ReviewItem.objects.bulk_create(rows[start : start + 2000])
        step(len(rows[start : start + 2000]))
    # `created_at` is auto_now_add: spread it afterwards, one update per day, none today (the nightly
    # pass's daily cap counts what was opened today).
    pks = list(ReviewItem.objects.filter(workspace=workspace).order_by("pk").values_list("pk", flat=True))
    now = timezone.now()
    for day in range(90):
        ReviewItem.objects.filter(pk__in=pks[day::90]).update(
            created_at=now - timedelta(days=day + 1, minutes=day)
        )
    return counts


def summarise(samples: list[float]) -> dict[str, float]:
    from bench.memory.writes import LatencySummary

    return _rounded(LatencySummary.of(samples))


def _rounded(summary) -> dict[str, float]:
    return {"n": summary.count, "p50_ms": round(summary.p50_ms, 1), "p95_ms": round(summary.p95_ms, 1),
            "max_ms": round(summary.max_ms, 1)}  # fmt: skip


def page_urls(workspace) -> dict[str, tuple[str, dict]]:
    from bench.memory.corpus import Corpus

    base = f"/w/{workspace.name}/review/"
    channel_key = "channel:" + json.dumps(["slack", "acme", "ops", "s1"], separators=(",", ":"))
    word = Corpus(seed=7).pools["thing"][0]  # the corpus's most common thing: many facts hold it
    return {
        "default": (base, {}),
        "kind tab": (f"{base}?kind=quarantine", {}),
        "origin + age": (f"{base}?origin={channel_key}&age=30", {}),
        "page 2": (f"{base}?page=2", {}),
        "page 200": (f"{base}?page=200", {}),
        "strongest first": (f"{base}?sort=strongest&page=3", {}),
        "htmx table": (f"{base}?kind=contradiction&page=2", {"HTTP_HX_REQUEST": "true"}),
        "search ?q=": (f"{base}?q={word}", {}),
    }


# Open review items `tideline bench` gives its workspace before timing the queue (at most one per fact).
CONSOLE_ITEMS = 10_000


def console_pages(workspace, user) -> dict[str, tuple[str, dict]]:
    """The review queue among `tideline bench`'s console pages (bench.memory.pages): a bench workspace
    starts with no review items, so it is given `CONSOLE_ITEMS` open ones first, as this module's own
    run does; then the queue's first page, a deep page and its search."""
    from governance.models import ReviewItem
    from memory.models import Fact

    if not ReviewItem.objects.filter(workspace=workspace, status="open").exists():
        facts = Fact.objects.filter(workspace=workspace).count()
        if facts >= 4:
            seed_items(workspace, min(CONSOLE_ITEMS, facts), quiet=True)
    urls = page_urls(workspace)
    return {"review queue": urls["default"], "review queue, page 200": urls["page 200"],
            "review queue, search": urls["search ?q="]}  # fmt: skip


def time_pages(workspace, user, repeat: int) -> dict[str, dict]:
    """Server time of each queue view, warmed once, then `repeat` requests (test client, real views)."""
    from django.test import Client

    from bench.memory.pages import time_page
    from memory.services.errors import RequestError

    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    out = {}
    for label, (url, headers) in page_urls(workspace).items():
        try:
            summary = time_page(client, url, repeat, headers)
        except RequestError as error:  # this module's own run stops with the message, as before
            raise SystemExit(f"{label}: {error.message}") from None
        out[label] = {**_rounded(summary), "url": url}
    return out


def time_verdicts(workspace, user, count: int) -> dict[str, dict]:
    """`count` supersede verdicts and their undos, through the service, each on a different open item."""
    from governance.models import ReviewItem
    from governance.services import verdicts

    actor = f"user:{user.get_username()}"
    # Both facts active: after a dream some items name a fact it merged, which a verdict refuses.
    pks = list(ReviewItem.objects.filter(workspace=workspace, status="open", kind="contradiction",
                                         fact__lifecycle="active", other_fact__lifecycle="active")
               .order_by("-created_at", "-id").values_list("pk", flat=True)[: count * 3])  # fmt: skip
    decided, undone = [], []
    for pk in pks[::3][:count]:  # every third: no two verdicts share a fact by chance of the newest items
        started = time.perf_counter()
        verdicts.decide(workspace, pk, "supersede", actor=actor, user=user)
        decided.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        verdicts.undo(workspace, pk, actor=actor)
        undone.append((time.perf_counter() - started) * 1000)
    return {"decide (supersede)": summarise(decided), "undo": summarise(undone)}


def _timed(work: Callable[[], Any]) -> tuple[Any, dict[str, float]]:
    """`work()`, its wall-clock seconds and this process's CPU seconds (the machine may be shared:
    the CPU figure is what the pass itself cost here, the database's work not included)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, {
        "seconds": round(time.perf_counter() - wall, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def time_nightly(workspace, *, dream: bool, breakdown: bool = True) -> dict[str, Any]:
    """The nightly task's two passes for one workspace, each timed end to end."""
    from governance.engine.contradiction_rules import ClaimRecord, find_candidates
    from governance.services import contradictions
    from memory.engine.facts import records as R
    from memory.services.maintenance import passes as maintenance

    def read() -> list[ClaimRecord]:  # as the contradiction service reads them
        return [ClaimRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                           subject_key=f.subject_key or "", trusted=f.source_type not in R.UNTRUSTED_SOURCE_TYPES,
                           created_ms=int(f.created_at)) for f in maintenance.maint_facts(workspace)]  # fmt: skip

    out: dict[str, Any] = {}
    if dream:
        report, times = _timed(lambda: maintenance.run_dream(workspace, actor="bench:dream"))
        out["dream"] = {**times, "counts": report.counts}
    if breakdown:  # the two halves of the pass on their own (the pass itself is timed below)
        records, times = _timed(read)
        out["contradictions: read facts"] = {**times, "facts": len(records)}
        detection, times = _timed(lambda: find_candidates(records))
        out["contradictions: detector"] = {**times, "pairs_scored": detection.pairs_scored,
                                           "found": len(detection.candidates)}  # fmt: skip
    report, times = _timed(
        lambda: contradictions.find_contradictions(workspace, actor="bench:contradictions")
    )
    out["contradiction pass"] = {**times, "counts": report.counts}
    return out


def reuse(name: str):
    """A workspace an earlier run seeded (`--workspace`), its owner, and its open items per kind."""
    from django.contrib.auth import get_user_model

    from governance.selectors import open_counts_by_kind
    from memory.models import Membership, Workspace

    workspace = Workspace.objects.filter(name=name).first()
    if workspace is None:
        raise SystemExit(f"no workspace {name!r} in this database")
    user, _ = get_user_model().objects.get_or_create(username=OWNER)
    Membership.objects.get_or_create(user=user, workspace=workspace, role="owner")
    return workspace, user, open_counts_by_kind(workspace)


def run(facts: int, items: int, *, repeat: int = 30, verdict_count: int = 40, dream: bool = True,
        breakdown: bool = True, quiet: bool = False, workspace_name: str = "",
        parts: tuple[str, ...] = PARTS) -> dict[str, Any]:  # fmt: skip
    from django.db import connection

    from governance.models import ReviewItem
    from memory.models import Fact, Link

    started = time.perf_counter()
    if workspace_name:
        workspace, user, open_by_kind = reuse(workspace_name)
        facts, items = workspace.facts.count(), sum(open_by_kind.values())
    else:
        workspace, user = seed_facts(facts, quiet=quiet)
        open_by_kind = seed_items(workspace, items, quiet=quiet)
    seeded = time.perf_counter() - started
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # fresh statistics, as autovacuum would have them by now
            for model in (Fact, Link, ReviewItem):
                cursor.execute("ANALYZE " + connection.ops.quote_name(model._meta.db_table))
    if not quiet:
        print(f"  seeded in {seeded:.0f} s", file=sys.stderr, flush=True)
    pages = time_pages(workspace, user, repeat) if "pages" in parts else {}
    decisions = time_verdicts(workspace, user, verdict_count) if "verdicts" in parts else {}
    nightly = time_nightly(workspace, dream=dream, breakdown=breakdown) if "nightly" in parts else {}
    return {"database": connection.vendor, "workspace": workspace.name, "facts": facts, "open_items": items,
            "open_by_kind": open_by_kind, "seed_seconds": round(seeded, 1), "pages": pages,
            "verdicts": decisions, "nightly": nightly}  # fmt: skip


def print_report(result: dict[str, Any]) -> None:
    print(f"{result['facts']:,} facts, {result['open_items']:,} open review items {result['open_by_kind']}, "
          f"{result['database']} (seeded in {result['seed_seconds']} s)")  # fmt: skip
    print("review queue page")
    for label, row in result["pages"].items():
        print(f"  {label:<18} p50 {row['p50_ms']:7.1f} ms   p95 {row['p95_ms']:7.1f} ms   (n={row['n']})")
    print("verdicts")
    for label, row in result["verdicts"].items():
        print(f"  {label:<18} p50 {row['p50_ms']:7.1f} ms   p95 {row['p95_ms']:7.1f} ms   (n={row['n']})")
    print("nightly")
    for label, row in result["nightly"].items():
        extra = {key: value for key, value in row.items() if key not in ("seconds", "cpu_seconds")}
        print(f"  {label:<28} {row['seconds']:7.2f} s   (CPU {row['cpu_seconds']:.2f} s)   {extra}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.governance.queue", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=10_000, help="open review items")
    parser.add_argument("--repeat", type=int, default=30, help="timed requests per page view")
    parser.add_argument("--verdicts", type=int, default=40, help="timed verdicts (and as many undos)")
    parser.add_argument(
        "--no-dream", action="store_true", help="skip the dream before the contradiction pass"
    )
    parser.add_argument("--workspace", default="", help="time a workspace an earlier run seeded (no seeding)")
    parser.add_argument("--parts", default=",".join(PARTS), help="which parts to time (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if (
        args.facts < 10
        or args.items < 1
        or args.items * 2 > args.facts
        or args.repeat < 1
        or args.verdicts < 1
    ):
        parser.error("need --facts ≥ 10, 1 ≤ --items ≤ facts/2, --repeat ≥ 1 and --verdicts ≥ 1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    result = run(
        args.facts,
        args.items,
        repeat=args.repeat,
        verdict_count=args.verdicts,
        dream=not args.no_dream,
        workspace_name=args.workspace,
        parts=tuple(args.parts.split(",")),
    )
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
