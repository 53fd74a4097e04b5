"""Recall quality on LoCoMo conversations in the gold-set format (shared/data/locomo-dev/).

Each file is one long two-person conversation: its observations are the facts, its questions the
cases. A conversation is seeded into the pure engine as one memory: facts written in list order,
all by the owner, every fact embedded with HRR on write, the store clock fixed at 0 (as the gold
format's harness does). The seeder reads the whole gold-set format, so tideline-gold files seed
the same way. Every case is then recalled at k = 10 through one recall lane and scored:
a case is a hit@k when any relevant fact is in the top k, and its reciprocal rank is 1 / rank of the
first relevant fact within the top 10 (0 if none).

Pure: no Django, no database, no clock. `python -m bench.memory.locomo FILE...` prints the table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memory.engine.facts.records import origin_from_created_by
from memory.engine.recall.core import FactColumns, FactRow, Hit, recall, recall_hybrid, search
from memory.engine.recall.hrr import HrrEmbedder
from memory.engine.recall.metrics import hit_at_k, mean_ignoring_nan, reciprocal_rank

K = 10
CLOCK = 0
SCOPE = "owner"

# A lane takes (columns, query, limit) and returns hits best first.
Lane = Callable[[FactColumns, str, int], Sequence[Hit]]

LANES: dict[str, Lane] = {
    "default": lambda cols, q, n: recall(cols, q, CLOCK, SCOPE, limit=n),
    "hybrid": lambda cols, q, n: recall_hybrid(cols, q, CLOCK, SCOPE, limit=n),
    "bm25_modulated": lambda cols, q, n: search(cols, q, CLOCK, SCOPE, limit=n),
    "plain_bm25": lambda cols, q, n: search(cols, q, CLOCK, SCOPE, limit=n, modulate=False),
}


@dataclass(frozen=True)
class Figures:
    """hit@5, hit@10 and MRR@10 averaged over `n` cases."""

    n: int
    hit_at_5: float
    hit_at_10: float
    mrr_at_10: float


@dataclass(frozen=True)
class CaseOutcome:
    conversation: str
    case_id: str
    category: str
    query: str
    relevant: tuple[str, ...]
    ranking: tuple[str, ...]
    hit_at_5: float
    hit_at_10: float
    reciprocal_rank: float


@dataclass(frozen=True)
class LocomoReport:
    """Figures over every case, per category (in first-seen order) and per conversation."""

    lane: str
    overall: Figures
    by_category: dict[str, Figures]
    by_conversation: dict[str, Figures]
    cases: tuple[CaseOutcome, ...] = field(repr=False)
    seconds: float = 0.0


def load_conversation(path: str | Path) -> dict:
    """Read one file of the gold-set format. Case keys may be spelled `relevantKeys` or `relevant_keys`."""
    spec = json.loads(Path(path).read_text(encoding="utf-8"))
    for case in spec["cases"]:
        if "relevant_keys" not in case:
            case["relevant_keys"] = case["relevantKeys"]
    spec.setdefault("name", Path(path).stem)
    return spec


def seed_conversation(spec: Mapping, embedder: HrrEmbedder | None = None, clock: int = CLOCK) -> FactColumns:
    """One memory holding the spec's facts as the write path would store them, in list order.

    Every fact is created at `clock` and embedded with HRR. Optional fields of the gold format are
    honoured: `importance`, `source_type`, `created_by` (absent ⇒ the owner), and `supersedes_keys`,
    which must name earlier facts and archives them (validTo = clock). LoCoMo files carry none of
    these, so there every fact is an active owner `knowledge` fact.
    """
    keys: list[str] = []
    superseded: set[str] = set()
    for fact in spec["facts"]:
        if fact["key"] in keys:
            raise ValueError(f"{spec.get('name')}: duplicate fact key {fact['key']}")
        for earlier in fact.get("supersedes_keys") or ():
            if earlier not in keys:
                raise ValueError(
                    f"{spec.get('name')}: {fact['key']} supersedes {earlier}, which is not earlier"
                )
            superseded.add(earlier)
        keys.append(fact["key"])
    rows = [
        FactRow(
            memory_id=fact["key"],
            content=fact["content"],
            segment=fact.get("segment", "knowledge"),
            importance=fact.get("importance"),
            source_type=fact.get("source_type"),
            origin=origin_from_created_by(fact.get("created_by")),
            created_at=clock,
            lifecycle="archived" if fact["key"] in superseded else "active",
            valid_to=clock if fact["key"] in superseded else None,
        )
        for fact in spec["facts"]
    ]
    return FactColumns.from_rows(rows, embedder=embedder or HrrEmbedder())


def _figures(outcomes: Sequence[CaseOutcome]) -> Figures:
    return Figures(
        n=len(outcomes),
        hit_at_5=mean_ignoring_nan(o.hit_at_5 for o in outcomes),
        hit_at_10=mean_ignoring_nan(o.hit_at_10 for o in outcomes),
        mrr_at_10=mean_ignoring_nan(o.reciprocal_rank for o in outcomes),
    )


def _grouped(outcomes: Sequence[CaseOutcome], key: Callable[[CaseOutcome], str]) -> dict[str, Figures]:
    groups: dict[str, list[CaseOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(key(outcome), []).append(outcome)
    return {name: _figures(group) for name, group in groups.items()}


def evaluate_locomo(paths: Iterable[str | Path], lane: str | Lane = "default", k: int = K) -> LocomoReport:
    """Seed each conversation, recall every case through `lane` with limit k, and score the rankings.

    `lane` is a name from `LANES` ("default" is the engine's `recall`; "hybrid", "bm25_modulated"
    and "plain_bm25" are the original's lanes) or a callable `(columns, query, limit) -> hits`.
    Cases without relevant facts (none in LoCoMo) would be skipped by the means.
    """
    run = LANES[lane] if isinstance(lane, str) else lane
    started = time.perf_counter()
    outcomes: list[CaseOutcome] = []
    for path in paths:
        spec = load_conversation(path)
        cols = seed_conversation(spec)
        for case in spec["cases"]:
            ranking = tuple(hit.memory_id for hit in run(cols, case["query"], k))
            gold = case["relevant_keys"]
            outcomes.append(
                CaseOutcome(
                    conversation=spec["name"],
                    case_id=case["id"],
                    category=case.get("category") or "uncategorized",
                    query=case["query"],
                    relevant=tuple(gold),
                    ranking=ranking,
                    hit_at_5=hit_at_k(ranking, gold, 5),
                    hit_at_10=hit_at_k(ranking, gold, 10),
                    reciprocal_rank=reciprocal_rank(ranking, gold, 10),
                )
            )
    return LocomoReport(
        lane=lane if isinstance(lane, str) else getattr(lane, "__name__", "custom"),
        overall=_figures(outcomes),
        by_category=_grouped(outcomes, lambda o: o.category),
        by_conversation=_grouped(outcomes, lambda o: o.conversation),
        cases=tuple(outcomes),
        seconds=time.perf_counter() - started,
    )


def format_report(report: LocomoReport) -> str:
    """A plain-text table: one row per category, per conversation, then the overall figures."""
    lines = [
        f"lane: {report.lane}  ({report.seconds:.1f} s)",
        f"{'':24} {'n':>5} {'hit@5':>7} {'hit@10':>7} {'MRR@10':>7}",
    ]

    def row(name: str, f: Figures) -> str:
        return f"{name:24} {f.n:>5} {f.hit_at_5:>7.3f} {f.hit_at_10:>7.3f} {f.mrr_at_10:>7.3f}"

    lines += [row(name, figures) for name, figures in report.by_category.items()]
    lines += [row(name, figures) for name, figures in report.by_conversation.items()]
    lines.append(row("overall", report.overall))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.locomo", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="conversation files in the gold-set format")
    parser.add_argument(
        "--lane", action="append", choices=sorted(LANES), help="lane(s) to run (default: default)"
    )
    args = parser.parse_args(argv)
    for index, lane in enumerate(args.lane or ["default"]):
        if index:
            print()
        print(format_report(evaluate_locomo(args.paths, lane)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
