"""Many workspaces on one database, as a hosted deployment holds them (docs/BENCHMARKS.md, "Many workspaces").

    DATABASE_URL=postgres://…/scratch python -m bench.governance.workspaces_load [--workspaces 10000]
        [--facts 2000000] [--largest 50000] [--seeders 2] [--rate 100] [--seconds 60] [--zipf 1.1]
        [--workers 2] [--writers 16] [--write-seconds 30] [--passes] [--reuse PREFIX] [--json]

1. **Seed** `--workspaces` workspaces holding about `--facts` facts between them, sizes drawn from a
   log-normal law (most a few dozen to a few hundred facts) with the largest few at `--largest`,
   through the bulk import path in `--seeders` processes, each doing what the worker does after an
   import (the recall snapshots of origins of 200 facts or more) before the next workspace; each
   workspace gets an owner read token and a write token. Five more workspaces of exactly 1,000 facts stay out of the load, for the cold
   recall. What was seeded is kept in the run's var folder, so `--reuse PREFIX` measures it again.
   Then `VACUUM ANALYZE`, as autovacuum would have run by then (`vacuum`).
2. **Serve** with `--workers` web processes and the worker, as `tideline serve` runs them, none warmed.
3. **Cold recall**: the first recall of each 1,000-fact workspace, on a new connection: its index
   is built inside the request.
4. **Recall, open loop** at `--rate` for `--seconds`, twice: the first period right after the
   processes started (every index cold), then the next (the popular ones warm, a steady stream of
   cold ones). Each request asks a workspace drawn with Zipf
   (`--zipf`) popularity over a random order of the workspaces, with that workspace's token and a
   question made of one of its facts' words, so most requests go to a few workspaces and a steady
   stream to ones no process holds. Latency counts from when a request was due. Meanwhile a person
   signed in to the console (owner, approver and admin of the 50 most asked workspaces) opens their
   inbox and the most asked workspace's overview, each about once a second. The resident memory
   of every web process is sampled throughout. Isolation: every hit of a sample of answers must be a
   fact of the asking workspace.
5. **Writes**, closed loop: `--writers` writers each writing into workspaces drawn at random; the
   facts are counted in the database afterwards, so a write answered 201 and lost would show. The
   console person goes on opening the same two pages.
6. **Passes** (`--passes`): the scheduled decay GC and the night (dream and contradictions) over
   every workspace, in this process one workspace after another as one worker runs them; then both
   schedules again, which must skip every workspace nothing touched (`memory.services.maintenance.due`).

Run it on a scratch database: it leaves its workspaces behind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from bench.governance.api_load import _free_port, _percentile, _wait_for
from bench.governance.http_client import LoopbackClient
from bench.memory.resident import resident_mb

COLD_SIZE = 1000
COLD_COUNT = 5
QUERIES_PER_WORKSPACE = 3
CONSOLE_WORKSPACES = 50  # the console person's workspaces: the most asked
METRICS_TOKEN = "bench-workspaces-load-metrics"  # the web processes here answer /metrics to this bench alone


def sizes(workspaces: int, facts: int, largest: int, seed: int = 5) -> list[int]:
    """Heavy-tailed workspace sizes summing to about `facts`: log-normal, at least 20, the largest few
    (one in 2,000, at least one) at `largest`, the rest scaled so the total comes out right."""
    rng = np.random.default_rng(seed)
    drawn = np.clip(rng.lognormal(mean=math.log(90), sigma=1.3, size=workspaces), 20, largest)
    giants = max(1, workspaces // 2000) if facts >= largest * 2 else 0
    order = np.argsort(-drawn)
    drawn[order[:giants]] = largest
    rest = order[giants:]
    wanted = max(facts - giants * largest, 20 * rest.size)
    if rest.size and drawn[rest].sum() > 0:
        drawn[rest] = np.clip(drawn[rest] * wanted / drawn[rest].sum(), 20, largest)
    return [int(round(s)) for s in drawn]


def _seed_slice(args: tuple[str, list[tuple[int, int]], str]) -> list[dict]:
    """One seeding process: create, import and issue tokens for its share of the workspaces."""
    prefix, jobs, settings_module = args
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings_module)
    # What the worker does after each import (the recall snapshots of the workspace's large origins)
    # runs here, inside the seed's time, so no backlog of it is left for the load.
    os.environ["TIDELINE_Q_SYNC"] = "1"
    import django

    django.setup()
    from django.db import connection
    from django.utils import timezone

    from bench.memory.corpus import Corpus
    from bench.memory.writes import import_line
    from governance.services import tokens
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts
    from memory.timestamps import to_ms

    out = []
    corpus = Corpus(seed=jobs[0][0] if jobs else 0)
    now_ms = to_ms(timezone.now())
    for number, size in jobs:
        name = f"{prefix}-{number}"
        workspace = create_workspace(name, actor="bench")
        facts = list(corpus.facts(size))
        contents = [fact.content for fact in facts]
        lines = [import_line(f"mem_{number}_{index}", fact, now_ms - (size - index) * 60_000)
                 for index, fact in enumerate(facts)]  # fmt: skip
        import_facts(workspace=workspace, lines=lines, actor="bench", source_name="bench")
        read = tokens.create_token(workspace, name="load-reader", origin="owner", verbs="read", actor="bench")[1]
        write = tokens.create_token(workspace, name="load-writer", origin="owner", verbs="write",
                                    source="owner_message", actor="bench")[1]  # fmt: skip
        picks = random.Random(number).sample(contents, min(QUERIES_PER_WORKSPACE, len(contents)))
        out.append({"name": name, "facts": size, "read": read, "write": write,
                    "queries": [" ".join(c.rstrip(".").split()[1:4]) for c in picks]})  # fmt: skip
    connection.close()
    return out


def seed(prefix: str, plan: list[int], processes: int) -> list[dict]:
    """Seed every workspace of `plan` (sizes; the cold ones last), spread over `processes`."""
    jobs = list(enumerate(plan))
    random.Random(1).shuffle(jobs)  # each process gets small and large alike
    slices = [(prefix, jobs[i::processes], os.environ["DJANGO_SETTINGS_MODULE"]) for i in range(processes)]
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes) as pool:
        seeded = [w for part in pool.map(_seed_slice, slices) for w in part]
    return sorted(seeded, key=lambda w: int(w["name"].rsplit("-", 1)[1]))


class RssSampler(threading.Thread):
    """The resident memory of each process, sampled every `every` seconds; the peak per process."""

    def __init__(self, pids: list[int], every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.pids, self.every, self.peak_mb = pids, every, {pid: 0.0 for pid in pids}
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            for pid in self.pids:
                self.peak_mb[pid] = max(self.peak_mb[pid], resident_mb(pid))
            self.stopped.wait(self.every)


def cpu_seconds(pids: list[int] | None = None, command: str = "") -> float:
    """User and system CPU seconds used so far by these processes, or by every process named `command`."""
    if pids is None:
        pids = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if command and name != command:
            continue
        total += int(rest[11]) + int(rest[12])  # utime, stime
    return total / tick


@dataclass
class Load:
    offered_per_s: float
    seconds: float
    workspaces_asked: int = 0
    sent: int = 0
    ok: int = 0
    errors: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    first_ask_p50_ms: float = 0.0  # a workspace's first request in the run (its index likely cold)
    first_ask_p99_ms: float = 0.0
    later_p50_ms: float = 0.0
    isolation_checked: int = 0
    isolation_violations: int = 0


def popularity(count: int, exponent: float, seed: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Zipf probabilities over ranks 1…count, and which workspace holds each rank (a random order)."""
    weights = 1.0 / np.arange(1, count + 1, dtype=np.float64) ** exponent
    return weights / weights.sum(), np.random.default_rng(seed).permutation(count)


