"""How much injected text the write path keeps out of recall, and how much honest text it refuses.

    python -m bench.memory.injection [--corpus tests/data/injection/corpus.jsonl] [--split all|SPLIT]
        [--sources [FOLDER]] [--per-source N] [--learned] [--json]

Writes every text of the labelled corpus (`label` attack or benign, `family`, `split`) through the
full write path as `tool_output` into the `knowledge` segment of a fresh workspace (a unique name;
run it on a scratch database), then reads how each one ended:

* `refused` — the write raised (the threat scan or the gate named its rules);
* `held` — the write was held for review (a person decides; recall does not see it);
* `blocked` — it was stored, but recall shows it as `[BLOCKED]` (the recall-time rescan);
* `stored` — it was stored and recall would show it as it is.

An attack is *kept out* when it was refused, held or blocked; a benign text is *kept out wrongly*
the same way. The figures go to docs/BENCHMARKS.md with the command that made them; the `holdout`
split is never used to tune a rule nor to train the detector.

`--sources` adds the public sources of `bench/data/injection_sources` (SOURCES.md: origin and licence
of each), at most `--per-source` texts of each label per source, and reports per source and per
kind. Those sources trained the shipped injection detector, so the figures through the write path
are in-sample for the detector; the result that says how it holds on text it never saw is the
leave-one-source-out table the trainer wrote into the detector's file, printed beside them.

The corpus is judged as the default install judges it (the embedder switched off for the run,
whatever the settings say): the rules, the learned word list (`memory.engine.safety.directive_lexicon`)
and the injection detector (`memory.engine.safety.detector`); a second pass with both learned parts off
reports the rules alone. `--learned` runs it a second time with `TIDELINE_EMBEDDER=minilm`, so the write path and the
rescan combine the rules with the learned directive classifier (`memory.services.writes.untrusted`), and
prints both modes side by side; it needs the `embed` extra and exits 1 when the classifier cannot run.
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
DEFAULT_SOURCES = Path(__file__).resolve().parents[2] / "bench" / "data" / "injection_sources"
LEARNED_RULE = "learned_directive"  # memory.engine.safety.directive_classifier.RULE, without importing numpy early


def load(path: Path, split: str = "all") -> list[dict]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        item.setdefault("source", "tideline")
    return [item for item in items if split == "all" or item.get("split") == split]


def load_sources(folder: Path, per_source: int) -> list[dict]:
    """The public sources' texts, at most `per_source` of each label per source (a fixed sample)."""
    import random

    items = []
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
        for label in ("attack", "benign"):
            chosen = [row for row in rows if row["label"] == label]
            random.Random(0).shuffle(chosen)
            for k, row in enumerate(chosen[:per_source]):
                items.append({"id": f"{path.stem}-{label}-{k}", "label": label, "family": row.get("kind", label),
                              "source": row.get("source", path.stem), "text": row["text"]})
    return items


def fate(tl, text: str) -> tuple[str, tuple[str, ...]]:
    """How one untrusted write ended, and the rules that said so."""
    from memory.engine.writes.gate import TidelineError
    from memory.services.writes import untrusted

    try:
        record = tl.add(text, segment="knowledge", source_type="tool_output")
    except TidelineError as error:
        return "refused", tuple(getattr(error, "rules", ()) or ())
    if record.outcome == "held":
        return "held", tuple(record.rules)
    verdict = untrusted.judge(record.content)  # what recall's rescan of an untrusted fact decides
    return ("blocked", verdict.rules) if verdict.action != "allow" else ("stored", ())


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
        counts = families[(item["label"], item.get("source", "tideline"), item["family"])]
        counts["total"] += 1
        counts[ending] += 1
        counts["learned"] += LEARNED_RULE in rules
        kept_out = ending != "stored"
        if kept_out != (item["label"] == "attack"):
            misses.append({"id": item["id"], "label": item["label"], "ending": ending, "rules": list(rules)})
    seconds = time.perf_counter() - started
    out: dict[str, Any] = {"workspace": workspace.name, "items": len(items), "seconds": round(seconds, 2),
                           "families": [], "misses": misses}  # fmt: skip
    for (label, source, family), counts in sorted(families.items()):
        kept = counts["total"] - counts["stored"]
        out["families"].append({"label": label, "source": source, "family": family, "total": counts["total"], "kept_out": kept,
                                "refused": counts["refused"], "held": counts["held"], "blocked": counts["blocked"],
                                "learned": counts["learned"]})  # fmt: skip
    for label in ("attack", "benign"):
        rows = [f for f in out["families"] if f["label"] == label]
        out[label] = {"total": sum(f["total"] for f in rows), "kept_out": sum(f["kept_out"] for f in rows)}
    out["sources"] = {}
    for f in out["families"]:
        row = out["sources"].setdefault(f["source"], {"attack": [0, 0], "benign": [0, 0]})
        row[f["label"]][0] += f["kept_out"]
        row[f["label"]][1] += f["total"]
    return out


