"""Named recall capabilities the eval harness compares over the same index (ENGINE-SPEC §8.6).

* `default` — what `Tideline.recall` serves (hybrid + graph, with Tideline's improvements);
* `hybrid` — BM25 first, HRR vector recovery (the original's `recall()`);
* `bm25` — BM25 × decay modulation (the original's `search()`);
* `vector` — HRR cosine alone;
* `graph` — hybrid extended along typed links;
* `learned` — the optional learned embedder's cosine alone (needs `pip install '.[embed]'`);
* `default+learned` — the default with the learned embedder's lane in its fusion;
* `abstention` — not a ranking: with two or more gold sets, each is asked its own questions and
  every other set's, and the report says whether recall's best relevance tells them apart (AUROC),
  how many foreign questions get nothing, and how the set's own answers rank (ENGINE-SPEC Decision 20).

The two learned capabilities use the configured embedder, or all-MiniLM-L6-v2 when none is configured
(the eval embeds its throwaway workspace itself).
"""

from __future__ import annotations

from typing import Any

from memory.engine.facts import records as R
from memory.engine.recall.candidates import candidate_mask
from memory.engine.recall.core import recall_hybrid, search
from memory.engine.recall.graph_recall import recall_with_graph
from memory.engine.recall.lanes import vector_lane
from memory.services.recall import embedding
from memory.services.recall import verbs as recall_service
from memory.services.recall.index import registry
from memory.timestamps import to_ms

CAPABILITIES = ("default", "hybrid", "bm25", "vector", "graph", "learned", "default+learned", "abstention")
LEARNED_CAPABILITIES = frozenset({"learned", "default+learned"})


def learned_embedder() -> Any:
    """The embedder the learned capabilities use: the configured one, else all-MiniLM-L6-v2."""
    return embedding.configured() or embedding.load("minilm")


def rank(capability: str, workspace, query: str, *, origin: Any, limit: int, now, embedder: Any = None) -> list[str]:
    """Memory ids the capability returns for `query`, best first (`embedder`: for the learned ones)."""
    if capability in ("default", "default+learned"):
        choice = recall_service.CONFIGURED if capability == "default" else (embedder or learned_embedder())
        hits = recall_service.recall(workspace=workspace, query=query, origin=origin, k=limit, reinforce=False,
                                     now=now, embedder=choice)  # fmt: skip
        return [hit.id for hit in hits]
    scope = R.parse_origin(origin)
    index = registry.get(workspace, scope)
    if capability == "learned":
        return _learned_only(index, embedder or learned_embedder(), query, int(to_ms(now)), scope, limit)
    cols, now_ms = registry.with_vectors(index), int(to_ms(now))
    if cols is None:
        return []
    with index.lock:
        if capability == "bm25":
            hits = search(cols, query, now_ms, scope, limit=limit)
        elif capability == "hybrid":
            hits = recall_hybrid(cols, query, now_ms, scope, limit=limit, embedder=registry.embedder)
        elif capability == "graph":
            hits = recall_with_graph(cols, index.links, query, now_ms, scope, limit=limit, embedder=registry.embedder,
                                     graph=registry.link_graph(index))  # fmt: skip
        else:
            return _vector_only(cols, query, now_ms, scope, limit)
    return [hit.memory_id for hit in hits]


def _learned_only(index, embedder, query: str, now_ms: int, scope, limit: int) -> list[str]:
    with index.lock:
        if index.cols is None:
            return []
        cols = registry.with_learned(index, index.cols, embedder.fingerprint)
        if cols is None:
            return []
        mask = candidate_mask(cols, now_ms, scope)
        rows, sims = vector_lane(cols, mask, embedder.embed_one(query), embedder.min_sim)
        return [cols.memory_ids[i] for i in rows[:limit]]


def _vector_only(cols, query: str, now_ms: int, scope, limit: int) -> list[str]:
    """HRR cosine alone, through the vector lane (one product over the stored matrix with its cached
    norms: no per-query copy of the candidates' vectors)."""
    mask = candidate_mask(cols, now_ms, scope)
    if cols.embeddings is None or not mask.any():
        return []
    rows, _ = vector_lane(cols, mask, registry.embedder.embed_one(query), registry.embedder.min_sim)
    return [cols.memory_ids[i] for i in rows[:limit]]
