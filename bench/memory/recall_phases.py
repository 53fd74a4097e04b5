"""Where a recall's time goes, on a workspace that already exists: cold builds, warm recalls and
recalls right after a write, each split into its phases.

    python -m bench.memory.recall_phases --workspace bench-100000-… [--cold 3] [--queries 100] [--writes 60]

1. **Cold**: `--cold` times, this process forgets every index and key, then serves one recall; the
   index is built from the database (no snapshot is read or written meanwhile).
2. **Warm**: `--queries` of the recall bench's queries (`bench.memory.queries`), untimed first 20.
3. **After a write**: `--writes` facts written through the write path (a corpus other than the
   seeding one), each followed by one timed recall (its index sync included).

Each phase is the time spent inside one function (median over the calls, ms; `n` calls): the sync
(`sync`, its database reads and appends), and the fused lane's parts (`bm25` is BM25 of the query's
stems, `expansion` the feedback pass, `ngram` the n-gram cosine with its candidate-set sums,
`rank` the whole ranking). The write path's facts stay in the workspace: run it on a scratch database.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from contextlib import contextmanager

from bench.standalone import django_ready, workspace_named

# (label, module, owner within the module or "", function name) of each phase timed.
PHASES = (
    ("sync", "memory.services.recall.index", "IndexRegistry", "_sync_revision"),
    ("  read the facts", "memory.services.recall.index", "IndexRegistry", "_load"),
    ("  read learned vectors", "memory.services.recall.index", "IndexRegistry", "_load_vectors"),
    ("  append to the columns", "memory.services.recall.index", "IndexRegistry", "_append"),
    ("  links", "memory.services.recall.index_links", "", "update"),
    ("  build the columns", "memory.services.recall.index", "IndexRegistry", "_rebuild"),
    ("rank", "memory.services.recall.verbs", "", "_rank"),
    ("  bm25", "memory.engine.recall.bm25", "Bm25Index", "score"),
    ("  expansion", "memory.engine.recall.fusion", "", "_expansion"),
    ("  ngram", "memory.engine.recall.ngrams", "NgramIndex", "cosine"),
    ("    candidate-set sums", "memory.engine.recall.ngrams", "NgramIndex", "candidate_sums"),
)


class Timings:
    """Milliseconds spent in each phase, per call, while `timing` wraps the phases' functions."""

    def __init__(self) -> None:
        self.calls: dict[str, list[float]] = defaultdict(list)

    @contextmanager
    def timing(self):
        import importlib

        undo = []
        for label, module_name, owner_name, name in PHASES:
            module = importlib.import_module(module_name)
            owner = getattr(module, owner_name) if owner_name else module
            original = getattr(owner, name)
            setattr(owner, name, self._timed(label, original))
            undo.append((owner, name, original))
        try:
            yield self
        finally:
            for owner, name, original in reversed(undo):
                setattr(owner, name, original)

    def _timed(self, label: str, function):
        calls = self.calls

        @functools.wraps(function)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                calls[label].append((time.perf_counter() - started) * 1000)

        return timed

    def table(self, title: str, total: list[float]) -> str:
        lines = [f"{title}: p50 {statistics.median(total):.2f} ms (n={len(total)})"]
        for label, *_ in PHASES:
            spent = self.calls.get(label)
            if spent:
                lines.append(f"  {label:<28} p50 {statistics.median(spent):9.2f} ms   n={len(spent)}")
        self.calls.clear()
        return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.recall_phases", description=__doc__.split("\n")[0])
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--cold", type=int, default=3)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--writes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    django_ready()
    from django.test import override_settings

    from bench.memory.corpus import Corpus
    from bench.memory.queries import queries_for
    from memory import sealing
    from memory.engine.facts import records as R
    from memory.services.recall import verbs as recall_service
    from memory.services.recall.index import registry
    from memory.services.writes.write_path import NewFact, write_fact

    workspace = workspace_named(parser, args.workspace)

    def recall(query: str) -> float:
        started = time.perf_counter()
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=10, reinforce=False)
        return (time.perf_counter() - started) * 1000

    timings = Timings()
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0, TIDELINE_RECALL_SNAPSHOT_DIR="/nonexistent"):
        cold = []
        for _ in range(args.cold):
            registry.clear()
            sealing.keyring.forget_cache()
            with timings.timing():
                cold.append(recall("project budget deadline"))
        if cold:
            print(timings.table(f"cold recall (index built from the database, {workspace.name})", cold))
    contents = [row.content for row in registry.get(workspace, R.Origin.owner()).rows.values()]
    queries = queries_for(contents, args.queries, args.seed)
    for query in queries[:20]:
        recall(query)
    with timings.timing():
        warm = [recall(query) for query in queries]
    print(timings.table("warm recall", warm))
    after = []
    corpus = Corpus(seed=args.seed + 1000)
    for fact, query in zip(corpus.facts(args.writes), queries_for(contents, args.writes, args.seed + 1), strict=True):
        write_fact(workspace=workspace, new=NewFact(content=fact.content, segment=fact.segment,
                                                    source_type="owner_message"), actor="bench")  # fmt: skip
        with timings.timing():
            after.append(recall(query))
    if after:
        print(timings.table("recall right after a write", after))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
