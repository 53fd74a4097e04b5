"""Recall over a column store of facts: candidate filtering, BM25 search, hybrid fusion, explain.

`recall` is the default entry point: the fused lane of `fusion.py` (stems, feedback expansion,
character n-grams). The original's lanes stay here unchanged for gold-set parity and as eval
baselines: `search` (BM25 × decay, and plain BM25) and `recall_hybrid` (what the original's
`recall()` served). ENGINE-SPEC §3.2–§3.10. The caller (the recall index) holds one `FactColumns` per workspace (see
`candidates.py`). Every query first computes a boolean candidate mask (lifecycle, validity, origin
scope) and then scores only those rows, vectorised: there is no Python loop over the facts, only
over the hits being returned.

Every hit carries `components`, the numbers its score was made from, with the rule that rebuilds the
score from them stated in `components["formula"]`:

* lexical (`search`, `explain`): `score = bm25 × modulator`, `modulator = 0.5 + 0.5·effective`, and
  `bm25` is the sum of the per-term `contribution`s listed under `terms` (explain only).
* hybrid, lexical lane: `score = bm25 × modulator × trust`, `trust = source_weight × confidence_factor`.
* hybrid, vector lane (recovered): `score = min_primary × 0.5 × position_decay × trust × modulator`,
  `position_decay = 0.9^recovery_index`.

Hybrid hits also carry `lex_rank`, `vec_rank` and `cosine` (None where a fact has no such rank or
vector), which the graph lane fuses on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.engine.recall.bm25 import Bm25Scores, term_contribution
from memory.engine.recall.candidates import (
    EVERY_ORIGIN,
    FactColumns,
    FactRow,
    candidate_mask,
    origin_mask,
    trust_factor,
)
from memory.engine.recall.fusion import FusionSettings, recall_fused
from memory.engine.recall.hrr import HrrEmbedder
from memory.engine.recall.lanes import (
    DEFAULT_LIMIT,
    Hit,
    embed_query,
    mmr_pick,
    rank_order,
    resolve_limit,
    vector_lane,
)

RECOVERY_SHARE = 0.5
RECOVERY_STEP = 0.9

LEXICAL_FORMULA = "bm25 * modulator"
PRIMARY_FORMULA = "bm25 * modulator * trust"
RECOVERED_FORMULA = "min_primary * 0.5 * position_decay * trust * modulator"  # position_decay = 0.9**i

# The default recall is the fused lane (fusion.py): stemmed BM25 with feedback expansion, fused with
# character n-grams. `recall_hybrid` and `search` stay as the original's lanes, for parity and eval.
recall = recall_fused

# Re-exported: callers import the whole recall surface from this module.
__all__ = [
    "EVERY_ORIGIN",
    "FactColumns",
    "FactRow",
    "FusionSettings",
    "Hit",
    "candidate_mask",
    "explain",
    "origin_mask",
    "recall",
    "recall_hybrid",
    "search",
    "trust_factor",
]


@dataclass(frozen=True)
class _Lexical:
    rows: np.ndarray  # ranked best first
    bm25: np.ndarray
    effective: np.ndarray
    modulator: np.ndarray
    score: np.ndarray
    scored: Bm25Scores


def _lexical(cols: FactColumns, query: str, now: int, mask: np.ndarray, modulate: bool) -> _Lexical:
    """BM25 over the candidates, modulated by `0.5 + 0.5·effective` unless `modulate` is False."""
    scored = cols.bm25.score(query, mask)
    rows = np.flatnonzero(mask & (scored.scores > 0))
    bm = scored.scores[rows]
    eff = cols.effective(rows, now) if rows.size else np.zeros(0)
    modulator = 0.5 + 0.5 * eff if modulate else np.ones(rows.size)
    score = bm * modulator
    order = rank_order(rows, score, cols.created_at[rows])
    return _Lexical(rows[order], bm[order], eff[order], modulator[order], score[order], scored)


def _matched_terms(cols: FactColumns, row: int, terms: Sequence[str]) -> list[str]:
    return [t for t, n in zip(terms, cols.bm25.term_counts(row, terms), strict=True) if n > 0]


def search(
    cols: FactColumns,
    query: str,
    now: int,
    scope: Any,
    *,
    limit: int | None = DEFAULT_LIMIT,
    modulate: bool = True,
) -> list[Hit]:
    """Lexical recall (the original's `search`): BM25 × (0.5 + 0.5·effective) over the candidates.

    Only facts sharing at least one query token are hits. Ranked by score, then newest `created_at`,
    then column order. With `modulate=False` the modulator is 1 (plain BM25, an eval baseline).
    """
    lex = _lexical(cols, query, now, candidate_mask(cols, now, scope), modulate)
    cut = resolve_limit(limit)
    hits = []
    for pos in range(lex.rows.size if cut is None else min(cut, lex.rows.size)):
        row = int(lex.rows[pos])
        components = {
            "lane": "lexical",
            "formula": LEXICAL_FORMULA,
            "bm25": float(lex.bm25[pos]),
            "matched_terms": _matched_terms(cols, row, lex.scored.terms),
            "effective": float(lex.effective[pos]),
            "modulator": float(lex.modulator[pos]),
            "lex_rank": pos + 1,
            "score": float(lex.score[pos]),
        }
        hits.append(Hit(cols.memory_ids[row], float(lex.score[pos]), components, row))
    return hits


def recall_hybrid(
    cols: FactColumns,
    query: str,
    now: int,
    scope: Any,
    *,
    limit: int | None = DEFAULT_LIMIT,
    min_sim: float | None = None,
    mmr_lambda: float = 1.0,
    embedder: Any = None,
    query_vector: Sequence[float] | None = None,
) -> list[Hit]:
    """BM25 first; the vector lane only appends facts BM25 missed (ENGINE-SPEC §3.6).

    Every BM25 hit scores `bm25 × modulator × trust`. Each fact the vector lane finds (cosine ≥ min_sim,
    default the embedder's, 0.3 for HRR) that BM25 missed is appended in cosine order i = 0, 1, … with
    `min_primary × 0.5 × 0.9^i × trust × modulator`, so it ranks below every lexical hit. The list is
    then ordered by score (stable; ties keep lexical before recovered) and cut to `limit`; with
    `mmr_lambda < 1` the cut picks greedily by `λ·score/max − (1−λ)·max cosine to the picked`.
    """
    mask = candidate_mask(cols, now, scope)
    if not mask.any():
        return []
    embedder = embedder if embedder is not None else HrrEmbedder()
    min_sim = min_sim if min_sim is not None else getattr(embedder, "min_sim", 0.3)
    lex = _lexical(cols, query, now, mask, modulate=True)
    vec_rows, sims = vector_lane(cols, mask, embed_query(query, embedder, query_vector), min_sim)
    vec_rank = np.zeros(len(cols), dtype=np.int64)  # 0 = not in the vector lane
    vec_rank[vec_rows] = np.arange(1, vec_rows.size + 1)

    # Primary: the BM25 hits re-sorted by score × trust (ties: newest, then BM25 order).
    weight, conf = trust_factor(cols, lex.rows)
    trust = weight * conf
    primary = lex.score * trust
    lex_pos = np.lexsort((np.arange(lex.rows.size), -cols.created_at[lex.rows], -primary))

    # Recovered: vector-lane facts BM25 missed, each below the weakest primary hit.
    recovered = vec_rows[~np.isin(vec_rows, lex.rows)]
    min_primary = float(primary.min()) if primary.size else 1.0
    r_weight, r_conf = trust_factor(cols, recovered)
    r_trust = r_weight * r_conf
    r_eff = cols.effective(recovered, now) if recovered.size else np.zeros(0)
    r_modulator = 0.5 + 0.5 * r_eff
    r_step = RECOVERY_STEP ** np.arange(recovered.size, dtype=np.float64)
    r_score = min_primary * RECOVERY_SHARE * r_step * r_trust * r_modulator

    rows = np.concatenate([lex.rows[lex_pos], recovered]).astype(np.int64)
    scores = np.concatenate([primary[lex_pos], r_score])
    hits = []
    for i in mmr_pick(cols, rows, scores, resolve_limit(limit), mmr_lambda):
        row, score = int(rows[i]), float(scores[i])
        parts: dict[str, Any]
        if i < lex_pos.size:
            pos = int(lex_pos[i])
            parts = {
                "lane": "lexical",
                "formula": PRIMARY_FORMULA,
                "bm25": float(lex.bm25[pos]),
                "matched_terms": _matched_terms(cols, row, lex.scored.terms),
                "effective": float(lex.effective[pos]),
                "modulator": float(lex.modulator[pos]),
                "source_weight": float(weight[pos]),
                "confidence_factor": float(conf[pos]),
                "trust": float(trust[pos]),
                "lex_rank": pos + 1,
            }
        else:
            j = i - lex_pos.size
            parts = {
                "lane": "vector",
                "formula": RECOVERED_FORMULA,
                "min_primary": min_primary,
                "recovery_index": j,
                "position_decay": float(r_step[j]),
                "effective": float(r_eff[j]),
                "modulator": float(r_modulator[j]),
                "source_weight": float(r_weight[j]),
                "confidence_factor": float(r_conf[j]),
                "trust": float(r_trust[j]),
                "lex_rank": None,
            }
        parts["vec_rank"] = int(vec_rank[row]) or None
        has_cosine = sims is not None and cols.embedded[row] and cols.embedding_norms[row] > 0
        parts["cosine"] = float(sims[row]) if has_cosine else None
        parts["score"] = score
        hits.append(Hit(cols.memory_ids[row], score, parts, row))
    return hits


def explain(
    cols: FactColumns,
    query: str,
    now: int,
    scope: Any,
    *,
    limit: int | None = DEFAULT_LIMIT,
    mode: str = "lexical",
    embedder: Any = None,
) -> list[Hit]:
    """Recall with every score component spelled out; never reinforces (ENGINE-SPEC §3.10).

    `mode="lexical"` (the original's explain) ranks exactly like `search`; `mode="hybrid"` explains
    `recall_hybrid`. Lexical-lane hits also get `terms`: per query term that matched, its count in
    the fact, document frequency and IDF over the candidates, and its `contribution`; the
    contributions, summed in query order, equal `bm25`. `mode="default"` returns the default
    `recall`'s hits, whose components already hold every lane's number and the maxima they were
    scaled by (see fusion.py).
    """
    if mode not in ("lexical", "hybrid", "default"):
        raise ValueError(f"explain mode must be 'lexical', 'hybrid' or 'default', got {mode!r}")
    if mode == "default":
        return recall(cols, query, now, scope, limit=limit, embedder=embedder)
    if mode == "lexical":
        hits = search(cols, query, now, scope, limit=limit)
    else:
        hits = recall_hybrid(cols, query, now, scope, limit=limit, embedder=embedder)
    if not hits:
        return hits
    scored = cols.bm25.score(query, candidate_mask(cols, now, scope))
    detailed = []
    for hit in hits:
        if hit.components["lane"] != "lexical":
            detailed.append(hit)
            continue
        counts = cols.bm25.term_counts(hit.row, scored.terms)
        doc_len = float(cols.bm25.doc_len[hit.row])
        terms = [
            {
                "term": st.term,
                "count": n,
                "document_frequency": st.document_frequency,
                "idf": st.idf,
                "contribution": term_contribution(st.idf, n, doc_len, scored.avg_len),
            }
            for st, n in zip(scored.stats, counts, strict=True)
            if n > 0
        ]
        extra = {
            "terms": terms,
            "document_length": doc_len,
            "average_length": scored.avg_len,
            "candidates": scored.n_candidates,
        }
        detailed.append(Hit(hit.memory_id, hit.score, {**hit.components, **extra}, hit.row))
    return detailed
