"""Recall speed at a given workspace size: cold index build, warm recall latency, the recall that
follows a write (an agent writes, then recalls), index memory, and BM25 alone on the same corpus as
references: the `bm25s` package, and tantivy (fed Tideline's own analysis) when it is installed."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from django.test import override_settings

from bench.memory import tantivy_reference
from bench.memory.bm25s_reference import reference_in_child
from bench.memory.corpus import Corpus
from bench.memory.queries import queries_for
from bench.memory.resident import PeakSampler, resident_mb
from bench.memory.writes import LatencySummary
from memory import sealing
from memory.engine.facts import records as R
from memory.models import Workspace
from memory.services.recall import verbs as recall_service
from memory.services.recall.index import registry

AFTER_WRITE_COUNT = 50  # writes (each followed by a timed recall) per run, at most the query count


@dataclass
class RecallBench:
    cold_build_s: float
    warm: LatencySummary
    index_bytes_per_fact: float
    bm25s: LatencySummary | None
    # The recall right after writing one new fact: pays for bringing the index up to date.
    recall_after_write: LatencySummary | None = None
    # Writing the index's snapshot, and a restarted process's first recall served from it.
    snapshot_write_s: float | None = None
    restart_s: float | None = None
    # The bm25s reference's own peak (it runs in a child process), and this process's resident
    # memory after each phase: where the memory goes.
    bm25s_peak_mb: float | None = None
    # BM25 from tantivy on Tideline's terms (None when tantivy is not installed), and its child's peak.
    tantivy: LatencySummary | None = None
    tantivy_peak_mb: float | None = None
    # tantivy's build from the same texts (Tideline's analysis, then its indexing), beside `cold_build_s`.
    tantivy_build_s: float | None = None
    resident_mb: dict[str, float] = field(default_factory=dict)
    # The highest resident memory within each phase (when a `PeakSampler` watched).
    peak_mb: dict[str, float] = field(default_factory=dict)

    @property
    def ratio_to_bm25s(self) -> float | None:
        return self.warm.p50_ms / self.bm25s.p50_ms if self.bm25s else None

    @property
    def ratio_to_tantivy(self) -> float | None:
        return self.warm.p50_ms / self.tantivy.p50_ms if self.tantivy else None

    @property
    def build_ratio_to_tantivy(self) -> float | None:
        return self.cold_build_s / self.tantivy_build_s if self.tantivy_build_s else None


def run_recall_bench(
    workspace: Workspace, count: int, seed: int, after_writes: int | None = None, sampler: PeakSampler | None = None
) -> RecallBench:
    """`after_writes` (default: min(count, AFTER_WRITE_COUNT)) new facts are written at the end, each
    followed by a timed recall; the workspace keeps them. With `sampler`, each phase's peak is noted."""
    registry.clear()
    resident = {"before": resident_mb()}
    peaks: dict[str, float] = {}

    def phase_ends(name: str) -> None:
        resident[name] = resident_mb()
        if sampler is not None:
            peaks[name] = sampler.mark()

    if sampler is not None:
        sampler.mark()
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):  # the build alone; its snapshot below
        started = time.perf_counter()
        registry.get(workspace, R.Origin.owner())
        cold = time.perf_counter() - started
    phase_ends("cold build")
    snapshot_write_s, restart_s = _time_restart(workspace)
    phase_ends("restart from the snapshot")
    index = registry.get(workspace, R.Origin.owner())
    contents = [row.content for row in index.rows.values()]
    queries = queries_for(contents, count, seed)
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
        samples.append((time.perf_counter() - t0) * 1000)
    phase_ends("warm recalls")
    reference, reference_peak = _bm25s_reference(contents, queries)
    tantivy, tantivy_peak, tantivy_build = _tantivy_reference(contents, queries)
    writes = min(count, AFTER_WRITE_COUNT) if after_writes is None else after_writes
    after = time_recall_after_write(workspace, writes, seed, contents=contents) if writes else None
    phase_ends("recalls after writes")
    return RecallBench(
        cold, LatencySummary.of(samples), index.size_bytes / max(1, len(contents)), reference, after,
        snapshot_write_s, restart_s, reference_peak, tantivy, tantivy_peak, tantivy_build, resident, peaks,
    )