async def recall_load(url: str, workspaces: list[dict], rate: float, seconds: float, exponent: float,
                      connections: int = 64, sample_every: int = 10, seen: set[int] | None = None,
                      seed: int = 17) -> tuple[Load, list[tuple[str, list[str]]]]:  # fmt: skip
    """One open-loop minute (or `seconds`); `seen`: the workspaces asked before, in an earlier phase."""
    load = Load(rate, seconds)
    probabilities, holder = popularity(len(workspaces), exponent)
    rng = np.random.default_rng(seed)
    total = int(rate * seconds)
    picks = holder[rng.choice(len(workspaces), size=total, p=probabilities)]
    seen = set() if seen is None else seen
    asked: set[int] = set()
    first: list[float] = []
    later: list[float] = []
    sampled: list[tuple[str, list[str]]] = []
    async with LoopbackClient(url, connections=connections) as client:
        start = time.perf_counter()

        async def one(n: int, due: float, index: int, cold: bool) -> None:
            w = workspaces[index]
            query = w["queries"][n % len(w["queries"])] if w["queries"] else "anything at all"
            try:
                code, body = await client.post_json("/api/v1/recall", {"query": query, "k": 8},
                                                    {"Authorization": f"Bearer {w['read']}"})  # fmt: skip
                status = str(code)
            except Exception as error:  # noqa: BLE001 — counted as an error, the load goes on
                status, body = type(error).__name__, b""
            ms = (time.perf_counter() - due) * 1000
            load.statuses[status] = load.statuses.get(status, 0) + 1
            if status != "200":
                load.errors += 1
                return
            load.ok += 1
            (first if cold else later).append(ms)
            if n % sample_every == 0:
                sampled.append((w["name"], [hit["id"] for hit in json.loads(body).get("hits", [])]))

        tasks = []
        for n, index in enumerate(picks.tolist()):
            due = start + n / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            cold = index not in seen
            seen.add(index)
            asked.add(index)
            tasks.append(asyncio.create_task(one(n, due, index, cold)))
            load.sent += 1
        await asyncio.gather(*tasks)
    every = sorted(first + later)
    load.workspaces_asked = len(asked)
    load.p50_ms = round(statistics.median(every), 2) if every else 0.0
    load.p90_ms, load.p99_ms = round(_percentile(every, 0.90), 2), round(_percentile(every, 0.99), 2)
    load.max_ms = round(every[-1], 2) if every else 0.0
    first.sort()
    load.first_ask_p50_ms = round(statistics.median(first), 2) if first else 0.0
    load.first_ask_p99_ms = round(_percentile(first, 0.99), 2)
    load.later_p50_ms = round(statistics.median(later), 2) if later else 0.0
    return load, sampled


