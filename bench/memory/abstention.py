"""Does recall know when it knows nothing? In-domain against out-of-domain questions (docs/BENCHMARKS.md).

    python -m bench.memory.abstention FILE FILE... [--floor F] [--cv] [--learned] [--json]

Each file is one conversation in the gold-set format (`shared/data/locomo-dev/`, or the gold sets).
Every conversation is seeded as one memory (`bench.memory.locomo.seed_conversation`) and asked its
own questions (in-domain: the answer is there) and every other conversation's questions
(out-of-domain: it is not). Reported, over all conversations:

* AUROC of the top hit's relevance (`memory.engine.recall.relevance`): the chance that an in-domain
  question's best relevance beats an out-of-domain question's (0.5 is a coin toss; a question with
  no hit scores 0);
* the share of out-of-domain questions that get no hit at all (a conversation's own questions with
  no relevant fact, such as the gold sets' abstention cases, count as out-of-domain);
* in-domain hit@10 and MRR@10, as `bench.memory.locomo` scores them.

By default hits below the engine's `DEFAULT_FLOOR` are dropped, as recall drops them; `--floor F`
tries another floor. `--cv` chooses the constants by leave-one-conversation-out cross-validation:
for each conversation, the fused lane's settings, the relevance's knobs (`UNKNOWN_POWER`,
`UNKNOWN_WORD_WEIGHT`) and the floor are
chosen on the other conversations alone (the rule: the floor is the lowest that leaves at least
`TARGET_NO_HIT` of their out-of-domain questions without a hit; then the settings and power with
the best in-domain hit@10 at their floor), and the held-out conversation is scored with them. The
report pools the held-out scores: those are the numbers to quote.

Recall runs once per (settings, conversation, question) with no floor and k = 10; every floor and
power is then scored from each hit's recorded evidence (coverage, spelling, learned similarity, the query's known and unknown weights), so the
search is exact and cheap. Pure: no Django, no database.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from bench.memory.locomo import CLOCK, SCOPE, K, load_conversation, seed_conversation
from memory.engine.recall import relevance as relevance_rules
from memory.engine.recall.fusion import DEFAULT_SETTINGS, FusionSettings, recall_fused
from memory.engine.recall.metrics import auroc
from memory.engine.tuning import DEFAULT as DEFAULT_TUNING

Knobs = tuple[float, float]  # (unknown_power, unknown_word_weight)
ENGINE: Knobs = (relevance_rules.UNKNOWN_POWER, relevance_rules.UNKNOWN_WORD_WEIGHT)
TARGET_NO_HIT = 0.5  # the bar: at least half of out-of-domain questions get nothing
KNOB_GRID = tuple(product((1.0, 2.0, 4.0, 6.0, 8.0, 12.0), (0.0, 0.1, 0.25, 0.5, 1.0)))
# A small grid around the shipped fusion settings: the cross-validation picks per fold.
SETTINGS_GRID = tuple(
    FusionSettings(ngram_weight=n, expansion_weight=e, feedback_docs=d)
    for n, e, d in product((0.15, 0.25, 0.35), (0.2, 0.35, 0.5), (2, 3, 5))
)


@dataclass(frozen=True)
class Question:
    """One question asked of one memory, with the evidence of each hit (best first)."""

    memory: int  # which conversation's memory was asked
    asker: int  # whose question it is
    inside: bool  # the memory holds a relevant fact for it
    coverage: np.ndarray
    spelling: np.ndarray  # the n-gram similarity on relevance's scale
    similarity: np.ndarray  # the learned embedder's, on relevance's scale (0 without one)
    weights: tuple[float, float, float]  # the query's known, unknown-name and other unknown weight
    relevant: np.ndarray  # per hit: is it one of the relevant facts


@dataclass(frozen=True)
class Figures:
    in_domain: int
    out_of_domain: int
    auroc_top_relevance: float
    out_of_domain_no_hit: float
    in_domain_hit_at_10: float
    in_domain_mrr_at_10: float


@dataclass(frozen=True)
class AbstentionReport:
    conversations: int
    floor: float
    unknown_power: float
    unknown_word_weight: float
    figures: Figures
    no_floor: Figures
    folds: list[dict] = field(default_factory=list)  # --cv: what each held-out fold chose and scored
    chosen: dict = field(default_factory=dict)  # --cv: what the procedure chooses on every conversation


def collect(specs: Sequence[dict], settings: FusionSettings = DEFAULT_SETTINGS, k: int = K,
            learned: Any = None) -> list[Question]:  # fmt: skip
    """Ask every memory every conversation's questions once, with no floor; keep each hit's evidence.

    `learned`: a learned embedder (MiniLM) whose vectors the facts get and whose cosine joins the
    fused lane with the tuning's learned weight, as `default+learned` recall does."""
    out = []
    vectors: dict[str, Any] = {}
    if learned is not None:
        settings = replace(settings, vector_weight=DEFAULT_TUNING.learned_weight)
        queries = list(dict.fromkeys(case["query"] for spec in specs for case in spec["cases"]))
        vectors = dict(zip(queries, learned.embed(queries), strict=True))
    for mi, spec in enumerate(specs):
        cols = seed_conversation(spec, embedder=learned)
        for ai, asker in enumerate(specs):
            for case in asker["cases"]:
                relevant = set(case["relevant_keys"]) if ai == mi else set()
                extra = {"embedder": learned, "query_vector": vectors[case["query"]]} if learned is not None else {}
                hits = recall_fused(cols, case["query"], CLOCK, SCOPE, limit=k, settings=settings, **extra)
                c = [h.components for h in hits]
                out.append(Question(
                    memory=mi, asker=ai, inside=bool(relevant),
                    coverage=np.array([x["coverage"] for x in c]), spelling=np.array([x["spelling"] for x in c]),
                    similarity=np.array([x["similarity"] for x in c]),
                    weights=tuple(c[0]["query_weights"]) if c else (0.0, 0.0, 0.0),
                    relevant=np.array([h.memory_id in relevant for h in hits], dtype=bool),
                ))  # fmt: skip
    return out


