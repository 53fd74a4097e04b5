"""Precision and recall of the model-free contradiction detector on the hand-labelled pair set.

    python -m bench.governance.contradictions [--json] [--data PATH] [--demo] [--scale N]

The set is split deterministically into two halves by line number (pairs of lines alternate:
lines 0-1 go to the development half, 2-3 to the held-out half, and so on, so each half gets
contradictions and their near-miss neighbours alike). The rules were developed looking at the
development half only; the held-out half is the honest number.

`--demo` also runs the detector over the demo workspace's active facts (built in memory, no database)
and prints the pairs it would open. `--scale N` times the detector over N facts of the maintenance
benchmark's synthetic corpus (template-heavy: a worst case for candidate pairs).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from governance.engine.contradiction_rules import ClaimRecord, find_candidates, judge

DATA = Path(__file__).resolve().parents[2] / "tests" / "governance" / "data" / "contradiction_pairs.jsonl"
HALVES = ("development", "held_out")


@dataclass(frozen=True)
class Score:
    pairs: int
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        real = self.true_positives + self.false_negatives
        return self.true_positives / real if real else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "precision": round(self.precision, 3), "recall": round(self.recall, 3),
                "f1": round(self.f1, 3)}  # fmt: skip


def load_pairs(path: Path = DATA) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def half_of(line_number: int) -> str:
    """Which half a line (0-based) belongs to."""
    return HALVES[(line_number // 2) % 2]


def score(pairs: list[dict]) -> Score:
    tp = fp = fn = tn = 0
    for pair in pairs:
        found = judge(pair["a"], pair["b"], pair.get("a_subject", ""), pair.get("b_subject", "")) is not None
        if found and pair["label"]:
            tp += 1
        elif found:
            fp += 1
        elif pair["label"]:
            fn += 1
        else:
            tn += 1
    return Score(len(pairs), tp, fp, fn, tn)


def evaluate(path: Path = DATA) -> dict[str, Score]:
    pairs = load_pairs(path)
    result = {half: score([p for n, p in enumerate(pairs) if half_of(n) == half]) for half in HALVES}
    result["all"] = score(pairs)
    return result


def demo_records() -> list[ClaimRecord]:
    """The demo workspace's active facts as detector records (needs Django settings, not a database)."""
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    django.setup()
    from memory.engine.facts.records import is_untrusted_source
    from memory.services.demo import build_demo_records

    records = []
    for record in build_demo_records(1_790_000_000_000):
        if record.get("lifecycle", "active") != "active":
            continue
        records.append(
            ClaimRecord(
                id=record["memoryId"],
                content=record["content"],
                segment=record["segment"],
                origin_key=json.dumps(record.get("createdBy", {}), sort_keys=True),
                subject_key=record.get("subjectKey") or "",
                trusted=not is_untrusted_source(record.get("sourceType")),
                created_ms=record["createdAt"],
            )
        )
    return records


def time_at_scale(count: int) -> dict:
    """The detector over `count` facts of the maintenance bench corpus: pairs scored, candidates, seconds."""
    import time

    from bench.memory.maintenance import synthesize
    from memory.engine.facts.records import is_untrusted_source

    facts, _, _ = synthesize(count)
    records = [
        ClaimRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                   subject_key=f.subject_key or "", trusted=not is_untrusted_source(f.source_type),
                   created_ms=int(f.created_at))
        for f in facts
    ]  # fmt: skip
    started = time.perf_counter()
    detection = find_candidates(records)
    seconds = time.perf_counter() - started
    return {"facts": count, "pairs_scored": detection.pairs_scored, "candidates": len(detection.candidates),
            "seconds": round(seconds, 2)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.contradictions", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--data", type=Path, default=DATA, help="a JSONL file of {a, b, label} pairs")
    parser.add_argument(
        "--demo", action="store_true", help="also list the pairs opened on the demo workspace"
    )
    parser.add_argument("--scale", type=int, metavar="N", help="also time the detector over N synthetic facts")
    args = parser.parse_args(argv)
    result = evaluate(args.data)
    scale = time_at_scale(args.scale) if args.scale else None
    opened = []
    if args.demo:
        records = demo_records()
        by_id = {record.id: record.content for record in records}
        detection = find_candidates(records)
        opened = [
            {**asdict(c), "a_content": by_id[c.a], "b_content": by_id[c.b]} for c in detection.candidates
        ]
    if args.json:
        print(
            json.dumps(
                {"halves": {k: v.as_dict() for k, v in result.items()}, "demo_opened": opened, "scale": scale},
                indent=2,
            )
        )
        return 0
    for name, s in result.items():
        print(f"{name:12} pairs {s.pairs:3}  precision {s.precision:.3f}  recall {s.recall:.3f}  f1 {s.f1:.3f}  "
              f"TP {s.true_positives} FP {s.false_positives} FN {s.false_negatives} TN {s.true_negatives}")  # fmt: skip
    if scale:
        print(f"\nscale: {scale['facts']:,} facts, {scale['pairs_scored']:,} pairs scored, "
              f"{scale['candidates']:,} candidates in {scale['seconds']:.1f} s")  # fmt: skip
    if args.demo:
        print(f"\ndemo: {len(opened)} pairs opened")
        for c in opened:
            print(
                f"  {c['confidence']:.2f} {c['kind']:9} {c['a_content']!r} / {c['b_content']!r}\n      {c['reason']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
