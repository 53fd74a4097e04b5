"""Pieces every recall lane shares: the hit type, the limit rule, ranking, the vector lane and the MMR cut.

The spec-faithful lanes (`recall.py`: `search`, `recall_hybrid`) and the default fused lane
(`fusion.py`) both build on these, so the two agree on what a hit is, how ties fall and how the
stored vectors are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.engine.recall.candidates import FactColumns
from memory.engine.recall.hrr import cosine_many

DEFAULT_LIMIT = 8


@dataclass(frozen=True)
class Hit:
    """One recalled fact: its id, its final score, the numbers the score was made from, and its row."""

    memory_id: str
    score: float
    components: dict[str, Any]
    row: int


def resolve_limit(limit: int | None) -> int | None:
    """Non-positive ⇒ the default 8; None ⇒ no cut (eval lanes that want every hit)."""
    if limit is None:
        return None
    return limit if limit > 0 else DEFAULT_LIMIT


def rank_order(rows: np.ndarray, score: np.ndarray, created_at: np.ndarray) -> np.ndarray:
    """Positions ordering rows by score desc, then createdAt desc, then the given order (stable)."""
    return np.lexsort((np.arange(len(rows)), -created_at, -score))


def embed_query(query: str, embedder: Any, given: Any) -> np.ndarray | None:
    """The query's vector, or None when there is none to use (the lane then contributes nothing).

    A vector passed in (`given`) wins; otherwise the embedder embeds the query. An embedder that
    raises, or returns something that is not a flat list or array (an async embedder's promise),
    yields None.
    """
    if given is None:
        try:
            given = embedder.embed([query])[0]
        except Exception:  # noqa: BLE001 — a broken embedder must degrade recall to BM25, never crash it
            return None
    vector = np.asarray(given, dtype=np.float64) if isinstance(given, (list, tuple, np.ndarray)) else None
    return vector if vector is not None and vector.ndim == 1 and vector.size else None


def vector_lane(cols: FactColumns, mask: np.ndarray, qvec: np.ndarray | None, min_sim: float):
    """(candidate rows with cosine ≥ min_sim ranked by cosine desc, cosine of every row or None).

    Rows without a vector of the query's length never enter the lane (their cosine reads −1). Ties
    keep column order. The product runs in the matrix's own precision (float32 for stored HRR
    vectors) over all rows at once, which is cheaper than copying out the candidate rows.
    """
    if qvec is None or cols.embeddings is None or cols.embeddings.shape[1] != qvec.size:
        return np.zeros(0, dtype=np.int64), None
    q_norm = float(np.linalg.norm(qvec))
    usable = mask & cols.embedded & (cols.embedding_norms > 0)
    if q_norm == 0.0 or not usable.any():
        return np.zeros(0, dtype=np.int64), None
    dots = (cols.embeddings @ qvec.astype(cols.embeddings.dtype)).astype(np.float64)
    sims = np.full(len(cols), -1.0)
    sims[usable] = dots[usable] / (cols.embedding_norms[usable] * q_norm)
    rows = np.flatnonzero(usable & (sims >= min_sim))
    return rows[np.argsort(-sims[rows], kind="stable")], sims


def mmr_pick(
    cols: FactColumns, rows: np.ndarray, scores: np.ndarray, limit: int | None, lam: float
) -> list[int]:
    """Positions in `rows`/`scores` to return, best first (ENGINE-SPEC §3.6 step 7).

    With λ ≥ 1 this is a stable sort by score and a cut. Otherwise each step picks the item maximising
    `λ·rel − (1−λ)·maxSim` (rel = score / max score; maxSim = highest cosine between its stored vector
    and an already-picked one, starting at 0 so dissimilarity is never a bonus); the earliest item
    wins ties.
    """
    count = rows.size if limit is None else min(limit, rows.size)
    if lam >= 1.0 or count == 0:
        return np.argsort(-scores, kind="stable")[:count].tolist()
    top = scores.max()
    rel = scores / (top if top > 0 else 1.0)
    has_vec = cols.embedded[rows] if cols.embeddings is not None else np.zeros(rows.size, bool)
    max_sim = np.zeros(rows.size)
    remaining = np.ones(rows.size, dtype=bool)
    picked: list[int] = []
    for _ in range(count):
        value = np.where(remaining, lam * rel - (1.0 - lam) * max_sim, -np.inf)
        best = int(np.argmax(value))  # argmax returns the first maximum: the earliest item wins ties
        picked.append(best)
        remaining[best] = False
        if has_vec[best]:
            sims = np.where(has_vec, cosine_many(cols.embeddings[rows[best]], cols.embeddings[rows]), 0.0)
            max_sim = np.maximum(max_sim, sims)
    return picked
