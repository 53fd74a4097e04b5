"""Maintenance passes at scale: decay GC, the dream plan and the graph export.

Pure engine code over synthetic facts (no database): `python -m bench.memory.maintenance`
(`--passes graph` times the graph export alone).

The facts come from `Corpus` (template sentences over Zipf-distributed vocabularies) with HRR
embeddings computed once up front; the embedding time is reported but not counted in the passes.
Ages are spread over a year so GC and eviction have work; every 50th fact holds a subject slot,
some restated (confirmations) and some corrected through an archived chain (corrections).

The corpus is deliberately repetitive, which makes it a hard case for the similarity searches:
many pairs of facts share a template, so their HRR cosines crowd the 0.5–0.8 band just below the
relate bar. (The contradiction detector's own scale bench is `python -m bench.governance.contradictions
--scale N`.)
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bench.memory.corpus import Corpus
from memory.engine.facts.records import SEGMENT_DEFAULTS
from memory.engine.maintenance.decay import DAY_MS
from memory.engine.maintenance.decay_gc import plan_decay_gc
from memory.engine.maintenance.dream import BatchHrrEmbedder, plan_dream
from memory.engine.maintenance.graph_export import export_memory_graph, to_graphml, to_json
from memory.engine.maintenance.plans import Link, MaintFact

NOW = 1_750_000_000_000
PASSES = ("gc", "dream", "graph")


def synthesize(count: int, seed: int = 7) -> tuple[list[MaintFact], list[Link], float]:
    """`count` active owner facts (plus archived slot predecessors), their links, and the embed seconds."""
    rng = random.Random(seed)
    corpus = Corpus(seed=seed)
    drafts = list(corpus.facts(count))
    started = time.perf_counter()
    vectors = BatchHrrEmbedder().embed([d.content for d in drafts])  # the HRR vectors, bit for bit
    embed_seconds = time.perf_counter() - started
    facts: list[MaintFact] = []
    links: list[Link] = []
    for k, (draft, vector) in enumerate(zip(drafts, vectors, strict=True)):
        defaults = SEGMENT_DEFAULTS[draft.segment]
        age_days = rng.random() ** 2 * 365  # most facts are recent, a tail is old
        last_used = NOW - int(age_days * rng.random() * DAY_MS)
        memory_id = f"mem_{k:07d}"
        fields: dict[str, Any] = {}
        if k % 50 == 0:
            fields["subject_key"] = f"slot_{k}"
            fields["access_count"] = rng.choice([0, 1, 2, 3])
        if k % 200 == 0:  # a slot corrected three times: three archived predecessors
            for step in range(3):
                old_id = f"{memory_id}_v{step}"
                facts.append(
                    MaintFact(
                        old_id, draft.content, draft.segment, defaults.tier, defaults.importance, defaults.decay_rate,
                        0, last_used, NOW - int(age_days * DAY_MS) - 1, lifecycle="archived",
                        subject_key=f"slot_{k}", valid_to=last_used,
                    )
                )  # fmt: skip
                newer = f"{memory_id}_v{step + 1}" if step < 2 else memory_id
                links += [(newer, "contradicts", old_id), (newer, "transition", old_id)]
        facts.append(
            MaintFact(
                memory_id, draft.content, draft.segment, defaults.tier, defaults.importance, defaults.decay_rate,
                fields.pop("access_count", 0), last_used, NOW - int(age_days * DAY_MS),
                source_type="owner_message", embedding=vector, **fields,
            )
        )  # fmt: skip
    return facts, links, embed_seconds


def topic_links(facts: list[MaintFact], count: int, seed: int = 7) -> list[Link]:
    """`count` links, four in five inside one of ~√n topics, the rest anywhere (a graph with communities)."""
    rng = random.Random(seed)
    ids = [f.memory_id for f in facts if f.is_active]
    topics = max(2, int(len(ids) ** 0.5))
    members: list[list[str]] = [[] for _ in range(topics)]
    for memory_id in ids:
        members[rng.randrange(topics)].append(memory_id)
    kinds = ["relates", "supports", "part_of", "causes", "same_topic", "supersedes"]
    links = []
    for _ in range(count):
        group = members[rng.randrange(topics)] if rng.random() < 0.8 else ids
        a, b = rng.choice(group), rng.choice(group)
        links.append((a, rng.choice(kinds), b))
    return links


def timed(label: str, work: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    print(f"  {label:<28} {seconds:8.2f} s", flush=True)
    return result, seconds


def run(
    sizes: list[int],
    *,
    workers: int,
    graph_links_per_fact: int,
    graph_max: int,
    seed: int,
    passes: tuple[str, ...] = PASSES,
) -> None:
    for size in sizes:
        bench_size(size, workers=workers, graph_links=graph_links_per_fact * size if size <= graph_max else 0,
                   seed=seed, passes=passes)  # fmt: skip


def bench_size(
    size: int, *, workers: int, graph_links: int, seed: int, passes: tuple[str, ...] = PASSES
) -> None:
    """Time the chosen passes on `size` synthetic facts and print the figures."""
    print(f"\nN = {size:,} active facts", flush=True)
    facts, links, embed_seconds = synthesize(size, seed)
    print(f"  {'(HRR embedding, not timed)':<28} {embed_seconds:8.2f} s")
    if "gc" in passes:
        gc, _ = timed("decay GC plan", lambda: plan_decay_gc(facts, NOW))
        print(f"      {gc.summary()}")
    if "dream" in passes:
        dream, _ = timed("dream plan", lambda: plan_dream(facts, links, NOW, workers=workers))
        print(f"      {dream.summary()}")
        for bucket in dream.buckets:
            lsh = bucket.lsh
            extra = f", LSH {lsh.bands} bands × {lsh.rows} bits, miss ≤ {lsh.miss_bound:.1e}" if lsh else ""
            print(f"      {bucket.method}: {bucket.candidates:,} pairs scored, {bucket.pairs:,} ≥ bar{extra}")
    if graph_links and "graph" in passes:
        extra_links = topic_links(facts, graph_links, seed)
        graph, export_seconds = timed(
            f"graph export ({len(extra_links):,} links)", lambda: export_memory_graph(facts, extra_links, NOW)
        )
        print(f"      {graph.stats.clusters:,} clusters, modularity {graph.stats.modularity or 0:.3f}")
        _, render_seconds = timed("graph GraphML + JSON", lambda: (to_graphml(graph), to_json(graph)))
        print(f"      export and both documents: {export_seconds + render_seconds:.2f} s")
        # What the worker does after a day's writes: 100 new facts, each linked into the memory,
        # exported again from the kept partition (warm start), and drawn from it as it is.
        grown, grown_links = with_new_linked_facts(facts, extra_links, 100, seed)
        warm, _ = timed("graph re-export, 100 new (warm)",
                        lambda: export_memory_graph(grown, grown_links, NOW, previous=graph.communities))  # fmt: skip
        print(f"      {warm.stats.clusters:,} clusters, modularity {warm.stats.modularity or 0:.3f}")
        timed("graph drawn from kept partition",
              lambda: export_memory_graph(grown, grown_links, NOW, previous=graph.communities, fixed=True))  # fmt: skip


def with_new_linked_facts(facts: list[MaintFact], links: list[Link], count: int, seed: int):
    """`facts` plus `count` new ones (copies of random facts under new ids), each with three links
    to facts already there."""
    from dataclasses import replace

    rng = random.Random(seed + 1)
    active = [f for f in facts if f.is_active]
    new = [replace(rng.choice(active), memory_id=f"mem_new_{k:05d}") for k in range(count)]
    new_links = [(n.memory_id, "relates", rng.choice(active).memory_id) for n in new for _ in range(3)]
    return [*facts, *new], [*links, *new_links]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--workers", type=int, default=2, help="threads for the LSH band work")
    parser.add_argument("--graph-links-per-fact", type=int, default=5)
    parser.add_argument(
        "--graph-max", type=int, default=10_000, help="largest size whose graph export is timed"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--passes",
        nargs="+",
        choices=PASSES,
        default=list(PASSES),
        help="which passes to time (default: all)",
    )
    options = parser.parse_args(argv)
    np.seterr(all="ignore")
    run(options.sizes, workers=options.workers,
        graph_links_per_fact=options.graph_links_per_fact, graph_max=options.graph_max, seed=options.seed,
        passes=tuple(options.passes))  # fmt: skip


if __name__ == "__main__":
    main()
