"""BM25 from tantivy (its official Python bindings), fed Tideline's own analysis: the second reference
`tideline bench` compares recall with, and one of the libraries `bench.memory.search_libraries` measures.

Tideline analyses the text (`recall_terms`: tokens, stopwords, clitics, stems), so tantivy ranks the
same terms Tideline's own BM25 does. Each document is its terms joined by spaces in a field split on
whitespace only (tantivy's built-in `whitespace` tokenizer: no lowercasing or stemming of its own, no
length cap); a query is one term query per distinct term, all optional (OR), scored by tantivy's
BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5) / (n + 0.5)), as Tideline's). The index keeps
term frequencies but no positions, and a fast field holds each document's number.

Like the bm25s reference, it can run in a spawned child process (`reference_in_child`), so its
memory (tantivy's heap and mapped index files) stays out of the benchmark's peak. Nothing here
imports Django.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from bench.memory.resident import peak_mb
from memory.engine.recall.bm25 import query_terms
from memory.engine.recall.tokenize import recall_terms

FIELD = "terms"
WRITER_HEAP_BYTES = 256 * 2**20


def installed() -> bool:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return False
    return True


class TantivyBm25:
    """A tantivy index over documents given as term lists, in a temporary directory (removed by `close`).

    Built with one indexing thread, as the other libraries measured build on one core, and merged
    to what tantivy's merge policy leaves before the first search.
    """

    def __init__(self, documents: Sequence[Sequence[str]], threads: int = 1) -> None:
        import tantivy

        self._tantivy = tantivy
        builder = tantivy.SchemaBuilder()
        builder.add_text_field(FIELD, tokenizer_name="whitespace", index_option="freq")
        builder.add_unsigned_field("row", fast=True)
        self.schema = builder.build()
        self.path = tempfile.mkdtemp(prefix="tideline-tantivy-")
        self.index = tantivy.Index(self.schema, path=self.path)
        writer = self.index.writer(WRITER_HEAP_BYTES, threads)
        for row, terms in enumerate(documents):
            doc = tantivy.Document()
            doc.add_unsigned("row", row)
            doc.add_text(FIELD, " ".join(terms))
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def top(self, terms: Sequence[str], k: int = 10) -> list[int]:
        """The numbers of the `k` best documents for the query terms (OR), best first."""
        tantivy = self._tantivy
        distinct = query_terms(terms)
        if not distinct:
            return []
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, FIELD, term)) for term in distinct]
        )
        hits = self.searcher.search(query, k, count=False).hits
        return self.searcher.fast_field_values("row", [address for _, address in hits]) if hits else []

    @property
    def size_bytes(self) -> int:
        """The index directory's size on disk."""
        return sum(entry.stat().st_size for entry in os.scandir(self.path) if entry.is_file())

    def close(self) -> None:
        self.searcher = self.index = None
        shutil.rmtree(self.path, ignore_errors=True)


def reference(contents: list[str], queries: list[str]) -> tuple[list[float], float, float] | None:
    """Milliseconds of each query (Tideline's analysis of the query + tantivy's top 10), this
    process's peak RSS in MB, and the build's seconds (Tideline's analysis of every content, then
    tantivy's indexing: from texts to a searchable index); None when `tantivy` is not installed."""
    if not installed():
        return None
    started = time.perf_counter()
    index = TantivyBm25([recall_terms(content) for content in contents])
    build_s = time.perf_counter() - started
    try:
        samples = []
        for query in queries:
            t0 = time.perf_counter()
            index.top(recall_terms(query), k=min(10, len(contents)))
            samples.append((time.perf_counter() - t0) * 1000)
    finally:
        index.close()
    return samples, peak_mb(), build_s


def reference_in_child(contents: list[str], queries: list[str]) -> tuple[list[float], float, float] | None:
    """`reference` in a fresh interpreter (spawned, so it inherits none of the caller's memory)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as executor:
        return executor.submit(reference, contents, queries).result()
