"""`tideline bench [--sizes 100,100000] [--writes 200]` — measure the write path on the configured database."""

from __future__ import annotations

from dataclasses import asdict

from django.db import connection

from memory.bench.writes import seed_workspace, time_writes
from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError

HELP = "benchmark write latency at given workspace sizes (use a scratch database)"


def add_arguments(parser) -> None:
    parser.add_argument("--sizes", default="100,10000", help="comma-separated workspace sizes, e.g. 100,100000")
    parser.add_argument("--writes", type=int, default=200, help="timed writes per size")
    parser.add_argument("--seed", type=int, default=7)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise RequestError(f"--sizes must be whole numbers separated by commas, got {text!r}", kind="validation") from exc
    if not sizes or any(size < 0 or size > 2_000_000 for size in sizes):
        raise RequestError("--sizes must be between 0 and 2,000,000", kind="validation")
    return sizes


def run(options: dict) -> None:
    sizes = _sizes(options["sizes"])
    if options["writes"] < 1:
        raise RequestError("--writes must be at least 1", kind="validation")
    results = []
    for size in sizes:
        with progress_bar(size, f"seeding {size:,} facts") as bar:
            workspace, corpus = seed_workspace(size, seed=options["seed"], progress=bar.update)
        writes = time_writes(workspace, corpus, options["writes"])
        results.append({"size": size, "workspace": workspace.name, "write": asdict(writes)})
    lines = [f"database: {connection.vendor}", f"{'facts':>10}  {'writes':>6}  {'min':>7}  {'p50':>7}  {'p95':>7}  (ms)"]
    for row in results:
        w = row["write"]
        lines.append(f"{row['size']:>10,}  {w['count']:>6}  {w['min_ms']:>7.2f}  {w['p50_ms']:>7.2f}  {w['p95_ms']:>7.2f}")
    emit(options, {"database": connection.vendor, "results": results}, "\n".join(lines))
