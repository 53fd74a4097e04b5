"""Recall speed at a given workspace size: cold index build, warm recall latency, index memory,
and BM25 alone from the `bm25s` package on the same corpus as a reference."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from memory.bench.writes import LatencySummary
from memory.engine import records as R
from memory.models import Workspace
from memory.services import recall as recall_service
from memory.services.recall_index import registry


@dataclass
class RecallBench:
    cold_build_s: float
    warm: LatencySummary
    index_bytes_per_fact: float
    bm25s: LatencySummary | None

    @property
    def ratio_to_bm25s(self) -> float | None:
        return self.warm.p50_ms / self.bm25s.p50_ms if self.bm25s else None


def queries_for(contents: list[str], count: int, seed: int) -> list[str]:
    """Queries a person might type: two or three words taken from a random fact, shuffled."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [w.strip(".,'") for w in rng.choice(contents).split() if len(w) > 3]
        rng.shuffle(words)
        out.append(" ".join(words[: rng.choice([2, 3])]) or "memory")
    return out


def run_recall_bench(workspace: Workspace, count: int, seed: int) -> RecallBench:
    registry.clear()
    started = time.perf_counter()
    index = registry.get(workspace, R.Origin.owner())
    cold = time.perf_counter() - started
    contents = [row.content for row in index.rows.values()]
    queries = queries_for(contents, count, seed)
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
        samples.append((time.perf_counter() - t0) * 1000)
    return RecallBench(cold, LatencySummary.of(samples), index.size_bytes / max(1, len(contents)),
                       _bm25s_reference(contents, queries))  # fmt: skip


def _bm25s_reference(contents: list[str], queries: list[str]) -> LatencySummary | None:
    try:
        import bm25s
    except ImportError:
        return None
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(contents, stopwords="en", show_progress=False), show_progress=False)
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        retriever.retrieve(tokens, k=min(10, len(contents)), show_progress=False)
        samples.append((time.perf_counter() - t0) * 1000)
    return LatencySummary.of(samples)
