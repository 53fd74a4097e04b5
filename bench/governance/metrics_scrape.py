"""How long a Prometheus scrape of `/metrics` takes, with many workspaces and several processes' samples.

    python -m bench.governance.metrics_scrape [--workspaces 200] [--items 20] [--processes 3] [--repeat 50]

Seeds `--workspaces` fresh workspaces (a unique prefix), each with `--items` open review items and
two proposals waiting, so the scrape's per-workspace counts have that many rows; then has
`--processes` real processes record operations of every kind (writes by every outcome, recalls,
index builds, governance verbs, request latencies over 40 routes) into one multiprocess folder, as
`tideline serve`'s web processes and worker do; then times `GET /metrics` with the bearer token
through Django's test client, `--repeat` times after one warm-up. Run it on a scratch database: the
workspaces stay behind. The figures in docs/BENCHMARKS.md are copied from its output, with the command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid

TOKEN = "bench-metrics-token-0123456789"

RECORD = textwrap.dedent("""
    import django
    django.setup()
    from tideline_kit import telemetry
    from tideline_site import metrics
    outcomes = ["stored", "reinforced", "held", "unchanged", "refused:threat", "refused:write_gate",
                "refused:validation", "refused:unworthy"]
    for i in range(2000):
        with telemetry.operation("memory.write") as op:
            op.set(outcome=outcomes[i % len(outcomes)])
        with telemetry.operation("memory.recall") as op:
            op.set(outcome="answered" if i % 3 else "abstained")
    for name in ("governance.verdict.decide", "governance.purge.apply", "memory.maintenance.dream",
                 "governance.proposal.apply", "memory.maintenance.gc", "governance.contradictions.reconcile"):
        with telemetry.operation(name):
            pass
    with telemetry.operation("memory.recall_index.build") as op:
        op.set(source="database")
    for r in range(40):
        for status in (200, 302, 404):
            metrics.observe_request(f"w/<slug:workspace>/route-{r}/", "GET", status, 0.01)
""")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.metrics_scrape", description=__doc__.split("\n")[0])
    parser.add_argument("--workspaces", type=int, default=200)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)

    folder = tempfile.mkdtemp(prefix="tideline-metrics-bench-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder  # before prometheus_client is imported
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    os.environ["TIDELINE_METRICS_TOKEN"] = TOKEN
    import django

    django.setup()
    from django.test import Client

    _seed(args.workspaces, args.items)
    for _ in range(args.processes):
        subprocess.run([sys.executable, "-c", RECORD], check=True, env=dict(os.environ))
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}
    first = client.get("/metrics", **headers)
    assert first.status_code == 200, first.content[:200]
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        response = client.get("/metrics", **headers)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    times.sort()
    samples = sum(1 for line in response.content.decode().splitlines() if line and not line.startswith("#"))
    print(f"database: {django.db.connection.vendor}; {args.workspaces} workspaces × {args.items} open items; "
          f"{args.processes} processes' samples; {samples} samples, {len(response.content):,} bytes")  # fmt: skip
    print(f"scrape ms over {args.repeat}: p50 {statistics.median(times):.1f}, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.1f}, max {times[-1]:.1f}")  # fmt: skip


def _seed(workspaces: int, items: int) -> None:
    from governance.models import Proposal, ReviewItem
    from memory.services.workspaces import create_workspace

    prefix = f"mbench-{uuid.uuid4().hex[:6]}"
    rows, proposals = [], []
    for n in range(workspaces):
        workspace = create_workspace(f"{prefix}-{n}", actor="bench")
        rows += [ReviewItem(workspace=workspace, kind="contradiction", reason="bench") for _ in range(items)]
        proposals += [Proposal(workspace=workspace, change="tuning", source="manual", title="bench", rationale="bench",
                               tuning={"ngram_floor": 0.5}, author_name="bench") for _ in range(2)]  # fmt: skip
    ReviewItem.objects.bulk_create(rows, batch_size=2000)
    Proposal.objects.bulk_create(proposals, batch_size=2000)


if __name__ == "__main__":
    main()
