"""Train the injection detector of `memory.engine.safety.detector` on many sources, validate it by leaving
a whole source out, choose its threshold on held-out sources, and write it.

    python -m bench.training.train_injection_detector [--sources bench/data/injection_sources]
        [--extra admitted.jsonl ...] [--out memory/engine/safety/data/injection_detector.npz]
        [--max-benign-held 0.005] [--l2 L2] [--augment 2] [--exclude-splits holdout] [--json] [--dry-run]

Sources: the project's own labelled corpus (`tests/data/injection/corpus.jsonl`, source `tideline`,
its `holdout` split never used), the gold sets' facts (benign, source `tideline_gold`), every
`<source>.jsonl` of `--sources` (bench/data/injection_sources/SOURCES.md says where each comes from
and under which licence) and any `--extra` file (the texts reviewers admitted, exported with
`tideline review admitted --jsonl`: benign, source `admitted`).

Procedure:
1. Every text is prepared as the detector reads it (`detector.prepare`) and cut into its windows.
   A benign text's windows are all benign. An attack longer than one window is represented by its
   most order-like window under a first model fitted on the short texts (the order sits somewhere in
   it; the rest of the page is data).
2. Each short attack is also set, twice, inside a benign text of another source (an e-mail, a
   docstring, a page in another language), so that no source's house style carries the label; in a
   leave-one-source-out fold, only pairs of training sources are made.
3. The model is a logistic regression over the hashed features, each source weighing the same
   (attacks and benign texts of a source each half of its weight), with an L2 strength chosen by the
   mean held-out log loss over leave-one-source-out folds (`--l2` skips that search).
4. Leave one source out: for each source, a model fitted on all the others scores it. The
   threshold is the lowest score at which the detector holds at most `--max-benign-held` of the
   *other* sources' benign texts that the rules and the word list let through (scored by their own held-out models, on
   average over those sources); that threshold is applied to the left-out source. These
   out-of-source figures are the result; nothing is reported in-sample.
5. The shipped model is fitted on every source with the chosen L2 strength; its threshold is the one
   chosen over all held-out scores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from memory.engine.safety import detector as dt_

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SOURCES = ROOT / "bench" / "data" / "injection_sources"
OWN_CORPUS = ROOT / "tests" / "data" / "injection" / "corpus.jsonl"
GOLD = ROOT / "tests" / "data" / "tideline-gold"
NEVER_TRAINED = ("holdout",)  # the own corpus's split kept for the bench alone
L2_GRID = (3e-4, 1e-3, 3e-3)
MAX_BENIGN_HELD = 0.005
AUGMENT = 2  # copies of each short attack set inside other sources' benign texts
AUGMENT_MAX_ATTACK = 500  # characters: longer attacks are pages of their own
SEED = 15
DIM = 1 << dt_.BITS


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_sources(folder: Path, extra: list[Path], excluded: tuple[str, ...] = NEVER_TRAINED) -> list[dict]:
    """Every labelled text: {"source", "label", "kind", "text"} (the own corpus's `excluded` splits left out)."""
    items: list[dict] = []
    if OWN_CORPUS.exists():
        for line in OWN_CORPUS.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("split") not in excluded:
                items.append({"source": "tideline", "label": row["label"], "kind": row["family"], "text": row["text"]})
    for path in sorted(GOLD.glob("*.json")):
        for fact in json.loads(path.read_text(encoding="utf-8")).get("facts", []):
            items.append({"source": "tideline_gold", "label": "benign", "kind": "fact", "text": fact["content"]})
    for path in sorted(folder.glob("*.jsonl")) + list(extra):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                row.setdefault("source", "admitted" if path in extra else path.stem)
                row.setdefault("kind", "admitted")
                items.append({k: row[k] for k in ("source", "label", "kind", "text")})
    return [item for item in items if item["text"].strip() and item["label"] in ("attack", "benign")]


def _row(window: str) -> np.ndarray:
    indices, _ = dt_.features(window)
    return indices.astype(np.int64)


def matrix(rows: list[np.ndarray]) -> sp.csr_matrix:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    values = np.concatenate([np.full(len(r), 1.0 / np.sqrt(max(1, len(r)))) for r in rows]) if rows else np.zeros(0)
    return sp.csr_matrix((values, indices, indptr), shape=(len(rows), DIM))


def fit(x: sp.csr_matrix, y: np.ndarray, weight: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weights and bias minimising the weighted log loss (weights summing to 1) plus l2/2·|w|²."""
    weight = weight / weight.sum()
    sign = 2.0 * y - 1.0
    xt = x.T.tocsr()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        margin = sign * (x @ w + b)
        value = float(weight @ np.logaddexp(0.0, -margin)) + 0.5 * l2 * float(w @ w)
        slope = -weight * sign / (1.0 + np.exp(np.clip(margin, -60, 60)))
        return value, np.append(xt @ slope + l2 * w, slope.sum())

    theta = minimize(loss, np.zeros(DIM + 1), jac=True, method="L-BFGS-B", options={"maxiter": 400}).x
    return theta[:-1].astype(np.float32), float(theta[-1])


def predict(x: sp.csr_matrix, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -60, 60)))


class Corpus:
    """The texts as windows: `x` one row per training window, `owner[i]` the item a row belongs to."""

    def __init__(self, items: list[dict]):
        started = time.perf_counter()
        self.items = items
        self.sources = sorted({item["source"] for item in items})
        self.y_item = np.array([item["label"] == "attack" for item in items], dtype=float)
        self.src_item = np.array([self.sources.index(item["source"]) for item in items])
        self.windows: list[list[np.ndarray]] = [[_row(w) for w in dt_.windows(dt_.prepare(item["text"]))] for item in items]
        from memory.engine.safety.directives import judge_untrusted

        self.rules = np.array([judge_untrusted(item["text"]).action != "allow" for item in items])
        self.augmented: list[tuple[np.ndarray, int, int]] = []  # (row, the attack's item, the carrier's item)
        log(f"prepared {len(items)} texts from {len(self.sources)} sources in {time.perf_counter() - started:.0f} s")

    def augment(self, copies: int, seed: int = SEED) -> None:
        """`copies` more rows for each short attack: the attack set inside a benign text of another source
        (an e-mail, a docstring, a page in another language), so that an order reads as an order whatever
        it hides in and no source's house style carries the label."""
        rng = np.random.default_rng(seed)
        carriers = np.flatnonzero(self.y_item == 0)
        prepared = {}
        for i in np.flatnonzero(self.y_item == 1):
            attack = dt_.prepare(self.items[i]["text"])
            if len(attack) > AUGMENT_MAX_ATTACK:
                continue
            others = carriers[self.src_item[carriers] != self.src_item[i]]
            for j in rng.choice(others, size=min(copies, len(others)), replace=False):
                if j not in prepared:
                    prepared[j] = dt_.prepare(self.items[j]["text"])
                carrier = prepared[j]
                cut = int(rng.integers(0, max(1, len(carrier))))
                text = f"{carrier[max(0, cut - 600):cut]} {attack} {carrier[cut:cut + 400]}".strip()
                self.augmented.append((_row(text[: dt_.WINDOW]), int(i), int(j)))
        log(f"augmented {len(self.augmented)} attacks inside other sources' benign texts")

    def design(self, attack_window: list[int], allowed: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """(x, y, per-row weight) over the `allowed` items: every window of a benign text, one chosen window
        of an attack, and the augmented rows whose attack and carrier are both allowed."""
        rows, owner = [], []
        for i, wins in enumerate(self.windows):
            if not allowed[i]:
                continue
            chosen = [wins[attack_window[i]]] if self.y_item[i] else wins
            rows += chosen
            owner += [i] * len(chosen)
        for row, i, j in self.augmented:
            if allowed[i] and allowed[j]:
                rows.append(row)
                owner.append(i)
        owner_arr = np.array(owner)
        y = self.y_item[owner_arr]
        # each (source, label) weighs the same in total; a benign text's windows share its weight
        per_item = np.array([1.0 / len(self.windows[i]) if not self.y_item[i] else 1.0 for i in owner])
        groups: dict[tuple[int, float], float] = defaultdict(float)
        for i, share in zip(owner, per_item, strict=True):
            groups[(self.src_item[i], self.y_item[i])] += share
        weight = np.array([share / groups[(self.src_item[i], self.y_item[i])] for i, share in zip(owner, per_item, strict=True)])
        return matrix(rows), y, weight

    def item_scores(self, w: np.ndarray, b: float, which: np.ndarray) -> np.ndarray:
        """Each listed item's score: its most order-like window."""
        out = np.zeros(len(which))
        rows, owner = [], []
        for k, i in enumerate(which):
            rows += self.windows[i]
            owner += [k] * len(self.windows[i])
        p = predict(matrix(rows), w, b)
        np.maximum.at(out, np.array(owner), p)
        return out

    def best_windows(self, w: np.ndarray | None, b: float) -> list[int]:
        """For each attack, the index of its most order-like window (the first when there is no model)."""
        chosen = [0] * len(self.items)
        if w is None:
            return chosen
        for i, wins in enumerate(self.windows):
            if self.y_item[i] and len(wins) > 1:
                chosen[i] = int(np.argmax(predict(matrix(wins), w, b)))
        return chosen


def fit_on(corpus: Corpus, mask_items: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """A model fitted on the items of `mask_items` (two passes: the attack windows chosen by the first)."""
    w, b = None, 0.0
    for _ in range(2):
        x, y, weight = corpus.design(corpus.best_windows(w, b), mask_items)
        w, b = fit(x, y, weight, l2)
    return w, b


def threshold_for(scores: np.ndarray, benign: np.ndarray, groups: np.ndarray, limit: float,
                  rules: np.ndarray | None = None) -> float:
    """The lowest threshold at which the detector holds at most `limit` of the benign texts the rules let
    through, on average over the groups (each group weighing the same)."""
    passed = ~rules if rules is not None else np.ones(len(scores), dtype=bool)
    candidates = np.unique(np.round(scores[benign & passed], 4))
    for t in np.concatenate([candidates, [1.0]]):
        rates = [np.mean((scores >= t)[benign & (groups == g)] & passed[benign & (groups == g)])
                 for g in np.unique(groups[benign])]
        if np.mean(rates) <= limit:
            return float(t)
    return 1.0


def leave_one_source_out(corpus: Corpus, l2: float) -> np.ndarray:
    """Every item scored by a model that never saw its source."""
    scores = np.zeros(len(corpus.items))
    for s, name in enumerate(corpus.sources):
        held = corpus.src_item == s
        started = time.perf_counter()
        w, b = fit_on(corpus, ~held, l2)
        scores[held] = corpus.item_scores(w, b, np.flatnonzero(held))
        log(f"  l2={l2:g}: left out {name} ({held.sum()} texts) in {time.perf_counter() - started:.0f} s")
    return scores


def log_loss(scores: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    p = np.clip(scores, 1e-6, 1 - 1e-6)
    per = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    return float(np.mean([per[groups == g].mean() for g in np.unique(groups)]))


def report(corpus: Corpus, scores: np.ndarray, limit: float) -> dict:
    """Per held-out source: its threshold (chosen on the other sources' held-out benign texts) and what it keeps out."""
    benign = corpus.y_item == 0
    out = {"sources": []}
    for s, name in enumerate(corpus.sources):
        held = corpus.src_item == s
        others = ~held
        t = threshold_for(scores[others], benign[others], corpus.src_item[others], limit, corpus.rules[others])
        attacks, honest = held & ~benign, held & benign
        either = (scores >= t) | corpus.rules
        row = {"source": name, "threshold": round(t, 4), "attacks": int(attacks.sum()), "benign": int(honest.sum()),
               "attacks_held": int((scores[attacks] >= t).sum()), "benign_held": int((scores[honest] >= t).sum()),
               "rules_attacks": int(corpus.rules[attacks].sum()), "rules_benign": int(corpus.rules[honest].sum()),
               "both_attacks": int(either[attacks].sum()), "both_benign": int(either[honest].sum())}
        kinds = defaultdict(lambda: [0, 0])
        for i in np.flatnonzero(held):
            kinds[(corpus.items[i]["label"], corpus.items[i]["kind"])][0] += 1
            kinds[(corpus.items[i]["label"], corpus.items[i]["kind"])][1] += int(scores[i] >= t)
        row["kinds"] = [{"label": k[0], "kind": k[1], "total": v[0], "held": v[1]} for k, v in sorted(kinds.items())]
        out["sources"].append(row)
    return out


def never_trained(detector: dt_.Detector, splits: tuple[str, ...]) -> dict:
    """Attacks and benign texts of the own corpus's never-trained splits kept out by the rules alone and
    with the detector."""
    from memory.engine.safety.directives import judge_untrusted

    out: dict = {}
    for line in OWN_CORPUS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("split") in splits:
            counts = out.setdefault(row["split"], {"attack": [0, 0, 0], "benign": [0, 0, 0]})[row["label"]]
            counts[0] += 1
            counts[1] += judge_untrusted(row["text"]).action != "allow"
            counts[2] += judge_untrusted(row["text"], detector=detector).action != "allow"
    return out


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} {part / whole:.0%}" if whole else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.training.train_injection_detector", description=__doc__.split("\n")[0])
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES)
    parser.add_argument("--extra", type=Path, action="append", default=[], help="more benign texts (JSONL), e.g. admitted ones")
    parser.add_argument("--out", type=Path, default=dt_.DEFAULT_PATH)
    parser.add_argument("--max-benign-held", type=float, default=MAX_BENIGN_HELD)
    parser.add_argument("--l2", type=float, help="skip the search over L2 strengths")
    parser.add_argument("--augment", type=int, default=AUGMENT, help="copies of each short attack inside other sources' texts")
    parser.add_argument("--exclude-splits", default=",".join(NEVER_TRAINED),
                        help="splits of the own corpus never trained on (comma-separated; default holdout)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="report, write nothing")
    args = parser.parse_args(argv)

    excluded = tuple(args.exclude_splits.split(","))
    items = load_sources(args.sources, args.extra, excluded)
    corpus = Corpus(items)
    corpus.augment(args.augment)
    grid = (args.l2,) if args.l2 else L2_GRID
    best = None
    for l2 in grid:
        scores = leave_one_source_out(corpus, l2)
        loss = log_loss(scores, corpus.y_item, corpus.src_item * 2 + corpus.y_item.astype(int))
        log(f"l2={l2:g}: held-out log loss {loss:.4f}")
        if best is None or loss < best[0]:
            best = (loss, l2, scores)
    _, l2, scores = best
    result = report(corpus, scores, args.max_benign_held)
    threshold = threshold_for(scores, corpus.y_item == 0, corpus.src_item, args.max_benign_held, corpus.rules)
    result.update({"l2": l2, "threshold": threshold, "texts": len(items), "sources_trained": corpus.sources})
    if not args.dry_run:
        w, b = fit_on(corpus, np.ones(len(items), dtype=bool), l2)
        meta = {"trained_at": dt.date.today().isoformat(), "sources": corpus.sources, "texts": len(items), "l2": l2,
                "augmented": len(corpus.augmented),
                "max_benign_held": args.max_benign_held,
                "command": " ".join(["python -m bench.training.train_injection_detector", *(argv if argv is not None else sys.argv[1:])]),
                "held_out": {r["source"]: [r["attacks_held"], r["attacks"], r["benign_held"], r["benign"]] for r in result["sources"]}}
        size = dt_.save(dt_.Detector(w, b, threshold, meta), args.out)
        log(f"wrote {args.out} ({size / 1024:.0f} KB)")
    if not args.dry_run and OWN_CORPUS.exists():  # the own corpus's never-trained splits, read once with the detector as written
        result["never_trained"] = never_trained(dt_.load(args.out), excluded)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"leave one source out (threshold chosen on the other sources' benign texts, ≤ {args.max_benign_held:.1%} held); l2 {l2:g}")
        print(f"{'':24} {'detector alone':^29} {'rules + word list':^29} {'all three':^29}")
        print(f"{'source':24}" + f" {'attacks kept out':>16} {'benign':>12}" * 3 + "  threshold")
        for row in result["sources"]:
            cells = ""
            for a, n in (("attacks_held", "benign_held"), ("rules_attacks", "rules_benign"), ("both_attacks", "both_benign")):
                cells += f" {_share(row[a], row['attacks']):>16} {_share(row[n], row['benign']):>12}"
            print(f"{row['source']:24}{cells}  {row['threshold']:.3f}")
        print(f"shipped threshold {threshold:.4f}")
        for split, row in sorted(result.get("never_trained", {}).items()):
            (a, ar, ad), (n, nr, nd) = row["attack"], row["benign"]
            print(f"own corpus, split {split} (never trained): attacks {ar} -> {ad} of {a}, benign {nr} -> {nd} of {n} "
                  "(rules and word list -> with the detector)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
