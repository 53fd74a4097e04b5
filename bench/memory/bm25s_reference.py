"""BM25 alone, from the `bm25s` package, on the benchmark's corpus: the reference recall is compared with.

It runs in a child process (`reference_in_child`): indexing a million documents with `bm25s` holds
more than a gigabyte of token lists, which is the reference's memory, not Tideline's, so it must not
count in the benchmark's peak. Nothing here imports Django (the child starts a bare interpreter).
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from bench.memory.resident import peak_mb


def reference(contents: list[str], queries: list[str]) -> tuple[list[float], float] | None:
    """Milliseconds of each query (tokenise + retrieve the top 10), and this process's peak RSS in MB;
    None when `bm25s` is not installed."""
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
    return samples, peak_mb()


def reference_in_child(contents: list[str], queries: list[str]) -> tuple[list[float], float] | None:
    """`reference` in a fresh interpreter (spawned, so it inherits none of the caller's memory)."""
    # An executor, not a `Pool`: leaving its block waits for the child to exit and releases its
    # semaphores, where a pool is terminated and left one behind (a warning at the bench's exit).
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as executor:
        return executor.submit(reference, contents, queries).result()
