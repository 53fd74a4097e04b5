"""Top-10 BM25 from search libraries side by side, on the benchmarks' synthetic facts.

    python -m bench.memory.search_libraries --docs 100000 --queries 200 [--json]

One corpus (`bench.memory.corpus`, the facts `tideline bench` seeds) and one query set (the bench's
`queries_for`), analysed once by Tideline (`recall_terms`: tokens, stopwords, clitics, stems), so
every library ranks the same terms. Each library builds its index from those terms and answers every
query's distinct terms, OR-ed, with its top 10:

* `tideline`: Tideline's own `Bm25Index` (numpy/scipy), top 10 by score, ties to the lower number;
* `tantivy`: `bench.memory.tantivy_reference.TantivyBm25` (terms joined by spaces, split on whitespace);
* `bm25s`: `bm25s.BM25(k1=1.2, b=0.75, method="lucene")` over the term lists;
* `sqlite-fts5`: the standard library's SQLite, a contentless FTS5 table (`unicode61`, no diacritic
  folding) over the joined terms, ranked by `bm25()`.

Reported per library: build seconds (from terms to a searchable index, one indexing thread) and the
CPU seconds of every thread in it; query p50 / p95 in ms (the search and reading the document
numbers, after a few untimed queries; the query's analysis is done beforehand, the same for all);
the index's own size in MB; the growth of this process's resident memory while it was built; and how
its top 10 agree with Tideline's: the mean share of Tideline's top 10 it returns, and how often its
first result is Tideline's. Many short facts share a score, so both are also given with ties
counted: a result agrees when its Tideline score equals that of the top 10's last (or, for rank 1,
the first), within 1e-5 of the best score (libraries score in float32).

Everything runs in this one process, one library after another. No Django.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import sqlite3
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from bench.memory import tantivy_reference
from bench.memory.corpus import Corpus
from bench.memory.queries import queries_for
from bench.memory.resident import resident_mb
from memory.engine.recall.bm25 import K1, B, Bm25Index, query_terms
from memory.engine.recall.tokenize import recall_terms

K = 10
LIBRARIES = ("tideline", "tantivy", "bm25s", "sqlite-fts5")
TIE_TOLERANCE = 1e-5  # relative to the query's best score
WARM_UP = 5  # queries answered once, untimed, before the timed pass (first-use costs are not a query's)


@dataclass
class LibraryRun:
    library: str
    version: str | None
    installed: bool
    build_s: float | None = None
    build_cpu_s: float | None = None  # this process's CPU time in the build, every thread's
    p50_ms: float | None = None
    p95_ms: float | None = None
    index_mb: float | None = None
    rss_delta_mb: float | None = None
    top10_overlap: float | None = None
    rank1_agreement: float | None = None
    top10_overlap_ties: float | None = None
    rank1_agreement_ties: float | None = None
    empty_results: int | None = None  # queries for which it returned nothing


@dataclass
class Baseline:
    """Tideline's answer to one query: its top 10, and the documents a tie could put there."""

    top: list[int]
    could_be_top: frozenset[int]  # Tideline score ≥ the top 10's last (less the tolerance)
    could_be_first: frozenset[int]  # Tideline score ≥ the best (less the tolerance)


class Searcher:
    """A built index: `top(terms)` → document numbers, best first; `size_bytes`; `close()`."""

    size_bytes: int

    def top(self, terms: Sequence[str]) -> list[int]:
        raise NotImplementedError

    def close(self) -> None:
        """Let the index go."""


def top_k(scores: np.ndarray, k: int = K) -> list[int]:
    """The `k` documents of highest positive score, best first; equal scores by lower number."""
    hit = np.flatnonzero(scores > 0)
    if hit.size > k:
        kth = np.partition(scores[hit], hit.size - k)[hit.size - k]
        hit = hit[scores[hit] >= kth]
    order = np.lexsort((hit, -scores[hit]))
    return hit[order[:k]].tolist()


class TidelineSearcher(Searcher):
    def __init__(self, documents: list[list[str]]) -> None:
        self.index = Bm25Index(documents, analyzer=list)

    def top(self, terms: Sequence[str]) -> list[int]:
        return top_k(self.index.score(list(terms)).scores)

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        return self.index.score(list(terms)).scores

    @property
    def size_bytes(self) -> int:
        return self.index.nbytes  # the arrays: counts, lengths (not the vocabulary's dict)


class TantivySearcher(Searcher):
    def __init__(self, documents: list[list[str]]) -> None:
        self.index = tantivy_reference.TantivyBm25(documents)

    def top(self, terms: Sequence[str]) -> list[int]:
        return self.index.top(terms, K)

    @property
    def size_bytes(self) -> int:
        return self.index.size_bytes  # the index directory

    def close(self) -> None:
        self.index.close()


