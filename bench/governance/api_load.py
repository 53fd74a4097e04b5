"""The agent API under load, over real HTTP, on this machine (docs/BENCHMARKS.md, "The agent API under load").

    DATABASE_URL=postgres://…/scratch python -m bench.governance.api_load [--facts 100000] [--rate 100]
        [--seconds 60] [--connections 50] [--curve 50,100,200,300,400,600] [--curve-seconds 15]
        [--write-seconds 60] [--writers 16] [--workers 2] [--plot docs/api-latency.svg] [--workspace W] [--json]

1. Seeds a fresh workspace of `--facts` synthetic facts (the benchmark corpus, bulk import) and four
   small workspaces for writes, with an owner token each; starts the web server as `tideline serve`
   does (`tideline_kit.serving.start_web`) with `--workers` processes on a free loopback port,
   and warms every worker's recall index. Requests go through the bench's own small HTTP client
   (`http_client.py`), so the generator takes as little as it can of the cores it shares.
2. **Recall, open loop**: `POST /api/v1/recall` at a fixed offered rate for `--seconds`, over at most
   `--connections` connections. Each request is due at its own time whether or not earlier ones
   have answered, and its latency counts from when it was due, so a stall shows in the figures
   instead of slowing the load down (no coordinated omission).
3. **Saturation**: the same at each `--curve` rate for `--curve-seconds`: throughput achieved and
   p50/p99 against offered load (an SVG plot with `--plot`).
4. **Writes**: `--writers` concurrent writers, closed loop, for `--write-seconds`: into one
   workspace, then spread over four; afterwards the facts are counted in the database, so a write
   that answered 201 but was lost would show.

Run on a scratch database: it leaves its workspaces behind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.governance.http_client import LoopbackClient

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    offered_per_s: float
    seconds: float
    sent: int = 0
    ok: int = 0
    with_hits: int = 0
    errors: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    achieved_per_s: float = 0.0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def open_loop(url: str, token: str, queries: list[str], rate: float, seconds: float, connections: int) -> Run:
    run = Run(rate, seconds)
    latencies: list[float] = []
    async with LoopbackClient(url, connections=connections, headers={"Authorization": f"Bearer {token}"}) as client:
        start = time.perf_counter()

        async def one(due: float, query: str) -> None:
            try:
                code, body = await client.post_json("/api/v1/recall", {"query": query, "k": 8})
                status = str(code)
                if code == 200 and b'"hits": []' not in body:
                    run.with_hits += 1  # a memory that answers nothing (a lost key, a wrong token) is fast, and wrong
            except Exception as error:  # noqa: BLE001 — counted as an error, the load goes on
                status = type(error).__name__
            finished = time.perf_counter()
            run.statuses[status] = run.statuses.get(status, 0) + 1
            if status == "200":
                run.ok += 1
                latencies.append((finished - due) * 1000)
            else:
                run.errors += 1

        tasks = []
        total = int(rate * seconds)
        for n in range(total):
            due = start + n / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(due, queries[n % len(queries)])))
            run.sent += 1
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - start
    ordered = sorted(latencies)
    run.achieved_per_s = round(run.ok / elapsed, 1)
    run.p50_ms = round(statistics.median(ordered), 2) if ordered else 0.0
    run.p90_ms, run.p99_ms = round(_percentile(ordered, 0.90), 2), round(_percentile(ordered, 0.99), 2)
    run.max_ms = round(ordered[-1], 2) if ordered else 0.0
    return run


async def closed_loop_writes(url: str, targets: list[tuple[str, str]], writers: int, seconds: float,
                             phase: str = "") -> dict:  # fmt: skip
    """`writers` concurrent writers spread over the (workspace, token) targets; distinct contents."""
    created: dict[str, int] = {name: 0 for name, _ in targets}
    statuses: dict[str, int] = {}
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    async with LoopbackClient(url, connections=writers) as client:

        async def writer(number: int) -> None:
            name, token = targets[number % len(targets)]
            n = 0
            while time.perf_counter() < deadline:
                n += 1
                body = {"content": f"Load writer {number}{phase} stored note {n} about shipment {number * 100000 + n}",
                        "segment": "knowledge"}  # fmt: skip
                started = time.perf_counter()
                try:
                    answer = await client.post_json("/api/v1/memories", body, {"Authorization": f"Bearer {token}"})
                    status = str(answer[0])
                except Exception as error:  # noqa: BLE001
                    status = type(error).__name__
                latencies.append((time.perf_counter() - started) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                if status == "201":
                    created[name] += 1

        began = time.perf_counter()
        await asyncio.gather(*(writer(i) for i in range(writers)))
        elapsed = time.perf_counter() - began
    ordered = sorted(latencies)
    total = sum(created.values())
    return {"writers": writers, "workspaces": len(targets), "seconds": round(elapsed, 1), "created": created,
            "statuses": statuses, "per_s": round(total / elapsed, 1), "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(_percentile(ordered, 0.99), 2)}  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(url: str, seconds: float = 120) -> None:
    import httpx2

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url + "/api/v1/openapi.json", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not start")


def _warm(url: str, token: str, workers: int) -> None:
    """A new connection per request until the last `16 × workers` answered fast: each worker builds
    its index on first use (seconds at 100,000 facts), and a kept-alive connection would stay with
    one worker, so the measurement would meet a cold one."""
    import httpx2

    fast = 0
    limits = httpx2.Limits(max_keepalive_connections=0)
    with httpx2.Client(base_url=url, timeout=300, limits=limits, headers={"Authorization": f"Bearer {token}"}) as client:
        while fast < 16 * workers:
            started = time.perf_counter()
            client.post("/api/v1/recall", json={"query": "warm up the index", "k": 8})
            fast = fast + 1 if time.perf_counter() - started < 0.2 else 0


def plot(curve: list[Run], path: Path) -> None:
    """Throughput achieved and p50/p99 latency against offered load, as a small self-made SVG."""
    import math

    width, height, pad = 640, 360, 56
    top_rate = max(r.offered_per_s for r in curve) * 1.05
    # Latency on a log scale from 1 ms: below saturation it is tens of ms, past it thousands.
    top_ms = max(max(r.p99_ms for r in curve), 100.0) * 1.2
    decades = math.log10(top_ms)

    def x(rate: float) -> float:
        return pad + (width - 2 * pad) * rate / top_rate

    def y_ms(ms: float) -> float:
        return height - pad - (height - 2 * pad) * math.log10(min(max(ms, 1.0), top_ms)) / decades

    def y_rate(rate: float) -> float:
        return height - pad - (height - 2 * pad) * rate / top_rate

    def line(points: list[tuple[float, float]], colour: str, dash: str = "") -> str:
        coords = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        return f'<polyline fill="none" stroke="{colour}" stroke-width="2" {dash} points="{coords}"/>'

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#333"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#333"/>',
             f'<line x1="{width - pad}" y1="{pad}" x2="{width - pad}" y2="{height - pad}" stroke="#333"/>',
             f'<text x="{width / 2}" y="{height - 16}" text-anchor="middle">offered load (recalls/s)</text>',
             f'<text x="16" y="{height / 2}" transform="rotate(-90 16 {height / 2})" text-anchor="middle">latency (ms, log scale)</text>',
             f'<text x="{width - 12}" y="{height / 2}" transform="rotate(90 {width - 12} {height / 2})" text-anchor="middle">achieved (recalls/s)</text>']  # fmt: skip
    for r in curve:
        parts.append(f'<text x="{x(r.offered_per_s):.1f}" y="{height - pad + 16}" text-anchor="middle">{r.offered_per_s:g}</text>')
    for ms in (1, 10, 100, 1000, 10000):
        if ms <= top_ms:
            parts.append(f'<text x="{pad - 6}" y="{y_ms(ms) + 4:.1f}" text-anchor="end">{ms:,}</text>')
            parts.append(f'<line x1="{pad}" y1="{y_ms(ms):.1f}" x2="{width - pad}" y2="{y_ms(ms):.1f}" stroke="#ddd"/>')
    for fraction in (0.25, 0.5, 0.75, 1.0):
        parts.append(f'<text x="{width - pad + 6}" y="{y_rate(top_rate * fraction) + 4:.1f}">{top_rate * fraction:.0f}</text>')
    parts.append(line([(x(r.offered_per_s), y_ms(r.p50_ms)) for r in curve], "#1f77b4"))
    parts.append(line([(x(r.offered_per_s), y_ms(r.p99_ms)) for r in curve], "#d62728"))
    parts.append(line([(x(r.offered_per_s), y_rate(r.achieved_per_s)) for r in curve], "#2ca02c", 'stroke-dasharray="6 4"'))
    legend = [("p50 latency", "#1f77b4", ""), ("p99 latency", "#d62728", ""), ("achieved throughput", "#2ca02c", "6 4")]
    for i, (label, colour, dash) in enumerate(legend):
        yy = pad + 14 + 18 * i
        parts.append(f'<line x1="{pad + 12}" y1="{yy}" x2="{pad + 40}" y2="{yy}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        parts.append(f'<text x="{pad + 46}" y="{yy + 4}">{label}</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.api_load", description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--curve", default="50,100,200,300,400,600")
    parser.add_argument("--curve-seconds", type=float, default=15)
    parser.add_argument("--write-seconds", type=float, default=60)
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plot", default="")
    parser.add_argument("--workspace", default="", help="reuse this seeded workspace instead of seeding a new one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    os.environ.setdefault("TIDELINE_API_RATE_PER_MINUTE", "0")  # the bench measures the server, not the limiter
    import django

    django.setup()
    from bench.memory.corpus import Corpus
    from bench.memory.writes import seed_workspace
    from governance.services import tokens
    from memory.models import Fact
    from memory.services.workspaces import create_workspace

    stamp = int(time.time())
    if args.workspace:
        from memory.services.workspaces import get_workspace

        workspace = get_workspace(args.workspace)
        args.facts = Fact.objects.filter(workspace=workspace, lifecycle="active").count()
    else:
        print(f"seeding {args.facts:,} facts…", file=sys.stderr, flush=True)
        workspace, _ = seed_workspace(args.facts, seed=11)
    read_token = tokens.create_token(workspace, name=f"load-reader-{stamp}", origin="owner", verbs="read", actor="bench")[1]
    writes = [create_workspace(f"load-w{i}-{stamp}", actor="bench") for i in range(4)]
    write_tokens = [(w.name, tokens.create_token(w, name="load-writer", origin="owner", verbs="write",
                                                    source="owner_message", actor="bench")[1])
                    for w in writes]  # fmt: skip
    corpus = Corpus(seed=11)
    queries = [" ".join(fact.content.rstrip(".").split()[1:4]) for fact in corpus.facts(2000)]
    random.Random(3).shuffle(queries)

    port = _free_port()
    env = {**os.environ, "TIDELINE_DB_POOL": os.environ.get("TIDELINE_DB_POOL", "1")}  # as tideline serve runs it
    from tideline_kit.serving import start_web

    servers = start_web(port=port, workers=args.workers, env=env)
    url = f"http://127.0.0.1:{port}"
    report: dict = {"facts": args.facts, "workers": args.workers}
    try:
        _wait_for(url)
        print("warming every worker's index…", file=sys.stderr, flush=True)
        _warm(url, read_token, args.workers)
        print(f"recall at {args.rate:g}/s for {args.seconds:g} s…", file=sys.stderr, flush=True)
        report["recall"] = asdict(asyncio.run(open_loop(url, read_token, queries, args.rate, args.seconds, args.connections)))
        curve = []
        for rate in [float(r) for r in args.curve.split(",") if r.strip()]:
            print(f"curve: {rate:g}/s for {args.curve_seconds:g} s…", file=sys.stderr, flush=True)
            curve.append(asyncio.run(open_loop(url, read_token, queries, rate, args.curve_seconds, args.connections)))
        report["curve"] = [asdict(r) for r in curve]
        if args.plot and curve:
            plot(curve, Path(args.plot))
        before = {name: Fact.objects.filter(workspace__name=name).count() for name, _ in write_tokens}
        print(f"writes into one workspace for {args.write_seconds:g} s…", file=sys.stderr, flush=True)
        one = asyncio.run(closed_loop_writes(url, write_tokens[:1], args.writers, args.write_seconds, " alone"))
        print(f"writes across four for {args.write_seconds:g} s…", file=sys.stderr, flush=True)
        four = asyncio.run(closed_loop_writes(url, write_tokens, args.writers, args.write_seconds, " shared"))
        stored = {name: Fact.objects.filter(workspace__name=name).count() - before[name] for name, _ in write_tokens}
        answered = {name: one["created"].get(name, 0) + four["created"].get(name, 0) for name, _ in write_tokens}
        report["writes_one_workspace"], report["writes_four_workspaces"] = one, four
        report["writes_lost"] = sum(answered[n] - stored[n] for n in answered)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        r = report["recall"]
        print(f"recall at {r['offered_per_s']:g}/s for {r['seconds']:g} s on {args.facts:,} facts ({args.workers} workers): "
              f"p50 {r['p50_ms']} ms, p90 {r['p90_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms, "
              f"{r['ok']} ok ({r['with_hits']} with hits), {r['errors']} errors {r['statuses']}")  # fmt: skip
        for c in report["curve"]:
            print(f"  offered {c['offered_per_s']:>5g}/s → achieved {c['achieved_per_s']:>6g}/s, p50 {c['p50_ms']} ms, "
                  f"p99 {c['p99_ms']} ms, errors {c['errors']}")  # fmt: skip
        for key in ("writes_one_workspace", "writes_four_workspaces"):
            w = report[key]
            print(f"{key.replace('_', ' ')}: {w['per_s']}/s ({w['writers']} writers, {w['seconds']} s), p50 {w['p50_ms']} ms, "
                  f"p99 {w['p99_ms']} ms, statuses {w['statuses']}")  # fmt: skip
        print(f"writes answered 201 but not stored: {report['writes_lost']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
