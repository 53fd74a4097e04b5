"""Crypto-shred at scale: one origin of many facts, shredded while its recall index is warm.

    python -m bench.governance.shred [--facts 50000] [--items 500] [--json]

Seeds a fresh workspace (a unique name; run it on a scratch database) with `--facts` facts of one
channel origin and a tenth as many of the owner's, through the bulk import path, plus `--items` open
contradiction items between the origin's facts. Warms the origin's recall index, then times:

* the preview (`governance.services.shred.preview`: counts of facts, links, vectors, open items);
* the shred itself (`apply` with the typed count: one mutation that reads the ids, drops postings
  and vectors, records the `shredded` event, closes the items and destroys the key);
* the next recall through the warm index (which must drop the origin and find nothing).

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


def seed(facts: int, items: int, *, quiet: bool = False):
    from django.utils import timezone

    from bench.memory.corpus import Corpus
    from governance.models import ReviewItem
    from memory.models import Fact
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts
    from memory.timestamps import to_ms

    workspace = create_workspace(f"shredbench-{facts}-{int(time.time() * 1000)}", actor="bench")
    now_ms = to_ms(timezone.now())
    owner_facts = max(1, facts // 10)
    lines = []
    for index, fact in enumerate(Corpus(seed=11).facts(facts + owner_facts)):
        channel = index < facts
        lines.append(json.dumps({
            "memoryId": f"mem_s_{index:07d}", "content": fact.content, "segment": fact.segment,
            "createdAt": now_ms - 1000 * index, "lifecycle": "active",
            "createdBy": CHANNEL if channel else {"kind": "owner"},
            "sourceType": "channel_message" if channel else "owner_message",
        }))  # fmt: skip
    report = import_facts(workspace=workspace, lines=lines, actor="bench", source_name="shredbench", strict=True,
                          progress=_progress("facts", len(lines), quiet))  # fmt: skip
    if report.refused:
        raise SystemExit(f"seeding refused {len(report.refused)} lines, e.g. {report.refused[0]}")
    origin_key = Fact.objects.filter(workspace=workspace, origin_kind="channel").values_list("origin_key", flat=True)[0]
    rows = list(Fact.objects.filter(workspace=workspace, origin_key=origin_key).order_by("pk").values_list("pk", "memory_id"))
    ReviewItem.objects.bulk_create([
        ReviewItem(workspace=workspace, kind="contradiction", reason="bench", fact_id=rows[2 * i][0],
                   fact_memory_id=rows[2 * i][1], other_fact_id=rows[2 * i + 1][0], other_memory_id=rows[2 * i + 1][1])
        for i in range(min(items, len(rows) // 2))
    ], batch_size=2000)  # fmt: skip
    workspace.refresh_from_db()
    return workspace, origin_key


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)


def run(facts: int, items: int, *, quiet: bool = False) -> dict[str, Any]:
    from django.db import connection

    from governance.services import shred
    from memory.services.recall.verbs import recall

    started = time.perf_counter()
    workspace, origin_key = seed(facts, items, quiet=quiet)
    seeded = round(time.perf_counter() - started, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    from memory.models import Fact

    query = " ".join(Fact.objects.filter(workspace=workspace, origin_key=origin_key).first().content.split()[:6])
    warm = recall(workspace=workspace, query=query, origin=CHANNEL, reinforce=False, embedder=None)
    preview, preview_s, _ = _timed(lambda: shred.preview(workspace, origin_key))
    report, shred_s, shred_cpu = _timed(lambda: shred.apply(workspace, origin_key, typed=str(preview.facts),
                                                              actor="bench", reason="benchmark"))  # fmt: skip
    after, recall_s, _ = _timed(lambda: recall(workspace=workspace, query=query, origin=CHANNEL, reinforce=False,
                                               embedder=None))  # fmt: skip
    return {"database": connection.vendor, "workspace": workspace.name, "seed_seconds": seeded,
            "facts": report.facts, "review_items_closed": report.review_items_closed, "postings": report.postings,
            "preview_seconds": preview_s, "shred_seconds": shred_s, "shred_cpu_seconds": shred_cpu,
            "recall_after_seconds": recall_s, "hits_before": len(warm), "hits_after": len(after)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.shred", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=50_000, help="facts of the shredded origin")
    parser.add_argument("--items", type=int, default=500, help="open review items between its facts")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.facts < 2 or args.items < 0:
        parser.error("need --facts ≥ 2 and --items ≥ 0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    result = run(args.facts, args.items)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['facts']:,} facts of one origin, {result['review_items_closed']} review items closed, "
              f"{result['database']} (seeded in {result['seed_seconds']} s)\n"
              f"  preview            {result['preview_seconds']:6.2f} s\n"
              f"  shred              {result['shred_seconds']:6.2f} s   (CPU {result['shred_cpu_seconds']:.2f} s)\n"
              f"  next recall (warm) {result['recall_after_seconds']:6.2f} s   "
              f"hits {result['hits_before']} -> {result['hits_after']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