class Bm25sSearcher(Searcher):
    def __init__(self, documents: list[list[str]]) -> None:
        import bm25s

        self.retriever = bm25s.BM25(k1=K1, b=B, method="lucene")  # lucene: Tideline's IDF
        self.retriever.index(documents, show_progress=False)
        self.k = min(K, len(documents))

    def top(self, terms: Sequence[str]) -> list[int]:
        distinct = [term for term in query_terms(terms) if term in self.retriever.vocab_dict]
        if not distinct:
            return []
        docs, scores = self.retriever.retrieve([distinct], k=self.k, show_progress=False)
        return [int(doc) for doc, score in zip(docs[0], scores[0], strict=True) if score > 0]

    @property
    def size_bytes(self) -> int:  # the score matrix's arrays (not the vocabulary's dict)
        return sum(array.nbytes for array in self.retriever.scores.values() if isinstance(array, np.ndarray))


class Fts5Searcher(Searcher):
    def __init__(self, documents: list[list[str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        # Contentless (the text is not stored, as in the other indexes); positions are kept (detail=full):
        # bm25() needs each term's count in the row, which a contentless table only has from them.
        self.db.execute("CREATE VIRTUAL TABLE facts USING fts5(terms, content='', tokenize='unicode61 remove_diacritics 0')")
        with self.db:
            self.db.executemany("INSERT INTO facts(rowid, terms) VALUES (?, ?)",
                                ((row, " ".join(terms)) for row, terms in enumerate(documents)))  # fmt: skip
            self.db.execute("INSERT INTO facts(facts) VALUES ('optimize')")  # one b-tree, as a built index

    def top(self, terms: Sequence[str]) -> list[int]:
        distinct = query_terms(terms)
        if not distinct:
            return []
        match = " OR ".join('"' + term.replace('"', '""') + '"' for term in distinct)
        rows = self.db.execute("SELECT rowid FROM facts WHERE facts MATCH ? ORDER BY bm25(facts) LIMIT ?", (match, K))
        return [row for (row,) in rows]

    @property
    def size_bytes(self) -> int:
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        return pages * self.db.execute("PRAGMA page_size").fetchone()[0]

    def close(self) -> None:
        self.db.close()


BUILDERS: dict[str, tuple[Callable[[list[list[str]]], Searcher], str | None]] = {
    # library → (builder, the distribution whose version is reported)
    "tideline": (TidelineSearcher, None),
    "tantivy": (TantivySearcher, "tantivy"),
    "bm25s": (Bm25sSearcher, "bm25s"),
    "sqlite-fts5": (Fts5Searcher, None),
}


def _version(library: str) -> tuple[str | None, bool]:
    if library == "tideline":
        return "numpy " + np.__version__, True
    if library == "sqlite-fts5":
        return "SQLite " + sqlite3.sqlite_version, True
    try:
        return importlib.metadata.version(BUILDERS[library][1]), True
    except importlib.metadata.PackageNotFoundError:
        return None, False


def _baseline(searcher: TidelineSearcher, terms: Sequence[str]) -> Baseline:
    scores = searcher.scores(terms)
    top = top_k(scores)
    if not top:
        return Baseline([], frozenset(), frozenset())
    tolerance = TIE_TOLERANCE * scores[top[0]]
    could_be_top = np.flatnonzero((scores > 0) & (scores >= scores[top[-1]] - tolerance))
    could_be_first = np.flatnonzero(scores >= scores[top[0]] - tolerance)
    return Baseline(top, frozenset(could_be_top.tolist()), frozenset(could_be_first.tolist()))


def agreement(results: list[list[int]], baselines: list[Baseline]) -> dict[str, float]:
    """Mean top-10 overlap with Tideline's and rank-1 agreement, strict and with ties counted.

    Overlap of one query: the shared documents over the longer of the two lists (1 when both are
    empty); with ties, a result counts when a tie could have put it in Tideline's top 10."""
    strict, ties, first, first_ties = [], [], [], []
    for result, base in zip(results, baselines, strict=True):
        longest = max(len(result), len(base.top))
        if not longest:
            strict.append(1.0), ties.append(1.0), first.append(1.0), first_ties.append(1.0)
            continue
        strict.append(len(set(result) & set(base.top)) / longest)
        ties.append(min(len(base.top), sum(doc in base.could_be_top for doc in result)) / longest)
        first.append(float(bool(result) and bool(base.top) and result[0] == base.top[0]))
        first_ties.append(float(bool(result) and result[0] in base.could_be_first))
    return {"top10_overlap": statistics.fmean(strict), "rank1_agreement": statistics.fmean(first),
            "top10_overlap_ties": statistics.fmean(ties), "rank1_agreement_ties": statistics.fmean(first_ties)}  # fmt: skip


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _measure(library: str, documents: list[list[str]], queries: list[list[str]]) -> tuple[LibraryRun, list[list[int]], Searcher | None]:
    version, installed = _version(library)
    run = LibraryRun(library, version, installed)
    if not installed:
        return run, [], None
    gc.collect()
    before = resident_mb()
    started, cpu = time.perf_counter(), time.process_time()
    searcher = BUILDERS[library][0](documents)
    run.build_s, run.build_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    run.rss_delta_mb = resident_mb() - before
    run.index_mb = searcher.size_bytes / 2**20
    for terms in queries[:WARM_UP]:
        searcher.top(terms)
    results, samples = [], []
    for terms in queries:
        t0 = time.perf_counter()
        results.append(searcher.top(terms))
        samples.append((time.perf_counter() - t0) * 1000)
    run.p50_ms, run.p95_ms = statistics.median(samples), _percentile(samples, 0.95)
    run.empty_results = sum(not result for result in results)
    return run, results, searcher


def compare(docs: int, queries: int, seed: int = 7, libraries: Sequence[str] = LIBRARIES) -> dict:
    """Every library's figures on `docs` synthetic facts and `queries` queries (Tideline's always run:
    it is what the others are compared with)."""
    contents = [fact.content for fact in Corpus(seed=seed).facts(docs)]
    query_texts = queries_for(contents, queries, seed)
    started = time.perf_counter()
    documents = [recall_terms(content) for content in contents]
    query_lists = [list(query_terms(recall_terms(query))) for query in query_texts]
    analysis_s = time.perf_counter() - started

    runs: list[LibraryRun] = []
    tideline_run, _, tideline = _measure("tideline", documents, query_lists)
    baselines = [_baseline(tideline, terms) for terms in query_lists]
    tideline_results = [base.top for base in baselines]
    tideline.close()
    del tideline
    for library in LIBRARIES:
        if library == "tideline":
            tideline_run.__dict__.update(agreement(tideline_results, baselines))
            runs.append(tideline_run)
            continue
        if library not in libraries:
            continue
        run, results, searcher = _measure(library, documents, query_lists)
        if searcher is not None:
            run.__dict__.update(agreement(results, baselines))
            searcher.close()
            del searcher
        runs.append(run)
    return {
        "docs": docs, "queries": queries, "seed": seed, "analysis_s": analysis_s,
        "mean_terms_per_doc": statistics.fmean(map(len, documents)) if documents else 0.0,
        "mean_terms_per_query": statistics.fmean(map(len, query_lists)) if query_lists else 0.0,
        "libraries": [asdict(run) for run in runs],
    }  # fmt: skip


def table(report: dict) -> str:
    lines = [
        f"{report['docs']:,} facts, {report['queries']} queries (seed {report['seed']}); Tideline's analysis of"
        f" all of them {report['analysis_s']:.1f} s, {report['mean_terms_per_doc']:.1f} terms a fact,"
        f" {report['mean_terms_per_query']:.1f} a query",
        "",
        f"{'library':<12} {'version':<15} {'build s':>8} {'CPU s':>6} {'p50 ms':>8} {'p95 ms':>8} {'index MB':>9} {'RSS +MB':>8}"
        f" {'top-10 overlap':>15} {'rank-1 same':>12}",
    ]  # fmt: skip
    for run in report["libraries"]:
        if not run["installed"]:
            lines.append(f"{run['library']:<12} not installed")
            continue
        lines.append(
            f"{run['library']:<12} {run['version'] or '':<15} {run['build_s']:8.2f} {run['build_cpu_s']:6.2f} {run['p50_ms']:8.3f} {run['p95_ms']:8.3f}"
            f" {run['index_mb']:9.1f} {run['rss_delta_mb']:8.0f}"
            f" {run['top10_overlap']:6.3f} ({run['top10_overlap_ties']:.3f}) {run['rank1_agreement']:5.3f} ({run['rank1_agreement_ties']:.3f})"
        )  # fmt: skip
    lines += [
        "",
        "overlap and rank-1 agreement are with Tideline's own BM25 top 10; in brackets, ties counted.",
        "index MB: tideline and bm25s their arrays, tantivy its directory, sqlite-fts5 its pages.",
        "RSS +MB: this process's growth while the index was built (one process, libraries in turn).",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.memory.search_libraries", description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000, help="synthetic facts to index")
    parser.add_argument("--queries", type=int, default=200, help="queries to time")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--libraries", default=",".join(LIBRARIES[1:]),
                        help="comma-separated, beside Tideline's own (always run): " + ", ".join(LIBRARIES[1:]))  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.docs < 1 or args.queries < 1:
        parser.error("--docs and --queries must be at least 1")
    chosen = [name.strip() for name in args.libraries.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(LIBRARIES))
    if unknown:
        parser.error(f"unknown libraries: {', '.join(unknown)}")
    report = compare(args.docs, args.queries, args.seed, chosen)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