def relevances(question: Question, knobs: Knobs) -> np.ndarray:
    """Each hit's relevance as the engine computes it, with these knobs."""
    power, word_weight = knobs
    return relevance_rules.combine(np.maximum(question.coverage, question.spelling), question.similarity,
                                   question.weights, power=power, word_weight=word_weight)  # fmt: skip


@dataclass(frozen=True)
class _Flat:
    """Every hit of every question in flat arrays, so a floor is scored without a Python loop."""

    question: np.ndarray  # per hit: its question's position
    starts: np.ndarray  # per question: its first hit (questions without hits start where the next does)
    count: np.ndarray  # per question: how many hits
    inside: np.ndarray
    relevant: np.ndarray
    questions: Sequence[Question]


def _flat(questions: Sequence[Question]) -> _Flat:
    count = np.array([q.coverage.size for q in questions], dtype=np.int64)
    return _Flat(
        question=np.repeat(np.arange(len(questions)), count),
        starts=np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64), count=count,
        inside=np.array([q.inside for q in questions], dtype=bool),
        relevant=np.concatenate([q.relevant for q in questions]) if questions else np.zeros(0, bool),
        questions=questions,
    )  # fmt: skip


def _all_relevances(flat: _Flat, knobs: Knobs) -> np.ndarray:
    parts = [relevances(q, knobs) for q in flat.questions]
    return np.concatenate(parts) if parts else np.zeros(0)


def _per_question_max(flat: _Flat, values: np.ndarray) -> np.ndarray:
    top = np.zeros(flat.count.size)
    np.maximum.at(top, flat.question, values)
    return top


def _figures(flat: _Flat, rel: np.ndarray, floor: float) -> Figures:
    kept = rel >= floor
    top = _per_question_max(flat, np.where(kept, rel, 0.0))
    # A hit's rank among its question's kept hits (0-based), for hit@10 and the reciprocal rank.
    running = np.cumsum(kept) - kept
    kept_rank = running - running[flat.starts[flat.question]] if rel.size else running
    first = np.full(flat.count.size, np.inf)
    good = kept & flat.relevant & (kept_rank < 10)
    np.minimum.at(first, flat.question[good], kept_rank[good])
    inside, outside = flat.inside, ~flat.inside
    found = np.isfinite(first[inside])
    rr = np.where(found, 1.0 / (np.where(found, first[inside], 0) + 1), 0.0)
    return Figures(
        in_domain=int(inside.sum()), out_of_domain=int(outside.sum()),
        auroc_top_relevance=round(auroc(top[inside], top[outside]), 4),
        out_of_domain_no_hit=round(float(np.mean(top[outside] == 0.0)) if outside.any() else 0.0, 4),
        in_domain_hit_at_10=round(float(found.mean()) if inside.any() else 0.0, 4),
        in_domain_mrr_at_10=round(float(rr.mean()) if inside.any() else 0.0, 4),
    )  # fmt: skip