GOLD_FACTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "tideline-gold"


def _thousands(pool: list[str], samples: int) -> list[str]:
    """`samples` texts of 1,000 characters, each pool texts joined from a different start."""
    texts = []
    for start in range(samples):
        text, k = "", start
        while len(text) < 1000:
            text += pool[k % len(pool)] + " "
            k += 7
        texts.append(text[:1000])
    return texts


def gold_facts() -> list[str]:
    """The gold sets' facts: everyday statements about people, what most honest untrusted text is like
    (none when the folder is absent)."""
    facts = []
    for path in sorted(GOLD_FACTS.glob("*.json")):
        facts += [f["content"] for f in json.loads(path.read_text(encoding="utf-8")).get("facts", [])]
    return facts


def time_reading(items: list[dict], samples: int = 300) -> dict[str, Any]:
    """The judgement's own cost: p50 of the threat scan alone and of the whole untrusted-content
    judgement on texts of 1,000 characters, of ordinary prose (`prose`) and of the corpus's benign
    look-alikes joined (code, URLs, several scripts and disguises at once: the densest honest text),
    and seconds on adversarial inputs of 0.5 and 1 MB (a linear reader takes about twice as long on
    twice the input)."""
    pool = [item["text"] for item in items if item["label"] == "benign"] or ["The ferry leaves every twenty minutes."]
    out = _time_judgement(_thousands(pool, samples))
    out["prose"] = _time_judgement(_thousands(gold_facts() or ["The ferry leaves every twenty minutes."], samples))
    from memory.engine.safety import detector
    from memory.engine.safety.directives import judge_untrusted

    adversarial = {"repeated trigger word": "ignore ", "one letter": "a", "base64 alphabet": "QUJD",
                   "spaced letters": "i g n o r e ", "markdown image openers": "![x](http://a/?"}  # fmt: skip
    out["adversarial"] = {}
    for label, unit in adversarial.items():
        row = {}
        for size in (500_000, 1_000_000):
            text = (unit * (size // len(unit) + 1))[:size]
            started = time.process_time()
            judge_untrusted(text, detector=detector.shipped())
            row[f"{size // 1000}KB_s"] = round(time.process_time() - started, 3)
        out["adversarial"][label] = row
    return out


def _time_judgement(texts: list[str]) -> dict[str, Any]:
    from bench.memory.writes import LatencySummary
    from memory.engine.safety import detector
    from memory.engine.safety.directives import judge_untrusted
    from memory.engine.safety.scan import scan_for_threats

    def judgement(text: str):
        return judge_untrusted(text, detector=detector.shipped())

    out: dict[str, Any] = {}
    for name, call in (("scan_only", scan_for_threats), ("judgement", judgement)):
        times = []
        for text in texts:
            started = time.perf_counter()
            call(text)
            times.append((time.perf_counter() - started) * 1000)
        summary = LatencySummary.of(times)
        out[name] = {"p50_ms": round(summary.p50_ms, 3), "p95_ms": round(summary.p95_ms, 3)}
    out["added_p50_ms"] = round(out["judgement"]["p50_ms"] - out["scan_only"]["p50_ms"], 3)
    return out


def run_modes(items: list[dict], learned: bool) -> dict[str, Any]:
    """The rules-only run (the embedder off), and with `learned` a second run with the classifier on."""
    from django.test import override_settings

    from memory.services.writes import untrusted

    with override_settings(TIDELINE_EMBEDDER=""):
        result = run(items)
        untrusted.clear_caches()
        with override_settings(TIDELINE_INJECTION_DETECTOR=False, TIDELINE_DIRECTIVE_WORDING=False):
            alone = run(items)
        untrusted.clear_caches()
    result["mode"] = "rules+word list+detector"
    result["rules_alone"] = {"mode": "rules alone", "attack": alone["attack"], "benign": alone["benign"],
                             "families": alone["families"], "sources": alone["sources"]}  # fmt: skip
    if learned:
        with override_settings(TIDELINE_EMBEDDER="minilm"):
            model = untrusted.learned()
            if model is None:
                raise SystemExit("--learned: the learned directive classifier cannot run here (see the warning "
                                 "above; install the embed extra)")  # fmt: skip
            result["learned"] = {**run(items), "mode": "rules+classifier", "threshold": model[1].threshold,
                                 "fingerprint": model[1].fingerprint}  # fmt: skip
    return result


def time_learned(items: list[dict], samples: int = 30) -> dict[str, Any]:
    """What the classifier adds to one judgement when its verdict is not cached: embedding a text
    of 1,000 characters (truncated to the model's 256 tokens) and one dot product, p50 and p95."""
    from django.test import override_settings

    from bench.memory.writes import LatencySummary
    from memory.engine.safety.directive_classifier import probability
    from memory.services.writes import untrusted

    with override_settings(TIDELINE_EMBEDDER="minilm"):
        embedder, classifier = untrusted.learned()
    pool = [item["text"] for item in items if item["label"] == "benign"] or ["The ferry leaves every twenty minutes."]
    texts = [(" ".join(pool[(k + j) % len(pool)] for j in range(40)))[:1000] for k in range(samples)]
    times = []
    for text in texts:
        started = time.perf_counter()
        probability(embedder.embed([text])[0], classifier)
        times.append((time.perf_counter() - started) * 1000)
    summary = LatencySummary.of(times)
    return {"classifier_p50_ms": round(summary.p50_ms, 3), "classifier_p95_ms": round(summary.p95_ms, 3)}


def print_result(result: dict[str, Any], split: str) -> None:
    learned = result.get("learned")
    print(f"{result['items']} texts ({split}) written as tool_output in {result['seconds']} s (rules, word list and detector)"
          + (f", {learned['seconds']} s (rules + classifier)" if learned else ""))  # fmt: skip
    for block in (result.get("rules_alone"), result, learned):
        if block:
            print(f"  {block['mode']:<25} attacks kept out of recall: {block['attack']['kept_out']} of "
                  f"{block['attack']['total']};  benign texts kept out: {block['benign']['kept_out']} of "
                  f"{block['benign']['total']}")  # fmt: skip
    alone = result["rules_alone"]["sources"]
    print("  per source, kept out (rules alone -> rules, word list and detector):")
    for source, row in sorted(result["sources"].items()):
        a, b = row["attack"], row["benign"]
        a0, b0 = alone[source]["attack"], alone[source]["benign"]
        print(f"    {source:<22} attacks {a0[0]:>4} -> {a[0]:>4} of {a[1]:<5} benign {b0[0]:>4} -> {b[0]:>4} of {b[1]}")
    held_out = result.get("detector", {}).get("held_out") or {}
    if held_out:
        print(f"  the detector on sources it never saw (leave one source out, trained {result['detector']['trained_at']}; "
              f"detector alone, threshold chosen on the other sources):")
        for source, (ah, a, bh, b) in sorted(held_out.items()):
            print(f"    {source:<22} attacks {ah:>4}/{a:<5} benign {bh:>4}/{b}")
    reading = result["reading"]
    for label, block in (("ordinary prose", reading["prose"]), ("benign look-alikes joined", reading)):
        print(f"  1,000 characters of {label}: threat scan alone p50 {block['scan_only']['p50_ms']} ms, whole "
              f"judgement p50 {block['judgement']['p50_ms']} ms (adds {block['added_p50_ms']} ms)")
    if learned:
        cost = learned["reading"]
        print(f"  the classifier (uncached: embed + dot product) adds p50 {cost['classifier_p50_ms']} ms, "
              f"p95 {cost['classifier_p95_ms']} ms (threshold {learned['threshold']})")
    for label, row in reading["adversarial"].items():
        print(f"  adversarial {label:<24} 500 KB {row['500KB_s']:.3f} s   1 MB {row['1000KB_s']:.3f} s")
    other = {(f["label"], f["family"]): f for f in learned["families"]} if learned else {}
    for f in result["families"]:
        line = (f"    {f['label']:<7} {f['source'] + ':' + f['family']:<48} {f['kept_out']:>4}/{f['total']:<4} "
                f"(refused {f['refused']}, held {f['held']}, blocked {f['blocked']})")  # fmt: skip
        if learned:
            g = other[(f["label"], f["family"])]
            line += f"  -> with classifier {g['kept_out']:>3}/{g['total']:<3} (by {LEARNED_RULE}: {g['learned']})"
        print(line)
    for miss in (learned or result)["misses"]:
        print(f"    missed: {miss['id']} ({miss['label']}, {miss['ending']}) {' '.join(miss['rules'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.injection", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--split", default="all", help="all (default) or any split named in the corpus")
    parser.add_argument("--sources", type=Path, nargs="?", const=DEFAULT_SOURCES,
                        help="also write the public sources' texts (default folder: bench/data/injection_sources)")
    parser.add_argument("--per-source", type=int, default=300, help="texts of each label per public source (default 300)")
    parser.add_argument("--learned", action="store_true",
                        help="also run with the learned directive classifier on (needs the embed extra)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    splits = sorted({item.get("split") for item in load(args.corpus)} - {None})
    if args.split != "all" and args.split not in splits:
        parser.error(f"--split {args.split!r} is not in {args.corpus.name}; use all or one of: {', '.join(splits)}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    items = load(args.corpus, args.split) + (load_sources(args.sources, args.per_source) if args.sources else [])
    result = run_modes(items, args.learned)
    from memory.engine.safety import detector

    shipped = detector.shipped()
    result["detector"] = {k: shipped.meta.get(k) for k in ("trained_at", "sources", "held_out")} if shipped else {}
    result["reading"] = time_reading(load(args.corpus, "all"))
    if args.learned:
        result["learned"]["reading"] = time_learned(load(args.corpus, "all"))
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_result(result, args.split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
