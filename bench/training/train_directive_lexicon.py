"""Fit the word list of `memory.engine.safety.directive_lexicon` on the injection corpus, report it, write it.

    python -m bench.training.train_directive_lexicon [--corpus tests/data/injection/corpus.jsonl [more.jsonl …]]
        [--exclude-splits holdout] [--out memory/engine/safety/data/directive_lexicon.tsv] [--folds 5]
        [--keep 20000] [--json]

Several corpora may be given (their items are read in that order); the shipped table is fitted on the
project's corpus alone. Fitted on the sets written blind for it too (`--corpus tests/data/injection/corpus.jsonl
tests/data/injection/shapes.jsonl --exclude-splits holdout,blind25,blind26`), it kept out more of the two unread
sets but held a colleague's to-do e-mail: docs/BENCHMARKS.md gives the figures.

Each text is folded and read as its set of words and adjacent word pairs (`directive_lexicon.features`),
a vector of unit length; the model is the learned directive classifier's (class-balanced logistic
regression, L2 strength by cross-validated log loss; `bench.training.train_directive_classifier`
documents the procedure, and this module reuses it) with one difference: the threshold is chosen so
that the word list *alone* holds at most 1% of the benign texts out of fold. The rules were written
against this corpus and catch nearly all of its attacks in-sample, so "beyond the rules" would
measure nothing here; the word list is there for wordings the rules have not seen. The threshold is
then raised, if need be, until the list adds at most 1% of each public source's benign texts to what
the rules hold (`public_floor`; bench/data/injection_sources, never trained on).

The gold sets' facts (`tests/data/tideline-gold`, ordinary statements about people, what a memory
mostly holds) join the fit as benign texts, so the list learns what honest statements look like;
they take no part in choosing the threshold, which is set on the corpus's look-alikes alone. The figures reported are nested (no item is scored with
settings chosen on it). Items of `--exclude-splits` are never used to fit or choose; they are scored
once with the table written. The `--keep` heaviest entries are written (the rest weigh little).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from bench.memory.injection import DEFAULT_CORPUS, gold_facts, load
from bench.training import train_directive_classifier as tdc
from memory.engine.safety import directive_lexicon as dl
from memory.engine.safety.deobfuscate import fold

L2_GRID = (0.000001, 0.000003, 0.00001, 0.0001)
DEFAULT_EXCLUDED = "holdout"
ROOT = Path(__file__).resolve().parents[2]
DEFAULT_KEEP = 20_000


def featurise(items: list[dict]) -> tuple[tdc.Data, list[str]]:
    """The corpus as a sparse matrix (unit rows over every feature seen) and the feature names."""
    from memory.engine.safety.directives import judge_untrusted

    started = time.perf_counter()
    vocabulary: dict[str, int] = {}
    rows, cols, values = [], [], []
    for i, item in enumerate(items):
        present = sorted(dl.features(fold(item["text"])))
        for feature in present:
            rows.append(i)
            cols.append(vocabulary.setdefault(feature, len(vocabulary)))
            values.append(1.0 / np.sqrt(len(present)))
    x = sp.csr_matrix((values, (rows, cols)), shape=(len(items), len(vocabulary)))
    rules = np.array([judge_untrusted(item["text"], wording=False).action != "allow" for item in items])
    y = np.array([1 if item["label"] == "attack" else 0 for item in items])
    tdc.log(f"read {len(items)} texts, {len(vocabulary)} features, in {time.perf_counter() - started:.1f} s")
    return tdc.Data(items, x, y, rules), sorted(vocabulary, key=vocabulary.__getitem__)


def ordinary_facts() -> list[dict]:
    """The gold sets' facts as benign items of their own split (none when the folder is absent)."""
    facts = gold_facts()
    return [{"id": f"fact-{i}", "label": "benign", "family": "ordinary_facts", "split": "facts", "text": text}
            for i, text in enumerate(dict.fromkeys(facts))]  # fmt: skip


PUBLIC_SOURCES = Path(__file__).resolve().parents[1] / "data" / "injection_sources"
PUBLIC_LIMIT = 0.01