def score(questions: Sequence[Question], floor: float, knobs: Knobs) -> Figures:
    """The figures when hits below `floor` are dropped (in-domain ranks count the kept hits only)."""
    flat = _flat(questions)
    return _figures(flat, _all_relevances(flat, knobs), floor)


def lowest_floor(flat: _Flat, rel: np.ndarray, share: float = TARGET_NO_HIT) -> float:
    """The lowest floor leaving at least `share` of the out-of-domain questions without a hit: just
    above the top relevance of the out-of-domain question at that quantile."""
    tops = np.sort(_per_question_max(flat, rel)[~flat.inside])
    if tops.size == 0:
        return 0.0
    needed = int(np.ceil(share * tops.size))
    if needed == 0 or tops[needed - 1] == 0.0:  # enough of them get nothing with no floor at all
        return 0.0
    return float(np.nextafter(tops[needed - 1], np.inf))


def choose(questions: Sequence[Question], grid=KNOB_GRID) -> tuple[Knobs, float, Figures]:
    """(knobs, floor, figures): for each knob pair the lowest floor leaving ≥ TARGET_NO_HIT of the
    out-of-domain questions without a hit; of those, the best in-domain hit@10 (then MRR)."""
    flat = _flat(questions)
    best = None
    for knobs in grid:
        rel = _all_relevances(flat, knobs)
        floor = lowest_floor(flat, rel)
        figures = _figures(flat, rel, floor)
        key = (figures.in_domain_hit_at_10, figures.in_domain_mrr_at_10)
        if best is None or key > best[0]:
            best = (key, knobs, floor, figures)
    assert best is not None
    return best[1], best[2], best[3]


def cross_validate(specs: Sequence[dict], grid: Sequence[FusionSettings] = SETTINGS_GRID,
                   learned: Any = None) -> AbstentionReport:  # fmt: skip
    """Leave one conversation out: choose settings, knobs and floor on the rest, score the one left."""
    by_settings = [collect(specs, settings, learned=learned) for settings in grid]
    held_out, held_out_unfloored, folds = [], [], []
    for fold in range(len(specs)):
        choices = [(choose(_without(qs, fold)), i) for i, qs in enumerate(by_settings)]
        (knobs, floor, figures), index = max(
            choices, key=lambda c: (c[0][2].in_domain_hit_at_10, c[0][2].in_domain_mrr_at_10)
        )
        chosen = [q for q in by_settings[index] if q.memory == fold]
        held = score(chosen, floor, knobs)
        held_out.extend((q, floor, knobs) for q in chosen)
        held_out_unfloored.extend(chosen)
        folds.append({"held_out": specs[fold].get("name", str(fold)), "settings": asdict(grid[index]),
                      "unknown_power": knobs[0], "unknown_word_weight": knobs[1], "floor": floor,
                      "train": asdict(figures), "held_out_figures": asdict(held)})  # fmt: skip
    # The procedure run once more on every conversation gives the constants to ship (its in-sample
    # figures are not the ones to quote).
    (knobs, floor, figures), index = max(
        ((choose(qs), i) for i, qs in enumerate(by_settings)),
        key=lambda c: (c[0][2].in_domain_hit_at_10, c[0][2].in_domain_mrr_at_10),
    )
    final = {"settings": asdict(grid[index]), "unknown_power": knobs[0], "unknown_word_weight": knobs[1],
             "floor": floor, "in_sample": asdict(figures)}  # fmt: skip
    return AbstentionReport(
        conversations=len(specs), floor=float("nan"), unknown_power=float("nan"), unknown_word_weight=float("nan"),
        figures=_pooled(held_out), no_floor=score(held_out_unfloored, 0.0, ENGINE), folds=folds, chosen=final,
    )  # fmt: skip


def _without(questions: Sequence[Question], fold: int) -> list[Question]:
    """The questions neither asked of nor asked by conversation `fold` (what the other folds know)."""
    return [q for q in questions if fold not in (q.memory, q.asker)]


