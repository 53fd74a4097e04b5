"""Streaming a large export through the console: facts.jsonl of 100,000 facts with flat memory.

    python -m bench.governance.exports [--facts 100000] [--json]

Seeds a fresh workspace (a unique name; run it on a scratch database) the way the retention bench
does, signs an admin in through Django's test client, and reads `/w/<ws>/exports/facts/?format=jsonl`
to the end, counting lines and bytes as they arrive (nothing is kept), timed without tracing; then
once more under tracemalloc, whose peak is the memory the export needed (it must not grow with the
workspace), besides the growth of the process's peak RSS. The same for the event log as CSV.
`--workspace NAME` re-times a workspace an earlier run seeded.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import tracemalloc
from typing import Any


def _drain(response) -> tuple[int, int]:
    lines = size = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
    return lines, size


def _timed_stream(client, url: str) -> dict[str, Any]:
    """Timed without tracing (tracemalloc slows Python several times), then streamed again under
    tracemalloc for the peak of memory allocated while the body was produced."""
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    lines, size = _drain(client.get(url))
    seconds = time.perf_counter() - started
    rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    tracemalloc.start()
    _drain(client.get(url))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": round(seconds, 2), "lines": lines, "megabytes": round(size / 1e6, 1),
            "peak_traced_mb": round(peak / 1e6, 1), "peak_rss_growth_mb": round(rss_growth / 1024, 1)}  # fmt: skip


def run(facts: int, *, quiet: bool = False, workspace_name: str | None = None) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from bench.governance.retention import seed
    from memory.models import Membership, Workspace

    started = time.perf_counter()
    workspace = Workspace.objects.get(name=workspace_name) if workspace_name else seed(facts, quiet=quiet)
    seeded = round(time.perf_counter() - started, 1)
    facts = workspace.facts.count()
    admin, _ = get_user_model().objects.get_or_create(username="exports-bench-admin")
    Membership.objects.get_or_create(user=admin, workspace=workspace, role="admin")
    client = Client()
    client.force_login(admin)
    small = _timed_stream(client, f"/w/{workspace.name}/exports/facts/?format=jsonl&segment=identity")
    full = _timed_stream(client, f"/w/{workspace.name}/exports/facts/?format=jsonl")
    events = _timed_stream(client, f"/w/{workspace.name}/exports/events/?format=csv")
    return {"database": connection.vendor, "facts": facts, "seed_seconds": seeded, "facts_jsonl": full,
            "facts_jsonl_one_segment": small, "events_csv": events}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.exports", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--workspace", help="time an existing workspace (an earlier run's) instead of seeding one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.facts < 1:
        parser.error("need --facts ≥ 1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    os.environ.setdefault("TIDELINE_INSECURE_HTTP", "1")  # the test client speaks plain HTTP
    import django

    django.setup()
    from django.conf import settings

    if "testserver" not in settings.ALLOWED_HOSTS and "*" not in settings.ALLOWED_HOSTS:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    result = run(args.facts, workspace_name=args.workspace)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['facts']:,} facts on {result['database']} (seeded in {result['seed_seconds']} s)")
        for name in ("facts_jsonl", "facts_jsonl_one_segment", "events_csv"):
            r = result[name]
            print(f"  {name:<24} {r['seconds']:6.2f} s  {r['lines']:>8,} lines  {r['megabytes']:6.1f} MB  "
                  f"peak traced {r['peak_traced_mb']} MB, peak RSS growth {r['peak_rss_growth_mb']} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
