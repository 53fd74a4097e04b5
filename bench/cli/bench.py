"""`tideline bench [--sizes 100,10000] [--writes 200] [--queries 200] [--pages 30]` — measure on the configured database.

With `--pages`, the home inbox is timed too, once: a person in `--inbox-workspaces` workspaces with
`--inbox-items` open review items (bench.governance.inbox).

For each size: seed a fresh workspace in bulk, build the recall index cold and time warm recalls (with
BM25 alone on the same corpus as references: `bm25s`, and tantivy on Tideline's terms when it is
installed) and recalls right after writes, time writes through the full write path, then the
console's pages as an owner (bench.memory.pages), then the dream, the GC and the graph export, and
recall again on the linked memory the dream left.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import asdict

from django.db import connection

from bench.governance.inbox import time_inbox
from bench.memory.pages import time_console
from bench.memory.recall import AFTER_WRITE_COUNT, run_recall_bench, time_linked_recall
from bench.memory.resident import PeakSampler, resident_mb
from bench.memory.writes import seed_workspace, time_writes
from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError

HELP = "benchmark writes and recall at given workspace sizes (use a scratch database)"


def add_arguments(parser) -> None:
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated workspace sizes, e.g. 1000,10000,100000")
    parser.add_argument("--writes", type=int, default=200, help="timed writes per size (0 to skip)")
    parser.add_argument("--queries", type=int, default=200, help="timed recalls per size (0 to skip)")
    parser.add_argument("--pages", type=int, default=30,
                        help="timed requests per console page (overview, facts list, inspector, review queue; 0 to skip)")
    parser.add_argument("--inbox-workspaces", type=int, default=50, help="with --pages: the home inbox's workspaces")
    parser.add_argument("--inbox-items", type=int, default=10_000, help="with --pages: open review items across them")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-maintenance", action="store_true", help="skip timing the dream, GC and graph export")


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise RequestError(f"--sizes must be whole numbers separated by commas, got {text!r}", kind="validation") from exc
    if not sizes or any(size < 1 or size > 2_000_000 for size in sizes):
        raise RequestError("--sizes must be between 1 and 2,000,000", kind="validation")
    return sizes


def run(options: dict) -> None:
    sizes = _sizes(options["sizes"])
    if options["writes"] < 0 or options["queries"] < 0 or options["pages"] < 0:
        raise RequestError("--writes, --queries and --pages cannot be negative", kind="validation")
    results = []
    sampler = PeakSampler()
    if options["pages"] and (options["inbox_workspaces"] < 1 or options["inbox_items"] < 0):
        raise RequestError("--inbox-workspaces must be at least 1 and --inbox-items cannot be negative", kind="validation")
    inbox = None
    try:
        for size in sizes:
            results.append(_bench_size(size, options, sampler))
        if options["pages"]:
            inbox = time_inbox(options["inbox_workspaces"], options["inbox_items"], options["pages"])
    finally:
        sampler.close()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table = _table(connection.vendor, results, rss_mb)
    if inbox:
        table += (f"\nhome inbox: {inbox['workspaces']} workspaces, {inbox['open_items']:,} open items   p50 {inbox['p50_ms']:.1f} ms"
                  f"   p95 {inbox['p95_ms']:.1f} ms   (n={inbox['count']})")  # fmt: skip
    emit(options, {"database": connection.vendor, "pid": os.getpid(), "peak_rss_mb": rss_mb, "results": results,
                   "inbox": inbox}, table)  # fmt: skip


def _bench_size(size: int, options: dict, sampler: PeakSampler) -> dict:
    """One size's figures; `peak_mb` says which phase set this process's peak."""
    sampler.mark()
    with progress_bar(size, f"seeding {size:,} facts") as bar:
        workspace, corpus = seed_workspace(size, seed=options["seed"], progress=bar.update)
    row: dict = {"size": size, "workspace": workspace.name}
    peaks = row["peak_mb"] = {"seeding": sampler.mark()}
    seeded = resident_mb()
    if options["queries"]:
        bench = run_recall_bench(workspace, options["queries"], options["seed"], sampler=sampler)
        peaks.update(bench.peak_mb)
        row["recall"] = {
            "cold_build_s": bench.cold_build_s, "warm": asdict(bench.warm),
            "index_bytes_per_fact": bench.index_bytes_per_fact,
            "bm25s": asdict(bench.bm25s) if bench.bm25s else None, "ratio_to_bm25s": bench.ratio_to_bm25s,
            "after_write": asdict(bench.recall_after_write) if bench.recall_after_write else None,
            "snapshot_write_s": bench.snapshot_write_s, "restart_s": bench.restart_s,
            "bm25s_peak_rss_mb": bench.bm25s_peak_mb,
            "tantivy": asdict(bench.tantivy) if bench.tantivy else None, "ratio_to_tantivy": bench.ratio_to_tantivy,
            "tantivy_peak_rss_mb": bench.tantivy_peak_mb, "tantivy_build_s": bench.tantivy_build_s,
            "build_ratio_to_tantivy": bench.build_ratio_to_tantivy, "resident_mb": {"after seeding": seeded, **bench.resident_mb},
        }  # fmt: skip
    if options["writes"]:
        row["write"] = asdict(time_writes(workspace, corpus, options["writes"]))
        peaks["writes"] = sampler.mark()
    if options["pages"]:
        # With every fact still active (the dream below archives most of them): the heaviest lists.
        row["console"] = time_console(workspace, options["pages"])
        peaks["console pages"] = sampler.mark()
    if not options["no_maintenance"]:
        row["maintenance"] = _time_maintenance(workspace, sampler, peaks)
        if options["queries"]:
            # The dream links related facts (hundreds of thousands at 100,000 facts): recall again,
            # so the graph step is measured on a linked memory too.
            row["recall_linked"] = time_linked_recall(workspace, options["queries"], options["seed"],
                                                      writes=min(options["queries"], AFTER_WRITE_COUNT))  # fmt: skip
            peaks["recall after the dream"] = sampler.mark()
    return row


def _time_maintenance(workspace, sampler: PeakSampler, peaks: dict[str, float]) -> dict:
    """Seconds for a full dream pass (plan and apply), a decay GC pass and a graph export with communities.

    The worker that runs them holds no recall index, so this process lets its index go first (the
    recall after the dream loads it again): otherwise the peak would add the two up, which no
    deployed process does (`registry.clear` frees a large index and hands its pages back)."""
    from memory.services.maintenance import passes as maintenance
    from memory.services.maintenance.graph import export_graph
    from memory.services.recall.index import registry

    registry.clear()
    peaks["letting the index go"] = sampler.mark()
    timings: dict = {}
    dream_phases = PhaseClock(sampler)
    for name, call in (("dream_s", lambda: maintenance.run_dream(workspace, actor="bench", progress=dream_phases)),
                       ("gc_s", lambda: maintenance.run_gc(workspace, actor="bench")),
                       ("graph_export_s", lambda: export_graph(workspace))):  # fmt: skip
        started = time.perf_counter()
        call()
        timings[name] = time.perf_counter() - started
        peaks[name.removesuffix("_s").replace("_", " ")] = sampler.mark()
        if name == "dream_s":
            timings["dream_phases_s"] = dream_phases.stop()
            timings["dream_phases_peak_mb"] = dream_phases.peak_mb
            # The clock marked the sampler at each phase: the dream's peak is the highest of them.
            peaks["dream"] = max(peaks["dream"], *dream_phases.peak_mb.values())
    return timings


class PhaseClock:
    """A maintenance `progress(phase, done, total)` that notes how long each phase took (by name,
    in the order first heard; a phase heard again later adds to its time) and, given the bench's
    sampler, the highest resident memory in each (`peak_mb`)."""

    def __init__(self, sampler: PeakSampler | None = None) -> None:
        self._phase: str | None = None
        self._since = time.perf_counter()
        self._sampler = sampler
        self.seconds: dict[str, float] = {}
        self.peak_mb: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self._phase:
            self._close()
            self._phase = phase

    def _close(self) -> None:
        now = time.perf_counter()
        if self._phase is not None:
            self.seconds[self._phase] = self.seconds.get(self._phase, 0.0) + now - self._since
            if self._sampler is not None:
                self.peak_mb[self._phase] = max(self.peak_mb.get(self._phase, 0.0), self._sampler.mark())
        self._since = now

    def stop(self) -> dict[str, float]:
        self._close()
        self._phase = None
        return self.seconds


def _table(vendor: str, results: list[dict], rss_mb: float) -> str:
    lines = [f"database: {vendor}   peak RSS: {rss_mb:.0f} MB"]
    for row in results:
        lines.append(f"\n{row['size']:,} facts")
        if "write" in row:
            w = row["write"]
            lines.append(f"  write   p50 {w['p50_ms']:7.2f} ms   p95 {w['p95_ms']:7.2f} ms   min {w['min_ms']:.2f}   (n={w['count']})")
        if "recall" in row:
            r = row["recall"]
            w = r["warm"]
            lines.append(f"  recall  p50 {w['p50_ms']:7.2f} ms   p95 {w['p95_ms']:7.2f} ms   cold build {r['cold_build_s']:.2f} s"
                         f"   index {r['index_bytes_per_fact']:.0f} B/fact")  # fmt: skip
            if r["bm25s"]:
                b = r["bm25s"]
                lines.append(f"  bm25s   p50 {b['p50_ms']:7.2f} ms   p95 {b['p95_ms']:7.2f} ms   (ours / bm25s at p50: {r['ratio_to_bm25s']:.1f}x)")
            if r.get("tantivy"):
                t = r["tantivy"]
                lines.append(f"  tantivy p50 {t['p50_ms']:7.2f} ms   p95 {t['p95_ms']:7.2f} ms   (ours / tantivy at p50: {r['ratio_to_tantivy']:.1f}x;"
                             " Tideline's terms, BM25 alone)")  # fmt: skip
                if r.get("tantivy_build_s"):
                    lines.append(f"  tantivy build {r['tantivy_build_s']:.2f} s from the same texts, Tideline's analysis included"
                                 f"   (our cold build / tantivy's: {r['build_ratio_to_tantivy']:.1f}x)")  # fmt: skip
            else:
                lines.append("  tantivy not installed (the reference beside bm25s is skipped)")
            if r.get("restart_s") is not None:
                lines.append(f"  snapshot written in {r['snapshot_write_s']:.2f} s; a restarted process recalls from it in"
                             f" {r['restart_s']:.2f} s")  # fmt: skip
            if r.get("after_write"):
                a = r["after_write"]
                lines.append(f"  recall right after a write  p50 {a['p50_ms']:7.2f} ms   p95 {a['p95_ms']:7.2f} ms   (n={a['count']})")
            if r.get("resident_mb"):
                phases = ", ".join(f"{phase} {mb:,.0f}" for phase, mb in r["resident_mb"].items())
                lines.append(f"  resident MB after each phase: {phases}")
            if r.get("bm25s_peak_rss_mb"):
                lines.append(f"  (bm25s ran in a child process: its peak RSS {r['bm25s_peak_rss_mb']:,.0f} MB is not in this one's)")
            if r.get("tantivy_peak_rss_mb"):
                lines.append(f"  (tantivy ran in a child process: its peak RSS {r['tantivy_peak_rss_mb']:,.0f} MB is not in this one's)")
        if row.get("console"):
            lines.append("  console pages, server time as an owner:")
            for label, page in row["console"].items():
                lines.append(f"    {label:<30} p50 {page['p50_ms']:7.2f} ms   p95 {page['p95_ms']:7.2f} ms   (n={page['count']})")
        if row.get("peak_mb"):
            phases = ", ".join(f"{phase} {mb:,.0f}" for phase, mb in row["peak_mb"].items())
            lines.append(f"  peak resident MB in each phase: {phases}")
        if "maintenance" in row:
            t = row["maintenance"]
            lines.append(f"  dream {t['dream_s']:.2f} s   gc {t['gc_s']:.2f} s   graph export {t['graph_export_s']:.2f} s")
            if t.get("dream_phases_s"):
                phases = ", ".join(f"{phase} {seconds:.1f}" for phase, seconds in t["dream_phases_s"].items())
                lines.append(f"  the dream's phases (s): {phases}")
            if t.get("dream_phases_peak_mb"):
                phases = ", ".join(f"{phase} {mb:,.0f}" for phase, mb in t["dream_phases_peak_mb"].items())
                lines.append(f"  the dream's phases (peak resident MB): {phases}")
        if "recall_linked" in row:
            r, links = row["recall_linked"], row["recall_linked"]["links"]
            lines.append(f"  recall after the dream ({links:,} links)  p50 {r['p50_ms']:7.2f} ms   p95 {r['p95_ms']:7.2f} ms")
            if r.get("after_write"):
                a = r["after_write"]
                lines.append(f"  recall right after a write, after the dream  p50 {a['p50_ms']:7.2f} ms   p95 {a['p95_ms']:7.2f} ms"
                             f"   (n={a['count']})")  # fmt: skip
    return "\n".join(lines)
