"""Write-path latency at a given workspace size: seed N facts in bulk, then time writes through the gate."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.test import override_settings
from django.utils import timezone

from bench.memory.corpus import Corpus
from memory.engine.facts import records as R
from memory.models import Workspace
from memory.services.workspaces import create_workspace
from memory.services.writes.interchange import import_facts
from memory.services.writes.write_path import NewFact, write_fact
from memory.timestamps import to_ms


@dataclass
class LatencySummary:
    count: int
    min_ms: float
    p50_ms: float
    p95_ms: float
    max_ms: float

    @classmethod
    def of(cls, samples: list[float]) -> LatencySummary:
        ordered = sorted(samples)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return cls(len(ordered), ordered[0], statistics.median(ordered), p95, ordered[-1])


def seed_workspace(size: int, *, seed: int, progress: Callable[[int], None] | None = None) -> tuple[Workspace, Corpus]:
    """A fresh workspace holding `size` owner facts, loaded through the bulk import path."""
    workspace = create_workspace(f"bench-{size}-{int(time.time() * 1000)}", actor="bench")
    corpus = Corpus(seed=seed)
    now_ms = to_ms(timezone.now())
    lines = [import_line(f"mem_bench_{index}", fact, now_ms - (size - index) * 60_000)
             for index, fact in enumerate(corpus.facts(size))]  # fmt: skip
    # No snapshot queued after the import: the bench times the index's cold build and its snapshot
    # itself, and a worker writing one meanwhile would share the CPU with what it times.
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):
        import_facts(workspace=workspace, lines=lines, actor="bench", source_name="bench", progress=progress)
    return workspace, corpus


def import_line(memory_id: str, fact, created_ms: int) -> str:
    """One facts.jsonl line for the bulk import: an active owner fact of the bench corpus with its
    segment's defaults, written and last used at `created_ms`."""
    defaults = R.SEGMENT_DEFAULTS[fact.segment]
    return json.dumps({
        "memoryId": memory_id, "content": fact.content, "segment": fact.segment,
        "tier": defaults.tier, "importance": defaults.importance, "decayRate": defaults.decay_rate,
        "accessCount": 0, "lastAccessedAt": created_ms, "createdAt": created_ms, "lifecycle": "active",
        "createdBy": {"kind": "owner"}, "sourceType": "owner_message",
    })  # fmt: skip


def time_writes(workspace: Workspace, corpus: Corpus, count: int) -> LatencySummary:
    """Milliseconds per write of new facts through the full write path (gate, dedup, slots, events)."""
    samples = []
    for fact in corpus.facts(count):
        new = NewFact(content=fact.content, segment=fact.segment, source_type="owner_message")
        started = time.perf_counter()
        write_fact(workspace=workspace, new=new, actor="bench")
        samples.append((time.perf_counter() - started) * 1000)
    return LatencySummary.of(samples)