def _time_restart(workspace: Workspace) -> tuple[float, float]:
    """Seconds to write the index's snapshot, then for a process without the index (registry and key
    cache emptied, the old index freed and its pages handed back first by `registry.clear`, as in a
    new process) to serve its first recall from it."""
    started = time.perf_counter()
    registry.save_snapshot(registry.get(workspace, R.Origin.owner()))
    written = time.perf_counter() - started
    registry.clear()
    sealing.keyring.forget_cache()
    started = time.perf_counter()
    recall_service.recall(workspace=workspace, query="memory", origin="owner", k=10, reinforce=False)
    return written, time.perf_counter() - started


def time_recall_after_write(
    workspace: Workspace, count: int, seed: int, *, contents: list[str] | None = None
) -> LatencySummary:
    """Milliseconds of the recall that follows each write of one fact (index sync included).

    The index is warm before the first write; each write goes through the full write path (so a
    repeat is a reinforcement, not a new fact), and only the recall after it is timed.
    """
    from memory.services.writes.write_path import NewFact, write_fact

    index = registry.get(workspace, R.Origin.owner())
    if contents is None:
        contents = [row.content for row in index.rows.values()]
    queries = queries_for(contents, count, seed + 1)
    corpus = Corpus(seed=seed + 1000)  # not the seeding corpus: mostly new facts
    samples = []
    for fact, query in zip(corpus.facts(count), queries, strict=True):
        write_fact(workspace=workspace, new=NewFact(content=fact.content, segment=fact.segment,
                                                    source_type="owner_message"), actor="bench")  # fmt: skip
        t0 = time.perf_counter()
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
        samples.append((time.perf_counter() - t0) * 1000)
    return LatencySummary.of(samples)


def _bm25s_reference(contents: list[str], queries: list[str]) -> tuple[LatencySummary | None, float | None]:
    """bm25s's latencies on the same corpus and queries, and the peak RSS (MB) of the child it ran in."""
    result = reference_in_child(contents, queries)
    if result is None:
        return None, None
    samples, peak_mb = result
    return LatencySummary.of(samples), peak_mb


def _tantivy_reference(contents: list[str], queries: list[str]) -> tuple[LatencySummary | None, float | None,
                                                                        float | None]:  # fmt: skip
    """tantivy's latencies (Tideline's analysis of each query included) on the same corpus and queries,
    the peak RSS (MB) of the child it ran in, and its build's seconds (analysis included); (None,
    None, None) when tantivy is not installed."""
    result = tantivy_reference.reference_in_child(contents, queries)
    if result is None:
        return None, None, None
    samples, peak_mb, build_s = result
    return LatencySummary.of(samples), peak_mb, build_s


def time_linked_recall(workspace: Workspace, count: int, seed: int, writes: int = 0) -> dict:
    """Warm recall latency as `run_recall_bench` measures it, on the workspace as it is now (after the
    dream has linked it), plus how many links the scope holds; with `writes`, also the recall right
    after each of that many writes (`after_write`), whose sync then reads the links of the new fact."""
    index = registry.get(workspace, R.Origin.owner())
    queries = queries_for([row.content for row in index.rows.values()], count, seed + 1)
    for query in queries[:10]:  # the first recall after the dream syncs the index
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
    samples = []
    for query in queries:
        started = time.perf_counter()
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
        samples.append((time.perf_counter() - started) * 1000)
    out = {**asdict(LatencySummary.of(samples)), "links": len(index.links)}
    if writes:
        contents = [row.content for row in index.rows.values()]
        out["after_write"] = asdict(time_recall_after_write(workspace, writes, seed + 2, contents=contents))
    return out
