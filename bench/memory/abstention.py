"""Does recall know when it knows nothing, and does it return only what answers? (docs/BENCHMARKS.md)

    python -m bench.memory.abstention FILE FILE... [--floor F] [--cut C] [--cv [--search-knobs]
                                                   [--settings-grid]] [--learned] [--json]

Each file is one conversation in the gold-set format (`shared/data/locomo-dev/`, or the gold sets).
Every conversation is seeded as one memory (`bench.memory.locomo.seed_conversation`) and asked its
own questions (in-domain: the answer is there) and every other conversation's questions
(out-of-domain: it is not). Reported, over all conversations, for what recall returns:

* AUROC of the top hit's relevance (`memory.engine.recall.relevance`): the chance that an in-domain
  question's best relevance beats an out-of-domain question's (0.5 is a coin toss; a question with
  no hit scores 0);
* the share of out-of-domain questions that get no hit at all (a conversation's own questions with
  no relevant fact, such as the gold sets' abstention cases, count as out-of-domain);
* in-domain hit@10 and MRR@10, as `bench.memory.locomo` scores them, over the hits returned;
* precision (of the hits returned to in-domain questions, the share that are evidence) and hits
  per question; and the same per question category.

By default recall keeps what the engine keeps (`DEFAULT_FLOOR`, `DEFAULT_CUT`: `selection.py`);
`--floor` and `--cut` try others. `--cv` chooses the constants by leave-one-conversation-out
cross-validation: for each conversation, the floor and cut are chosen on the other conversations
alone (the floor: the lowest that leaves at least `TARGET_NO_HIT` of their out-of-domain questions
without a hit; the cut: the lowest of `CUT_GRID` that makes at least `TARGET_PRECISION` of what is
returned evidence), and the held-out conversation is scored with them. `--search-knobs` also
chooses relevance's knobs (`UNKNOWN_POWER`, `UNKNOWN_WORD_WEIGHT`) per fold from `KNOB_GRID`, and
`--settings-grid` the fused lane's settings (the best in-domain hit@10 wins). The report pools
the held-out scores: those are the numbers to quote.

Recall judges each question's candidates once per setting (`FusedQuery.candidates`, k = 10);
every floor, cut and knob is then scored from each candidate's recorded evidence (coverage,
spelling, learned similarity, trust, the query's known and unknown weights) in the engine's order,
so the search is exact and cheap. Pure: no Django, no database.
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
from memory.engine.recall.fusion import DEFAULT_SETTINGS, FusionSettings, prepare
from memory.engine.recall.metrics import auroc
from memory.engine.tuning import DEFAULT as DEFAULT_TUNING

Knobs = tuple[float, float]  # (unknown_power, unknown_word_weight)
ENGINE: Knobs = (relevance_rules.UNKNOWN_POWER, relevance_rules.UNKNOWN_WORD_WEIGHT)
TARGET_NO_HIT = 0.6  # the bar: at least 60% of out-of-domain questions get nothing
TARGET_PRECISION = 0.25  # the bar: a quarter of what recall returns for a question it can answer is evidence
CUT_GRID = (0.0, 0.3, 0.4, *(round(0.5 + 0.025 * i, 3) for i in range(17)))  # 0.5 to 0.9 in steps of 0.025
KNOB_GRID = tuple(product((1.0, 2.0, 4.0, 6.0, 8.0, 12.0), (0.0, 0.1, 0.25, 0.5, 1.0)))
# A small grid around the shipped fusion settings: the cross-validation picks per fold.
SETTINGS_GRID = tuple(
    FusionSettings(ngram_weight=n, expansion_weight=e, feedback_docs=d)
    for n, e, d in product((0.15, 0.25, 0.35), (0.2, 0.35, 0.5), (2, 3, 5))
)


@dataclass(frozen=True)
class Question:
    """One question asked of one memory, with the evidence of each candidate recall judged (in the
    fused score's order, as `FusedQuery.candidates` gives them)."""

    memory: int  # which conversation's memory was asked
    asker: int  # whose question it is
    inside: bool  # the memory holds a relevant fact for it
    coverage: np.ndarray
    spelling: np.ndarray  # the n-gram similarity on relevance's scale
    similarity: np.ndarray  # the learned embedder's, on relevance's scale (0 without one)
    weights: tuple[float, float, float]  # the query's known, unknown-name and other unknown weight
    relevant: np.ndarray  # per candidate: is it one of the relevant facts
    category: str = ""
    trust: np.ndarray | None = None  # per candidate: its source weight × confidence factor (None: all 1)
    match: np.ndarray | None = None  # per candidate: its match strength (the blend; None: its relevance)


@dataclass(frozen=True)
class Figures:
    in_domain: int
    out_of_domain: int
    auroc_top_relevance: float
    out_of_domain_no_hit: float
    in_domain_hit_at_10: float
    in_domain_mrr_at_10: float
    precision: float = 0.0  # of the hits returned to in-domain questions, the share that are evidence
    hits_per_question: float = 0.0  # mean hits returned per in-domain question


@dataclass(frozen=True)
class AbstentionReport:
    conversations: int
    floor: float
    unknown_power: float
    unknown_word_weight: float
    figures: Figures
    no_floor: Figures
    cut: float = 0.0
    folds: list[dict] = field(default_factory=list)  # --cv: what each held-out fold chose and scored
    chosen: dict = field(default_factory=dict)  # --cv: what the procedure chooses on every conversation
    by_category: dict = field(default_factory=dict)  # held-out (or plain) figures per question category


def collect(specs: Sequence[dict], settings: FusionSettings = DEFAULT_SETTINGS, k: int = K,
            learned: Any = None) -> list[Question]:  # fmt: skip
    """Ask every memory every conversation's questions once; keep each judged candidate's evidence.

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
                fused = prepare(cols, case["query"], CLOCK, SCOPE, settings=settings, **extra)
                hits = fused.candidates(k) if fused is not None else []
                c = [h.components for h in hits]
                out.append(Question(
                    memory=mi, asker=ai, inside=bool(relevant),
                    coverage=np.array([x["coverage"] for x in c]), spelling=np.array([x["spelling"] for x in c]),
                    similarity=np.array([x["similarity"] for x in c]),
                    weights=tuple(c[0]["query_weights"]) if c else (0.0, 0.0, 0.0),
                    relevant=np.array([h.memory_id in relevant for h in hits], dtype=bool),
                    category=case.get("category") or "uncategorized",
                    trust=np.array([x["relevance_trust"] for x in c]), match=np.array([x["match"] for x in c]),
                ))  # fmt: skip
    return out


def relevances(question: Question, knobs: Knobs) -> np.ndarray:
    """Each candidate's relevance as the engine computes it, with these knobs (evidence × trust)."""
    power, word_weight = knobs
    evidence = relevance_rules.combine(np.maximum(question.coverage, question.spelling), question.similarity,
                                       question.weights, power=power, word_weight=word_weight)  # fmt: skip
    return evidence if question.trust is None else np.round(np.clip(evidence, 0.0, 1.0), 6) * question.trust


def returned(rel: np.ndarray, floor: float, cut: float, k: int = K, match: np.ndarray | None = None) -> np.ndarray:
    """The positions recall returns, in its order: most relevant first (ties keep the candidates'
    order), reaching `floor` and `cut` × the best match among them (`match` given: the match cut, as
    the engine ships) or × the best relevance (`match` None), at most `k`
    (`memory.engine.recall.selection`)."""
    order = np.argsort(-rel, kind="stable")
    order = order[rel[order] >= floor]
    if order.size and cut > 0:
        if match is None:
            order = order[rel[order] >= cut * rel[order[0]]]
        else:
            order = order[match[order] >= cut * match[order].max()]
    return order[:k]


CUT_ON = "match"  # which cut the procedure chooses: the match cut (shipped) or the relevance cut (--cut-on)


def _cut_by(question: Question) -> np.ndarray | None:
    return question.match if CUT_ON == "match" else None


def score(questions: Sequence[Question], floor: float, knobs: Knobs, cut: float = 0.0) -> Figures:
    """The figures of what recall returns with this floor, cut and knobs."""
    return _figures(questions, [relevances(q, knobs) for q in questions], floor, cut)


def _figures(questions: Sequence[Question], rels: Sequence[np.ndarray], floor: float | Sequence[float],
             cut: float | Sequence[float]) -> Figures:  # fmt: skip
    n = len(questions)
    floors = floor if isinstance(floor, Sequence) else [floor] * n
    cuts = cut if isinstance(cut, Sequence) else [cut] * n
    tops_in, tops_out, hits, rr, returned_n, good_n, empty_out = [], [], [], [], 0, 0, 0
    for q, rel, f, c in zip(questions, rels, floors, cuts, strict=True):
        kept = returned(rel, f, c, match=_cut_by(q))
        top = float(rel[kept[0]]) / max(f, 1e-12) if kept.size else 0.0  # relative to the floor, pooled folds
        if not q.inside:
            tops_out.append(top)
            empty_out += kept.size == 0
            continue
        tops_in.append(top)
        good = q.relevant[kept]
        returned_n += kept.size
        good_n += int(good.sum())
        first = np.flatnonzero(good)
        hits.append(bool(first.size))
        rr.append(1.0 / (first[0] + 1) if first.size else 0.0)
    return Figures(
        in_domain=len(tops_in), out_of_domain=len(tops_out),
        auroc_top_relevance=round(auroc(tops_in, tops_out), 4) if tops_in and tops_out else 0.0,
        out_of_domain_no_hit=round(empty_out / len(tops_out), 4) if tops_out else 0.0,
        in_domain_hit_at_10=round(float(np.mean(hits)), 4) if hits else 0.0,
        in_domain_mrr_at_10=round(float(np.mean(rr)), 4) if rr else 0.0,
        precision=round(good_n / returned_n, 4) if returned_n else 0.0,
        hits_per_question=round(returned_n / len(tops_in), 3) if tops_in else 0.0,
    )  # fmt: skip


def lowest_floor(questions: Sequence[Question], rels: Sequence[np.ndarray], share: float = TARGET_NO_HIT) -> float:
    """The lowest floor leaving at least `share` of the out-of-domain questions without a hit: just
    above the top relevance of the out-of-domain question at that quantile."""
    tops = np.sort([float(rel.max()) if rel.size else 0.0 for q, rel in zip(questions, rels, strict=True)
                    if not q.inside])  # fmt: skip
    if tops.size == 0:
        return 0.0
    needed = int(np.ceil(share * tops.size))
    if needed == 0 or tops[needed - 1] == 0.0:  # enough of them get nothing with no floor at all
        return 0.0
    return float(np.nextafter(tops[needed - 1], np.inf))


def choose(questions: Sequence[Question], grid=KNOB_GRID, cuts=CUT_GRID) -> tuple[Knobs, float, float, Figures]:
    """(knobs, floor, cut, figures): for each knob pair the lowest floor leaving ≥ TARGET_NO_HIT of
    the out-of-domain questions without a hit, and the lowest cut that makes ≥ TARGET_PRECISION of
    what is returned evidence (the highest cut when none does); of those, the best in-domain hit@10,
    then MRR."""
    best = None
    for knobs in grid:
        rels = [relevances(q, knobs) for q in questions]
        floor = lowest_floor(questions, rels)
        options = [(cut, _figures(questions, rels, floor, cut)) for cut in cuts]
        enough = [(cut, f) for cut, f in options if f.precision >= TARGET_PRECISION]
        cut, figures = enough[0] if enough else options[-1]
        key = (bool(enough), figures.in_domain_hit_at_10, figures.in_domain_mrr_at_10)
        if best is None or key > best[0]:
            best = (key, knobs, floor, cut, figures)
    assert best is not None
    return best[1], best[2], best[3], best[4]


def cross_validate(specs: Sequence[dict], grid: Sequence[FusionSettings] = (DEFAULT_SETTINGS,),
                   learned: Any = None, knob_grid=(ENGINE,)) -> AbstentionReport:  # fmt: skip
    """Leave one conversation out: choose settings, knobs, floor and cut on the rest, score the one left."""
    by_settings = [collect(specs, settings, learned=learned) for settings in grid]
    held: list[tuple[Question, np.ndarray, float, float]] = []
    folds = []
    for fold in range(len(specs)):
        choices = [(choose(_without(qs, fold), knob_grid), i) for i, qs in enumerate(by_settings)]
        (knobs, floor, cut, figures), index = max(choices, key=lambda c: _merit(c[0][3]))
        chosen = [q for q in by_settings[index] if q.memory == fold]
        scored = score(chosen, floor, knobs, cut)
        held.extend((q, relevances(q, knobs), floor, cut) for q in chosen)
        folds.append({"held_out": specs[fold].get("name", str(fold)), "settings": asdict(grid[index]),
                      "unknown_power": knobs[0], "unknown_word_weight": knobs[1], "floor": floor, "cut": cut,
                      "train": asdict(figures), "held_out_figures": asdict(scored)})  # fmt: skip
    # The procedure run once more on every conversation gives the constants to ship (its in-sample
    # figures are not the ones to quote).
    (knobs, floor, cut, figures), index = max(
        ((choose(qs, knob_grid), i) for i, qs in enumerate(by_settings)), key=lambda c: _merit(c[0][3])
    )
    final = {"settings": asdict(grid[index]), "unknown_power": knobs[0], "unknown_word_weight": knobs[1],
             "floor": floor, "cut": cut, "in_sample": asdict(figures)}  # fmt: skip
    pooled = _figures([h[0] for h in held], [h[1] for h in held], [h[2] for h in held], [h[3] for h in held])
    categories = sorted({h[0].category for h in held if h[0].inside})
    by_category = {}
    for name in categories:
        # A category's own questions, with every foreign question, so "no hit" and AUROC still mean something.
        part = [h for h in held if h[0].category == name or not h[0].inside]
        by_category[name] = asdict(_figures([h[0] for h in part], [h[1] for h in part], [h[2] for h in part],
                                            [h[3] for h in part]))  # fmt: skip
    return AbstentionReport(
        conversations=len(specs), floor=float("nan"), unknown_power=float("nan"), unknown_word_weight=float("nan"),
        figures=pooled, no_floor=_figures([h[0] for h in held], [h[1] for h in held], 0.0, 0.0), folds=folds,
        chosen=final, by_category=by_category, cut=float("nan"),
    )  # fmt: skip


def _merit(figures: Figures) -> tuple:
    return (figures.precision >= TARGET_PRECISION, figures.in_domain_hit_at_10, figures.in_domain_mrr_at_10)


def _without(questions: Sequence[Question], fold: int) -> list[Question]:
    """The questions neither asked of nor asked by conversation `fold` (what the other folds know)."""
    return [q for q in questions if fold not in (q.memory, q.asker)]


def evaluate(paths: Sequence[str | Path], floor: float | None = None, cv: bool = False,
             learned: Any = None, cut: float | None = None, settings_grid: bool = False,
             search_knobs: bool = False) -> AbstentionReport:  # fmt: skip
    specs = [load_conversation(path) for path in paths]
    if cv:  # with the embedder each setting costs a minute of encoding: only the shipped settings then
        grid = SETTINGS_GRID if settings_grid and learned is None else (DEFAULT_SETTINGS,)
        return cross_validate(specs, grid=grid, learned=learned, knob_grid=KNOB_GRID if search_knobs else (ENGINE,))
    questions = collect(specs, learned=learned)
    floor = relevance_rules.DEFAULT_FLOOR if floor is None else floor
    if cut is None:  # what recall ships: the match cut (with an embedder, its own), else the relevance cut
        shipped = relevance_rules.DEFAULT_LEARNED_MATCH_CUT if learned is not None else relevance_rules.DEFAULT_MATCH_CUT
        cut = shipped if CUT_ON == "match" else relevance_rules.DEFAULT_CUT
    rels = [relevances(q, ENGINE) for q in questions]
    categories = sorted({q.category for q in questions if q.inside})
    by_category = {name: asdict(_figures(*zip(*[(q, r) for q, r in zip(questions, rels, strict=True)
                                                 if q.category == name or not q.inside], strict=True), floor, cut))
                   for name in categories}  # fmt: skip
    return AbstentionReport(conversations=len(specs), floor=floor, unknown_power=ENGINE[0], unknown_word_weight=ENGINE[1],
                            figures=_figures(questions, rels, floor, cut), no_floor=_figures(questions, rels, 0.0, 0.0),
                            cut=cut, by_category=by_category)  # fmt: skip


def format_report(report: AbstentionReport) -> str:
    def lines(name: str, f: Figures) -> list[str]:
        return [
            f"{name}: {f.in_domain} in-domain and {f.out_of_domain} out-of-domain questions",
            f"  AUROC of the top relevance   {f.auroc_top_relevance:.3f}",
            f"  out-of-domain with no hit    {f.out_of_domain_no_hit:.1%}",
            f"  in-domain hit@10 / MRR@10    {f.in_domain_hit_at_10:.3f} / {f.in_domain_mrr_at_10:.3f}",
            f"  precision / hits per question {f.precision:.3f} / {f.hits_per_question:.2f}",
        ]

    head = (f"{report.conversations} conversations, held-out folds (leave one conversation out)" if report.folds
            else f"{report.conversations} conversations, floor {report.floor:g}, cut {report.cut:g}, unknown power "
                 f"{report.unknown_power:g}, unknown word weight {report.unknown_word_weight:g}")  # fmt: skip
    out = [head, *lines("with the floor and cut", report.figures), *lines("without a floor or cut", report.no_floor)]
    for name, f in report.by_category.items():
        out.append(f"  {name:12} hit@10 {f['in_domain_hit_at_10']:.3f}  MRR {f['in_domain_mrr_at_10']:.3f}  "
                   f"precision {f['precision']:.3f}  hits/question {f['hits_per_question']:.2f}  (n {f['in_domain']})")  # fmt: skip
    for fold in report.folds:
        f = fold["held_out_figures"]
        s = fold["settings"]
        out.append(f"  fold {fold['held_out']}: floor {fold['floor']:.4g}, cut {fold['cut']:g}, power "
                   f"{fold['unknown_power']:g}, word weight {fold['unknown_word_weight']:g}, "
                   f"ngram {s['ngram_weight']:g}, expansion {s['expansion_weight']:g}, feedback {s['feedback_docs']} → "
                   f"AUROC {f['auroc_top_relevance']:.3f}, no hit {f['out_of_domain_no_hit']:.1%}, "
                   f"hit@10 {f['in_domain_hit_at_10']:.3f}, MRR {f['in_domain_mrr_at_10']:.3f}, "
                   f"precision {f['precision']:.3f}, hits/question {f['hits_per_question']:.2f}")  # fmt: skip
    if report.chosen:
        c, s = report.chosen, report.chosen["settings"]
        out.append(f"  on all {report.conversations}: floor {c['floor']:.4g}, cut {c['cut']:g}, power "
                   f"{c['unknown_power']:g}, word weight {c['unknown_word_weight']:g}, ngram {s['ngram_weight']:g}, "
                   f"expansion {s['expansion_weight']:g}, feedback {s['feedback_docs']} (in-sample hit@10 "
                   f"{c['in_sample']['in_domain_hit_at_10']:.3f}, precision {c['in_sample']['precision']:.3f})")  # fmt: skip
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.abstention", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="conversation files in the gold-set format (two or more)")
    parser.add_argument("--floor", type=float, default=None, help="drop hits whose relevance is below this")
    parser.add_argument("--cut", type=float, default=None, help="drop hits under this share of the best relevance")
    parser.add_argument("--settings-grid", action="store_true", help="with --cv, also choose the fused lane's settings")
    parser.add_argument("--search-knobs", action="store_true", help="with --cv, also choose relevance's knobs")
    parser.add_argument("--cv", action="store_true", help="leave-one-conversation-out cross-validation")
    parser.add_argument("--cut-on", choices=("match", "relevance"), default="match",
                        help="the cut is a share of the best match strength (shipped) or of the best relevance")
    parser.add_argument("--learned", action="store_true",
                        help="give the facts all-MiniLM-L6-v2 vectors and fuse its cosine, as default+learned does")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if len(args.paths) < 2 or (args.cv and len(args.paths) < 3):
        parser.error("give at least two conversations (three with --cv): each is asked the others' questions")
    missing = [p for p in args.paths if not Path(p).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    global CUT_ON
    CUT_ON = args.cut_on
    learned = None
    if args.learned:
        from memory.engine.recall.minilm import MiniLmEmbedder

        learned = MiniLmEmbedder.from_package()
    report = evaluate(args.paths, args.floor, args.cv, learned, cut=args.cut, settings_grid=args.settings_grid,
                      search_knobs=args.search_knobs)
    print(json.dumps(asdict(report), indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