def console_session(loaded: list[dict], exponent: float, count: int = CONSOLE_WORKSPACES) -> tuple[str, list[str]]:
    """A new person, owner, approver and admin of the `count` most asked workspaces, signed in:
    (their session key, those workspaces' names, most asked first)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    from memory.models import Membership, Workspace

    names = [loaded[i]["name"] for i in popularity(len(loaded), exponent)[1][:count].tolist()]
    user = get_user_model().objects.create_user(f"console-{uuid.uuid4().hex[:8]}", password=uuid.uuid4().hex)
    Membership.objects.bulk_create([Membership(user=user, workspace=ws, role=role)
                                    for ws in Workspace.objects.filter(name__in=names)
                                    for role in ("owner", "approver", "admin")])  # fmt: skip
    session = SessionStore()
    session[SESSION_KEY], session[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key, names


def _probe_console(args: tuple[str, str, dict[str, str], float, float]) -> dict:
    """One process: GET each page of `pages` (label → path) in turn, one every `every` seconds, for
    `seconds`, signed in with `session`; the latencies (ms) and statuses by label."""
    url, session, pages, seconds, every = args
    import httpx2

    latencies: dict[str, list[float]] = {label: [] for label in pages}
    statuses: dict[str, int] = {}
    deadline, n = time.perf_counter() + seconds, 0
    with httpx2.Client(base_url=url, cookies={"sessionid": session}, timeout=60) as client:
        while (started := time.perf_counter()) < deadline:
            label = list(pages)[n % len(pages)]
            n += 1
            try:
                status = str(client.get(pages[label]).status_code)
            except Exception as error:  # noqa: BLE001 — counted, the probe goes on
                status = type(error).__name__
            statuses[status] = statuses.get(status, 0) + 1
            latencies[label].append((time.perf_counter() - started) * 1000)
            time.sleep(max(0.0, every - (time.perf_counter() - started)))
    return {"statuses": statuses, **{label: {"n": len(v), "p50_ms": round(statistics.median(v), 1) if v else 0.0,
                                             "p95_ms": round(_percentile(sorted(v), 0.95), 1)}
                                     for label, v in latencies.items()}}  # fmt: skip


def probing_console(url: str, session: str, names: list[str], seconds: float):
    """Start the console probe (`_probe_console`) in a process of its own, so the load's event loop
    shares no interpreter with it: the inbox (`/`) and the most asked workspace's overview, each about
    once a second. Returns the pending result (`.get()` it after the phase)."""
    pages = {"inbox": "/", "dashboard": f"/w/{names[0]}/"}
    pool = multiprocessing.get_context("spawn").Pool(1)
    result = pool.apply_async(_probe_console, ((url, session, pages, seconds, 0.5),))
    pool.close()
    return result


def check_isolation(load: Load, sampled: list[tuple[str, list[str]]]) -> None:
    """Every sampled hit must be a fact of the workspace that asked (read back from the database)."""
    from memory.models import Fact

    ids = {i for _, hits in sampled for i in hits}
    home = {}
    listed = sorted(ids)
    for start in range(0, len(listed), 2000):
        home.update(Fact.objects.filter(memory_id__in=listed[start : start + 2000]).values_list("memory_id", "workspace__name"))
    load.isolation_checked = sum(len(hits) for _, hits in sampled)
    load.isolation_violations = sum(home.get(i) != name for name, hits in sampled for i in hits)


def seeded_record(prefix: str) -> Path:
    """Where a run keeps the workspaces it seeded under `prefix` (names, sizes, tokens, queries), for
    `--reuse` here and in the benches that measure the same workspaces again. Needs Django's settings."""
    from django.conf import settings

    return Path(settings.VAR_DIR) / f"{prefix}.json"


