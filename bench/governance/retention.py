"""A retention run over a large workspace: preview, apply, a second (idempotent) run, recall after.

    python -m bench.governance.retention [--facts 100000] [--age-days 180] [--action archive|purge] [--json]

Seeds a fresh workspace (a unique name; run it on a scratch database) with `--facts` facts written
over the last 400 days (a tenth from a channel peer), through the bulk import path, and one policy
covering every fact older than `--age-days` (about half of them at the default). Warms the owner's
recall index, then times:

* the preview (`governance.services.retention.preview`: counts and the first page of facts);
* the run (`apply`: one transaction that selects by database filters, archives or purges, and
  records the `archived` events and the `retention_run` event);
* a second run, which must take nothing;
* the next recall through the warm index (which re-reads the facts the run touched).

The figure in docs/BENCHMARKS.md is copied from its output, with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from bench.governance.queue import CHANNEL, _progress

SPAN_DAYS = 400


def seed(facts: int, *, quiet: bool = False):
    from django.utils import timezone

    from bench.memory.corpus import Corpus
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts
    from memory.timestamps import to_ms

    workspace = create_workspace(f"retentionbench-{facts}-{int(time.time() * 1000)}", actor="bench")
    now_ms = to_ms(timezone.now())
    step = SPAN_DAYS * 86_400_000 // max(1, facts)
    lines = []
    for index, fact in enumerate(Corpus(seed=13).facts(facts)):
        channel = index % 10 == 0
        lines.append(json.dumps({
            "memoryId": f"mem_r_{index:07d}", "content": fact.content, "segment": fact.segment,
            "createdAt": now_ms - step * index, "lifecycle": "active",
            "createdBy": CHANNEL if channel else {"kind": "owner"},
            "sourceType": "channel_message" if channel else "owner_message",
        }))  # fmt: skip
    report = import_facts(workspace=workspace, lines=lines, actor="bench", source_name="retentionbench", strict=True,
                          progress=_progress("facts", len(lines), quiet))  # fmt: skip
    if report.refused:
        raise SystemExit(f"seeding refused {len(report.refused)} lines, e.g. {report.refused[0]}")
    workspace.refresh_from_db()
    return workspace


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)


def run(facts: int, age_days: int, action: str, *, quiet: bool = False) -> dict[str, Any]:
    from django.db import connection

    from governance.services import retention
    from memory.models import Fact
    from memory.services.recall.verbs import recall

    started = time.perf_counter()
    workspace = seed(facts, quiet=quiet)
    seeded = round(time.perf_counter() - started, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    query = " ".join(Fact.objects.filter(workspace=workspace, origin_key="owner").first().content.split()[:6])
    warm = recall(workspace=workspace, query=query, origin="owner", reinforce=False, embedder=None)
    policy = retention.create(workspace, {"name": "bench", "max_age_seconds": f"{age_days}d", "action": action},
                              actor="bench", every_fact=True)  # fmt: skip
    (preview,), preview_s, _ = _timed(lambda: retention.preview(workspace, policy.pk))
    bar = _progress("taken", preview.takes, quiet)
    (report,), run_s, run_cpu = _timed(lambda: retention.apply(workspace, policy.pk, actor="bench", progress=bar))
    if not quiet:
        print(file=sys.stderr)
    (again,), again_s, _ = _timed(lambda: retention.apply(workspace, policy.pk, actor="bench"))
    after, recall_s, _ = _timed(lambda: recall(workspace=workspace, query=query, origin="owner", reinforce=False,
                                               embedder=None))  # fmt: skip
    return {"database": connection.vendor, "workspace": workspace.name, "seed_seconds": seeded, "facts": facts,
            "action": action, "age_days": age_days, "preview_takes": preview.takes, "taken": report.archived + report.purged,
            "examined": report.examined, "links_removed": report.links_removed, "preview_seconds": preview_s,
            "run_seconds": run_s, "run_cpu_seconds": run_cpu, "second_run_taken": again.archived + again.purged,
            "second_run_seconds": again_s, "recall_after_seconds": recall_s, "hits_before": len(warm),
            "hits_after": len(after)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.retention", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000, help="facts in the workspace")
    parser.add_argument("--age-days", type=int, default=180, help="the policy's age limit (facts span 400 days)")
    parser.add_argument("--action", choices=("archive", "purge"), default="archive")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.facts < 1 or args.age_days < 1:
        parser.error("need --facts ≥ 1 and --age-days ≥ 1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    result = run(args.facts, args.age_days, args.action)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['facts']:,} facts, policy: every fact older than {result['age_days']} days, {result['action']}, "
              f"{result['database']} (seeded in {result['seed_seconds']} s)\n"
              f"  preview            {result['preview_seconds']:6.2f} s   takes {result['preview_takes']:,}\n"
              f"  run                {result['run_seconds']:6.2f} s   (CPU {result['run_cpu_seconds']:.2f} s) "
              f"took {result['taken']:,} of {result['examined']:,} examined\n"
              f"  second run         {result['second_run_seconds']:6.2f} s   took {result['second_run_taken']}\n"
              f"  next recall (warm) {result['recall_after_seconds']:6.2f} s   "
              f"hits {result['hits_before']} -> {result['hits_after']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
