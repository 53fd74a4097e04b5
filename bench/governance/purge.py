"""Purge at scale: preview and hard-purge one origin of many facts, with a provenance cascade.

    python -m bench.governance.purge [--facts 10000] [--items 200] [--json]

Seeds a fresh workspace (a unique name; run it on a scratch database) through the bulk import path
with `--facts` facts of one channel origin (every fifth linked to its predecessor) and a tenth as
many of the owner's, each (but the first) derived (`sourcePointers`) from a channel fact; half of
those also stand on the owner's first fact, so the cascade must take one half and keep the other. Adds `--items` open
contradiction items between the origin's facts and warms the origin's recall index. Then times:

* the preview of "every fact of that origin", hard (`governance.services.purge.preview`: the
  selection, the cascade over every source pointer and `derived_from` link of the workspace, the
  counts of facts, links and open items, and the first page of each list, decrypted);
* the purge itself (`apply` with the typed count: one mutation: links, rows, postings, vectors,
  review items closed, one receipt with a keyed hash per fact);
* the next recall through the warm index (which must find none of the purged facts).

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

    workspace = create_workspace(f"purgebench-{facts}-{int(time.time() * 1000)}", actor="bench")
    now_ms = to_ms(timezone.now())
    owner_facts = max(2, facts // 10)
    lines = []
    for index, fact in enumerate(Corpus(seed=13).facts(facts + owner_facts)):
        channel = index < facts
        line = {"memoryId": f"mem_p_{index:07d}", "content": fact.content, "segment": fact.segment,
                "createdAt": now_ms - 1000 * index, "lifecycle": "active",
                "createdBy": CHANNEL if channel else {"kind": "owner"},
                "sourceType": "channel_message" if channel else "owner_message"}  # fmt: skip
        if channel and index % 5 == 4:
            line["links"] = [{"kind": "relates", "target": f"mem_p_{index - 1:07d}"}]
        mine = index - facts
        if not channel and mine > 0:  # the owner's first fact is the anchor, derived from nothing
            line["sourcePointers"] = [f"mem_p_{(mine * 7) % facts:07d}"]
            if mine % 2:  # also stands on the anchor, a live fact that stays: survives the cascade
                line["sourcePointers"].append(f"mem_p_{facts:07d}")
        lines.append(json.dumps(line))
    report = import_facts(workspace=workspace, lines=lines, actor="bench", source_name="purgebench", strict=True,
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

    from governance.services import purge
    from memory.models import Fact
    from memory.services.recall.verbs import recall

    started = time.perf_counter()
    workspace, origin_key = seed(facts, items, quiet=quiet)
    seeded = round(time.perf_counter() - started, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    query = " ".join(Fact.objects.filter(workspace=workspace, origin_key=origin_key).first().content.split()[:6])
    warm = recall(workspace=workspace, query=query, origin=CHANNEL, reinforce=False, embedder=None)
    selection = purge.Selection.parse(origin=origin_key)
    preview, preview_s, preview_cpu = _timed(lambda: purge.preview(workspace, selection, hard=True))
    report, purge_s, purge_cpu = _timed(lambda: purge.apply(workspace, selection, hard=True, typed=str(preview.facts),
                                                              actor="bench", reason="benchmark"))  # fmt: skip
    after, recall_s, _ = _timed(lambda: recall(workspace=workspace, query=query, origin=CHANNEL, reinforce=False,
                                               embedder=None))  # fmt: skip
    return {"database": connection.vendor, "workspace": workspace.name, "seed_seconds": seeded,
            "chosen": facts, "facts": report.facts, "cascaded": report.cascaded, "links": report.links,
            "review_items_closed": report.review_items_closed, "preview_seconds": preview_s,
            "preview_cpu_seconds": preview_cpu, "purge_seconds": purge_s, "purge_cpu_seconds": purge_cpu,
            "recall_after_seconds": recall_s, "hits_before": len(warm), "hits_after": len(after)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.purge", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000, help="facts of the purged origin")
    parser.add_argument("--items", type=int, default=200, help="open review items between its facts")
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
        print(f"{result['chosen']:,} facts of one origin chosen, {result['facts']:,} purged ({result['cascaded']} by "
              f"cascade), {result['links']} links, {result['review_items_closed']} review items closed, "
              f"{result['database']} (seeded in {result['seed_seconds']} s)\n"
              f"  preview            {result['preview_seconds']:6.2f} s   (CPU {result['preview_cpu_seconds']:.2f} s)\n"
              f"  purge              {result['purge_seconds']:6.2f} s   (CPU {result['purge_cpu_seconds']:.2f} s)\n"
              f"  next recall (warm) {result['recall_after_seconds']:6.2f} s   "
              f"hits {result['hits_before']} -> {result['hits_after']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
