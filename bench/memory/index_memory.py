"""What the recall indexes of many small workspaces take in one process's resident memory, built from
the database or restored from their snapshots, against what the index budget counts for them.

    python -m bench.memory.index_memory --reuse PREFIX [--count 500] [--smallest 40] [--largest 199]
                                        [--source database|snapshot] [--json]

PREFIX names workspaces `bench.governance.workspaces_load` seeded (its `var/PREFIX.json`). The same
`--count` workspaces (drawn with a fixed seed among those of `--smallest`–`--largest` facts) are
looked up once each into an empty registry whose budget is too large to let any go; reported: their
facts, the budget's estimate (`IndexRegistry.held_bytes`) and the growth of resident memory. With
`--source snapshot` the indexes come from the snapshot directory, so each must have been written
before (a run with `TIDELINE_RECALL_SNAPSHOT_MIN_FACTS` at or below `--smallest`, or
`memory.services.recall.index.write_snapshots`); with `database` the directory is set aside.
Run each source in a process of its own (the figures are the process's).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.index_memory", description=__doc__.split("\n")[0])
    parser.add_argument("--reuse", required=True, help="the prefix of the workspaces a many-workspaces run seeded")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--smallest", type=int, default=40)
    parser.add_argument("--largest", type=int, default=199)
    parser.add_argument("--source", choices=("database", "snapshot"), default="database")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import override_settings

    from bench.governance.workspaces_load import seeded_record
    from bench.memory.resident import resident_mb
    from memory.engine.facts.records import Origin
    from memory.models import Workspace
    from memory.services.recall import index as recall_index

    seeded = json.loads(seeded_record(args.reuse).read_text())
    sized = [w for w in seeded if args.smallest <= w["facts"] <= args.largest]
    chosen = random.Random(9).sample(sized, min(args.count, len(sized)))
    ids = dict(Workspace.objects.filter(name__in=[w["name"] for w in chosen]).values_list("name", "pk"))
    origin, registry = Origin.owner(), recall_index.registry
    registry.get(ids[chosen[0]["name"]], origin)  # the code paths and caches every index uses, once
    registry.clear()
    gc.collect()
    before = resident_mb()
    directory = settings.TIDELINE_RECALL_SNAPSHOT_DIR if args.source == "snapshot" else "/nonexistent"
    with override_settings(TIDELINE_RECALL_SNAPSHOT_DIR=directory, TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0,
                           TIDELINE_RECALL_INDEX_BUDGET_MB=1 << 20):  # fmt: skip
        for w in chosen:
            registry.get(ids[w["name"]], origin)
    gc.collect()
    report = {"source": args.source, "indexes": len(chosen), "facts": sum(w["facts"] for w in chosen),
              "estimate_mb": round(registry.held_bytes() / 2**20, 1), "resident_growth_mb": round(resident_mb() - before, 1)}  # fmt: skip
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['source']}: {report['indexes']} indexes, {report['facts']:,} facts: estimate "
              f"{report['estimate_mb']} MB, resident memory +{report['resident_growth_mb']} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