def _pooled(triples) -> Figures:
    """Figures over held-out questions each scored with its own fold's floor and knobs."""
    shifted = []
    for q, floor, knobs in triples:
        # Rescale so one floor of 1 applies: relevance / floor ≥ 1 exactly when relevance ≥ floor.
        rel = relevances(q, knobs) / max(floor, 1e-12)
        zeros = np.zeros_like(rel)
        shifted.append(Question(q.memory, q.asker, q.inside, rel, zeros, zeros, (1.0, 0.0, 0.0), q.relevant))
    return score(shifted, 1.0, (1.0, 1.0))


def evaluate(paths: Sequence[str | Path], floor: float | None = None, cv: bool = False,
             learned: Any = None) -> AbstentionReport:  # fmt: skip
    specs = [load_conversation(path) for path in paths]
    if cv:  # with the embedder each setting costs a minute of encoding: only the shipped settings then
        return cross_validate(specs, grid=SETTINGS_GRID if learned is None else (DEFAULT_SETTINGS,), learned=learned)
    questions = collect(specs, learned=learned)
    floor = relevance_rules.DEFAULT_FLOOR if floor is None else floor
    return AbstentionReport(conversations=len(specs), floor=floor, unknown_power=ENGINE[0], unknown_word_weight=ENGINE[1],
                            figures=score(questions, floor, ENGINE), no_floor=score(questions, 0.0, ENGINE))  # fmt: skip


def format_report(report: AbstentionReport) -> str:
    def lines(name: str, f: Figures) -> list[str]:
        return [
            f"{name}: {f.in_domain} in-domain and {f.out_of_domain} out-of-domain questions",
            f"  AUROC of the top relevance   {f.auroc_top_relevance:.3f}",
            f"  out-of-domain with no hit    {f.out_of_domain_no_hit:.1%}",
            f"  in-domain hit@10 / MRR@10    {f.in_domain_hit_at_10:.3f} / {f.in_domain_mrr_at_10:.3f}",
        ]

    head = (f"{report.conversations} conversations, held-out folds (leave one conversation out)" if report.folds
            else f"{report.conversations} conversations, floor {report.floor:g}, unknown power {report.unknown_power:g}, "
                 f"unknown word weight {report.unknown_word_weight:g}")  # fmt: skip
    out = [head, *lines("with the floor", report.figures), *lines("without a floor", report.no_floor)]
    for fold in report.folds:
        f = fold["held_out_figures"]
        s = fold["settings"]
        out.append(f"  fold {fold['held_out']}: floor {fold['floor']:g}, power {fold['unknown_power']:g}, "
                   f"word weight {fold['unknown_word_weight']:g}, "
                   f"ngram {s['ngram_weight']:g}, expansion {s['expansion_weight']:g}, feedback {s['feedback_docs']} → "
                   f"AUROC {f['auroc_top_relevance']:.3f}, no hit {f['out_of_domain_no_hit']:.1%}, "
                   f"hit@10 {f['in_domain_hit_at_10']:.3f}, MRR {f['in_domain_mrr_at_10']:.3f}")  # fmt: skip
    if report.chosen:
        c, s = report.chosen, report.chosen["settings"]
        out.append(f"  on all {report.conversations}: floor {c['floor']:.4g}, power {c['unknown_power']:g}, word weight "
                   f"{c['unknown_word_weight']:g}, ngram {s['ngram_weight']:g}, expansion {s['expansion_weight']:g}, "
                   f"feedback {s['feedback_docs']} (in-sample hit@10 {c['in_sample']['in_domain_hit_at_10']:.3f})")  # fmt: skip
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.abstention", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="conversation files in the gold-set format (two or more)")
    parser.add_argument("--floor", type=float, default=None, help="drop hits whose relevance is below this")
    parser.add_argument("--cv", action="store_true", help="leave-one-conversation-out cross-validation")
    parser.add_argument("--learned", action="store_true",
                        help="give the facts all-MiniLM-L6-v2 vectors and fuse its cosine, as default+learned does")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if len(args.paths) < 2 or (args.cv and len(args.paths) < 3):
        parser.error("give at least two conversations (three with --cv): each is asked the others' questions")
    missing = [p for p in args.paths if not Path(p).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    learned = None
    if args.learned:
        from memory.engine.recall.minilm import MiniLmEmbedder

        learned = MiniLmEmbedder.from_package()
    report = evaluate(args.paths, args.floor, args.cv, learned)
    print(json.dumps(asdict(report), indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