def public_floor(lexicon: dl.Lexicon, limit: float = PUBLIC_LIMIT) -> float:
    """The lowest threshold at which the list adds at most `limit` of each public source's benign texts to
    what the rules hold. The list never trains on those sources (bench/data/injection_sources): they are
    other people's honest text, e-mails, documentation and other languages, that the own corpus's
    look-alikes do not cover, and the list must not read them as orders."""
    from memory.engine.safety.directives import judge_untrusted

    by_source: dict[str, list[float]] = {}
    for path in sorted(PUBLIC_SOURCES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip() and (row := json.loads(line))["label"] == "benign" and judge_untrusted(row["text"], wording=False).action == "allow":
                by_source.setdefault(path.stem, []).append(lexicon.probability(fold(row["text"])))
    floor = 0.0
    for name, probabilities in by_source.items():
        total = sum(1 for line in (PUBLIC_SOURCES / f"{name}.jsonl").read_text(encoding="utf-8").split("\n")
                    if line.strip() and json.loads(line)["label"] == "benign")
        allowed = int(limit * total)  # at most this many held beyond the rules
        ranked = sorted(probabilities, reverse=True)
        if len(ranked) > allowed:
            floor = max(floor, ranked[allowed] + 1e-6)
    return floor


def train(corpora: list[Path], excluded: set[str], folds: int, keep: int, command: str) -> tuple[dl.Lexicon, dict]:
    items = [item for corpus in corpora for item in load(corpus)] + ordinary_facts()
    data, names = featurise(items)
    train_idx = np.array([i for i, item in enumerate(items) if item["split"] not in excluded], dtype=int)
    held_idx = np.array([i for i, item in enumerate(items) if item["split"] in excluded], dtype=int)
    if len(set(data.y[train_idx].tolist())) < 2:
        raise SystemExit("the training items need both attacks and benign texts")
    tdc.log(f"training on {len(train_idx)} items ({len(held_idx)} held out); nested {folds}-fold cross-validation")
    # Settings chosen for the list alone, its threshold on the look-alikes: ordinary facts count as if
    # the rules held them, which takes them out of the false-hold budget.
    facts = np.array([item["split"] == "facts" for item in items])
    alone = tdc.Data(items, data.x, data.y, facts)
    p, t, per_fold = tdc.nested(alone, train_idx, folds, L2_GRID)
    cv = tdc.report([items[i] for i in train_idx], data.rules[train_idx], p >= t)
    cv["chosen_per_fold"] = per_fold
    settings = tdc.choose(alone, train_idx, folds, tdc.SEED, L2_GRID)
    w, b = tdc.fit(data.x[train_idx], data.y[train_idx], settings["l2"])
    order = np.argsort(-np.abs(w))[:keep]
    weights = {names[j]: float(w[j]) for j in order if w[j] != 0.0}
    lexicon = dl.Lexicon(weights, b, settings["threshold"], {
        "trained_at": dt.date.today().isoformat(), "command": command, "corpus": ",".join(c.name for c in corpora),
        "training_items": str(len(train_idx)), "excluded_splits": ",".join(sorted(excluded)),
        "l2": str(settings["l2"]), "features_seen": str(len(names)), "features_kept": str(len(weights)),
        "cv_attacks_rules": f"{cv['attack']['rules']}/{cv['attack']['total']}",
        "cv_attacks_rules_and_wording": f"{cv['attack']['rules+classifier']}/{cv['attack']['total']}",
        "cv_benign_rules": f"{cv['benign']['rules']}/{cv['benign']['total']}",
        "cv_benign_rules_and_wording": f"{cv['benign']['rules+classifier']}/{cv['benign']['total']}",
    })  # fmt: skip
    floor = public_floor(lexicon)
    if floor > lexicon.threshold:
        tdc.log(f"threshold raised from {lexicon.threshold:.4f} to {floor:.4f} for the public sources' benign texts")
        lexicon = dl.Lexicon(lexicon.weights, lexicon.bias, floor, {**lexicon.meta, "threshold_on_own_corpus": f"{lexicon.threshold:.6g}",
                                                                      "threshold_raised_for": "public sources' benign texts"})  # fmt: skip
    result = {"cross_validation": cv, "chosen": settings, "threshold": lexicon.threshold}
    if len(held_idx):
        held = [items[i] for i in held_idx]
        scored = np.array([lexicon.holds(fold(item["text"])) for item in held])  # the table as written
        result["held_out"] = tdc.report(held, data.rules[held_idx], scored)
    return lexicon, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.training.train_directive_lexicon",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    parser.add_argument("--corpus", type=Path, nargs="+", default=[DEFAULT_CORPUS])
    parser.add_argument("--exclude-splits", default=DEFAULT_EXCLUDED,
                        help=f"comma-separated splits or patterns never used to fit (default: {DEFAULT_EXCLUDED})")
    parser.add_argument("--out", type=Path, default=dl.DEFAULT_PATH)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--keep", type=int, default=DEFAULT_KEEP, help="entries written, heaviest first")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args(argv)
    if args.folds < 2 or args.keep < 1:
        parser.error("--folds must be at least 2 and --keep at least 1")
    patterns, excluded = tdc.excluded_splits(parser, args.corpus, args.exclude_splits)
    named = " ".join(str(c.resolve().relative_to(ROOT)) if c.resolve().is_relative_to(ROOT) else str(c) for c in args.corpus)
    command = (f"python -m bench.training.train_directive_lexicon --corpus {named} "
               f"--exclude-splits '{','.join(patterns)}' --folds {args.folds} --keep {args.keep}")
    lexicon, result = train(args.corpus, excluded, args.folds, args.keep, command)
    size = dl.write(lexicon, args.out)
    result["table"] = {"path": str(args.out), "bytes": size, "entries": len(lexicon.weights)}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        tdc.print_report(result)
        print(f"wrote {args.out} ({size} bytes, {len(lexicon.weights)} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