def cold_recalls(url: str, cold: list[dict]) -> list[float]:
    """The first recall of each untouched workspace, each on a new connection (ms)."""
    import httpx2

    out = []
    limits = httpx2.Limits(max_keepalive_connections=0)
    with httpx2.Client(base_url=url, timeout=120, limits=limits) as client:
        for w in cold:
            started = time.perf_counter()
            answer = client.post("/api/v1/recall", json={"query": w["queries"][0], "k": 8},
                                 headers={"Authorization": f"Bearer {w['read']}"})  # fmt: skip
            answer.raise_for_status()
            out.append(round((time.perf_counter() - started) * 1000, 1))
    return out


async def spread_writes(url: str, workspaces: list[dict], writers: int, seconds: float) -> dict:
    """Closed loop: each writer writes into a workspace drawn at random each time."""
    created: dict[str, int] = {}
    statuses: dict[str, int] = {}
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    from bench.memory.corpus import Corpus

    # Sentences of the bench corpus drawn afresh each run: distinct facts, not near-duplicates that
    # the write path would rightly answer with the fact already there (200, not 201).
    contents = [f.content for f in Corpus(seed=int(time.time())).facts(int(writers * seconds * 40))]
    async with LoopbackClient(url, connections=writers) as client:

        async def writer(number: int) -> None:
            rng = random.Random(number)
            n = 0
            while time.perf_counter() < deadline:
                n += 1
                w = workspaces[rng.randrange(len(workspaces))]
                body = {"content": contents[(number + writers * n) % len(contents)], "segment": "knowledge"}
                started = time.perf_counter()
                try:
                    code, _ = await client.post_json("/api/v1/memories", body, {"Authorization": f"Bearer {w['write']}"})
                    status = str(code)
                except Exception as error:  # noqa: BLE001
                    status = type(error).__name__
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                if status == "201":
                    created[w["name"]] = created.get(w["name"], 0) + 1

        began = time.perf_counter()
        await asyncio.gather(*(writer(i) for i in range(writers)))
        elapsed = time.perf_counter() - began
    ordered = sorted(latencies)
    return {"writers": writers, "seconds": round(elapsed, 1), "workspaces_written": len(created),
            "created": sum(created.values()), "statuses": statuses, "per_s": round(sum(created.values()) / elapsed, 1),
            "p50_ms": round(statistics.median(ordered), 2) if ordered else 0.0,
            "p99_ms": round(_percentile(ordered, 0.99), 2), "by_workspace": created}  # fmt: skip


