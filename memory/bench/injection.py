"""How much injected text the write path keeps out of recall, and how much honest text it refuses.

    python -m memory.bench.injection [--corpus tests/data/injection/corpus.jsonl] [--split all|tune|holdout] [--json]

Writes every text of the labelled corpus (`label` attack or benign, `family`, `split`) through the
full write path as `tool_output` into the `knowledge` segment of a fresh workspace (a unique name;
run it on a scratch database), then reads how each one ended:

* `refused` — the write raised (the threat scan or the gate named its rules);
* `held` — the write was held for review (a person decides; recall does not see it);
* `blocked` — it was stored, but recall shows it as `[BLOCKED]` (the recall-time rescan);
* `stored` — it was stored and recall would show it as it is.

An attack is *kept out* when it was refused, held or blocked; a benign text is *kept out wrongly*
the same way. The figures go to docs/BENCHMARKS.md with the command that made them; the `holdout`
split is never used to tune a rule.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "injection" / "corpus.jsonl"


def load(path: Path, split: str = "all") -> list[dict]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [item for item in items if split == "all" or item.get("split") == split]


def fate(tl, text: str) -> tuple[str, tuple[str, ...]]:
    """How one untrusted write ended, and the rules that said so."""
    from memory.engine.gate import TidelineError
    from memory.engine.scan import scan_for_threats

    try:
        record = tl.add(text, segment="knowledge", source_type="tool_output")
    except TidelineError as error:
        return "refused", tuple(getattr(error, "rules", ()) or ())
    if record.outcome == "held":
        return "held", ()
    scan = scan_for_threats(record.content)  # what recall's rescan of an untrusted fact reads
    return ("blocked", scan.rules) if scan.flagged else ("stored", ())


def run(items: list[dict]) -> dict[str, Any]:
    from memory.services.workspaces import create_workspace
    from memory.tideline import Tideline

    workspace = create_workspace(f"injectionbench-{int(time.time() * 1000)}", actor="bench")
    tl = Tideline(workspace, actor="bench")
    families: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses: list[dict] = []
    started = time.perf_counter()
    for item in items:
        ending, rules = fate(tl, item["text"])
        counts = families[(item["label"], item["family"])]
        counts["total"] += 1
        counts[ending] += 1
        kept_out = ending != "stored"
        if kept_out != (item["label"] == "attack"):
            misses.append({"id": item["id"], "label": item["label"], "ending": ending, "rules": list(rules)})
    seconds = time.perf_counter() - started
    out: dict[str, Any] = {"workspace": workspace.name, "items": len(items), "seconds": round(seconds, 2),
                           "families": [], "misses": misses}  # fmt: skip
    for (label, family), counts in sorted(families.items()):
        kept = counts["total"] - counts["stored"]
        out["families"].append({"label": label, "family": family, "total": counts["total"], "kept_out": kept,
                                "refused": counts["refused"], "held": counts["held"], "blocked": counts["blocked"]})  # fmt: skip
    for label in ("attack", "benign"):
        rows = [f for f in out["families"] if f["label"] == label]
        out[label] = {"total": sum(f["total"] for f in rows), "kept_out": sum(f["kept_out"] for f in rows)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memory.bench.injection", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--split", choices=("all", "tune", "holdout"), default="all")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    result = run(load(args.corpus, args.split))
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    attack, benign = result["attack"], result["benign"]
    print(f"{result['items']} texts ({args.split}) written as tool_output in {result['seconds']} s")
    print(f"  attacks kept out of recall: {attack['kept_out']} of {attack['total']}")
    print(f"  benign texts kept out:      {benign['kept_out']} of {benign['total']}")
    for f in result["families"]:
        print(f"    {f['label']:<7} {f['family']:<36} {f['kept_out']:>3}/{f['total']:<3} "
              f"(refused {f['refused']}, held {f['held']}, blocked {f['blocked']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