def index_builds(url: str, since: dict | None = None) -> dict[str, dict[str, float]]:
    """Recall index builds the web processes made, by source: how many and their seconds (from
    `/metrics`, every process's samples summed); with `since`, only those made after it."""
    import httpx2
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx2.get(f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=60).text
    out: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        if family.name != "tideline_recall_index_build_seconds":
            continue
        for sample in family.samples:
            part = {"tideline_recall_index_build_seconds_count": "count",
                    "tideline_recall_index_build_seconds_sum": "seconds"}.get(sample.name)  # fmt: skip
            if part:
                before = (since or {}).get(sample.labels["source"], {}).get(part, 0.0)
                out.setdefault(sample.labels["source"], {})[part] = round(sample.value - before, 3)
    return out


def vacuum() -> float | None:
    """VACUUM ANALYZE the database before the load, as autovacuum would have done by then on a server
    that runs it (PostgreSQL's default; this machine's server runs with it off, and then the planner
    sees no statistics for what was just seeded and every count reads the table, not the index alone).
    The seconds it took; None on SQLite."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return round(time.perf_counter() - started, 1)


def fact_counts(prefix: str) -> dict[str, int]:
    """Facts per workspace of this run (one grouped query)."""
    from django.db.models import Count

    from memory.models import Fact

    rows = (Fact.objects.filter(workspace__name__startswith=f"{prefix}-").values("workspace__name")
            .annotate(n=Count("id")).values_list("workspace__name", "n"))  # fmt: skip
    return dict(rows)


def passes() -> dict:
    """The scheduled GC and night over every workspace, one after another (as one worker runs the
    queued tasks), then both again: the second time only what changed or came due is visited."""
    from django_q.conf import Conf

    from governance import tasks as governance_tasks
    from memory import tasks as memory_tasks

    Conf.SYNC = True  # each queued task runs here, in turn, as one worker would run them
    out = {}
    for label, schedule in (("gc", memory_tasks.run_gc_everywhere), ("nightly", governance_tasks.run_nightly_everywhere)):
        for attempt in ("first", "again"):
            started = time.perf_counter()
            visited = len(schedule())
            out[f"{label}_{attempt}"] = {"visited": visited, "seconds": round(time.perf_counter() - started, 2)}
            print(f"  {label} ({attempt}): {visited:,} workspaces visited in {out[f'{label}_{attempt}']['seconds']} s",
                  file=sys.stderr, flush=True)  # fmt: skip
    return out


def serve_and_load(args, prefix: str, loaded: list[dict], cold: list[dict]) -> dict:
    """Phases 2–5 of the module docstring, with the web processes started and stopped here."""
    from tideline_kit.serving import ROOT, start_web, worker_environment

    report: dict = {}
    port = _free_port()
    # As `tideline serve` runs them: a pool per web process, and queued work (the dashboard's figures)
    # left to the worker, never run inside the request as TIDELINE_Q_SYNC (the tests' setting) would.
    env = {**{k: v for k, v in os.environ.items() if k != "TIDELINE_Q_SYNC"},
           "TIDELINE_DB_POOL": os.environ.get("TIDELINE_DB_POOL", "1"),
           "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="tideline-bench-metrics-"),
           "TIDELINE_METRICS_TOKEN": METRICS_TOKEN}  # fmt: skip
    servers = start_web(port=port, workers=args.workers, env=env)
    worker = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=str(ROOT), env=worker_environment(env),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    sampler = RssSampler([s.pid for s in servers])
    try:
        _wait_for(url)
        sampler.start()
        report["idle_rss_mb"] = [round(resident_mb(s.pid), 1) for s in servers]
        print("cold recalls…", file=sys.stderr, flush=True)
        report["cold_1000_ms"] = cold_recalls(url, cold)
        seen: set[int] = set()
        session, names = console_session(loaded, args.zipf)
        for phase, seed_of_phase in (("recall_after_start", 17), ("recall", 18)):
            print(f"{phase}: {args.rate:g}/s for {args.seconds:g} s, Zipf({args.zipf:g})…", file=sys.stderr, flush=True)
            web_before, db_before = cpu_seconds([s.pid for s in servers]), cpu_seconds(command="postgres")
            builds_before = index_builds(url)
            console = probing_console(url, session, names, args.seconds)
            load, sampled = asyncio.run(recall_load(url, loaded, args.rate, args.seconds, args.zipf, seen=seen,
                                                    seed=seed_of_phase))  # fmt: skip
            report[f"{phase}_console"] = console.get(timeout=120)
            report[f"{phase}_cpu_ms_per_request"] = {
                "web": round((cpu_seconds([s.pid for s in servers]) - web_before) * 1000 / max(load.ok, 1), 2),
                "postgres": round((cpu_seconds(command="postgres") - db_before) * 1000 / max(load.ok, 1), 2),
            }
            report[f"{phase}_index_builds"] = index_builds(url, since=builds_before)
            check_isolation(load, sampled)
            report[phase] = asdict(load)
        before = fact_counts(prefix)
        print(f"writes, {args.writers} writers for {args.write_seconds:g} s…", file=sys.stderr, flush=True)
        web_before, db_before = cpu_seconds([s.pid for s in servers]), cpu_seconds(command="postgres")
        console = probing_console(url, session, names, args.write_seconds)
        writes = asyncio.run(spread_writes(url, loaded, args.writers, args.write_seconds))
        writes["console"] = console.get(timeout=120)
        writes["cpu_ms_per_write"] = {
            "web": round((cpu_seconds([s.pid for s in servers]) - web_before) * 1000 / max(writes["created"], 1), 2),
            "postgres": round((cpu_seconds(command="postgres") - db_before) * 1000 / max(writes["created"], 1), 2),
        }
        after = fact_counts(prefix)
        writes["lost"] = sum(n - (after.get(name, 0) - before.get(name, 0)) for name, n in writes.pop("by_workspace").items())
        report["writes"] = writes
    finally:
        sampler.stopped.set()
        for process in (*servers, worker):
            process.terminate()
        for process in (*servers, worker):
            process.wait(timeout=30)
    report["peak_rss_mb"] = [round(v, 1) for v in sampler.peak_mb.values()]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.workspaces_load", description=__doc__.split("\n")[0])
    parser.add_argument("--workspaces", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=2_000_000)
    parser.add_argument("--largest", type=int, default=50_000)
    parser.add_argument("--seeders", type=int, default=2)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--zipf", type=float, default=1.1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--write-seconds", type=float, default=30)
    parser.add_argument("--passes", action="store_true", help="also time the scheduled GC and night over every workspace")
    parser.add_argument("--no-load", action="store_true", help="seed (or reuse) and run the passes only: no server, no load")
    parser.add_argument("--reuse", default="", help="measure the workspaces an earlier run seeded under this prefix")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.workspaces < 1 or args.facts < 20 * args.workspaces or args.largest < 20:
        parser.error("give at least one workspace and at least 20 facts per workspace")

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    os.environ.setdefault("TIDELINE_API_RATE_PER_MINUTE", "0")  # the bench measures the server, not the limiter
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)  # a fresh database is seeded as it is, not refused with a traceback
    report: dict = {}
    if args.reuse:
        prefix = args.reuse
        seeded = json.loads(seeded_record(prefix).read_text())
    else:
        prefix = f"many{int(time.time())}"
        plan = sizes(args.workspaces, args.facts, args.largest) + [COLD_SIZE] * COLD_COUNT
        print(f"seeding {len(plan):,} workspaces, {sum(plan):,} facts, in {args.seeders} processes…", file=sys.stderr, flush=True)
        started = time.perf_counter()
        seeded = seed(prefix, plan, args.seeders)
        report["seed_seconds"] = round(time.perf_counter() - started, 1)
        seeded_record(prefix).write_text(json.dumps(seeded))
        print(f"  seeded in {report['seed_seconds']} s (kept as {seeded_record(prefix)})", file=sys.stderr, flush=True)
    loaded, cold = seeded[:-COLD_COUNT], seeded[-COLD_COUNT:]
    report["vacuum_seconds"] = vacuum()
    facts = [w["facts"] for w in loaded]
    report.update(prefix=prefix, workspaces=len(loaded), facts=sum(facts), largest=max(facts),
                  median_size=int(statistics.median(facts)), workers=args.workers)  # fmt: skip

    if not args.no_load:
        report.update(serve_and_load(args, prefix, loaded, cold))
    if args.passes:
        print("scheduled passes over every workspace…", file=sys.stderr, flush=True)
        report["passes"] = passes()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['workspaces']:,} workspaces, {report['facts']:,} facts (median {report['median_size']}, largest "
          f"{report['largest']:,}), {args.workers} web processes")
    if "seed_seconds" in report:
        print(f"seeded in {report['seed_seconds']} s")
    if "recall" in report:
        print_load(report)
    for name, figures in report.get("passes", {}).items():
        print(f"{name.replace('_', ' ')}: {figures['visited']:,} workspaces visited, {figures['seconds']} s")
    return 0


def print_load(report: dict) -> None:
    w = report["writes"]
    print(f"cold recall of a 1,000-fact workspace (its index built, or restored from a snapshot, in the request): {report['cold_1000_ms']} ms")
    for phase, title in (("recall_after_start", "the first minute after start"), ("recall", "the minute after")):
        r, cpu = report[phase], report[f"{phase}_cpu_ms_per_request"]
        print(f"recall, {title}: {r['offered_per_s']:g}/s for {r['seconds']:g} s over {r['workspaces_asked']:,} workspaces: "
              f"p50 {r['p50_ms']} ms, p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms; {r['ok']} ok, "
              f"{r['errors']} errors {r['statuses']}")
        print(f"  a workspace's first request: p50 {r['first_ask_p50_ms']} ms, p99 {r['first_ask_p99_ms']} ms; "
              f"later ones p50 {r['later_p50_ms']} ms; CPU per recall: web {cpu['web']} ms, PostgreSQL {cpu['postgres']} ms")
        print(f"  isolation: {r['isolation_violations']} hits from another workspace among {r['isolation_checked']} checked")
        print_console(report.get(f"{phase}_console"))
        builds = report.get(f"{phase}_index_builds", {})
        print("  index builds: " + (", ".join(f"{int(b.get('count', 0)):,} from the {source} in {b.get('seconds', 0):.1f} s"
                                               for source, b in sorted(builds.items())) or "none"))  # fmt: skip
    print(f"resident memory per web process: idle {report['idle_rss_mb']} MB, peak {report['peak_rss_mb']} MB")
    print(f"writes: {w['per_s']}/s over {w['workspaces_written']:,} workspaces ({w['writers']} writers, {w['seconds']} s), "
          f"p50 {w['p50_ms']} ms, p99 {w['p99_ms']} ms, statuses {w['statuses']}, lost {w['lost']}; CPU per write: web "
          f"{w['cpu_ms_per_write']['web']} ms, PostgreSQL {w['cpu_ms_per_write']['postgres']} ms")
    print_console(w.get("console"))


def print_console(console: dict | None) -> None:
    if console:
        print("  console meanwhile: " + ", ".join(f"{label} p50 {console[label]['p50_ms']} ms, p95 {console[label]['p95_ms']} ms"
                                                  for label in ("inbox", "dashboard")) + f", statuses {console['statuses']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
