"""Retrieval metrics, the eval report, and the seeded bootstrap (ENGINE-SPEC §8.5, Decision 11).

Relevance is binary. A case with no relevant ids is an abstention case: it is left out of every
accuracy mean, and returning anything for it counts as a violation.

Beside how well the answer ranks, the report says how much comes back with it: precision (of all the
hits returned within the first k, the share that are relevant, pooled over the scored cases) and hits
per question (how many hits a scored case gets, at most k). Recall may return fewer than k hits, so
these two are what tell a quiet, exact recall from a noisy one with the same MRR.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

DEFAULT_SEED = 0xC0FFEE
MAX_METRIC_DROP = 0.01  # Decision 11: recall@k and nDCG@k may not fall by more than this


def _distinct(ranking: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ranking))


def recall_at_k(ranking: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """|relevant ∩ distinct(top k)| / |relevant|; a repeated id counts once. NaN with no relevant ids."""
    gold = set(relevant)
    if not gold:
        return math.nan
    return len(gold & set(ranking[:k])) / len(gold)


def reciprocal_rank(ranking: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """1 / rank of the first relevant id within the first k results, else 0 (NaN with no relevant ids)."""
    gold = set(relevant)
    if not gold:
        return math.nan
    for position, memory_id in enumerate(ranking[:k]):
        if memory_id in gold:
            return 1.0 / (position + 1)
    return 0.0


def hit_at_k(ranking: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """1 when any relevant id is in the top k, else 0 (NaN with no relevant ids)."""
    gold = set(relevant)
    if not gold:
        return math.nan
    return 1.0 if gold & set(ranking[:k]) else 0.0


def ndcg_at_k(ranking: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Binary nDCG over the first k distinct ids: Σ 1/log2(i+2) at relevant positions i (0-based),
    divided by the ideal Σ_{i < min(k, |relevant|)} 1/log2(i+2). NaN with no relevant ids."""
    gold = set(relevant)
    if not gold:
        return math.nan
    top = _distinct(ranking)[:k]
    dcg = sum(1.0 / math.log2(i + 2) for i, memory_id in enumerate(top) if memory_id in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(gold))))
    return dcg / ideal if ideal > 0 else 0.0


def returned_within_k(ranking: Sequence[str], relevant: Iterable[str], k: int) -> tuple[int, int]:
    """(hits returned, relevant hits among them) over the first k distinct ids: a repeated id is one hit."""
    gold = set(relevant)
    top = _distinct(ranking)[:k]
    return len(top), sum(memory_id in gold for memory_id in top)


def pooled_precision(results: Iterable[CaseResult]) -> float:
    """Micro-averaged precision: relevant hits returned / hits returned, summed over the cases given.
    0 when none of them returned anything (their hits per question, 0, says so)."""
    returned = relevant = 0
    for result in results:
        returned += result.returned
        relevant += result.relevant_returned
    return relevant / returned if returned else 0.0


def mean_ignoring_nan(values: Iterable[float]) -> float:
    """Mean of the finite values; 0 when there are none (the report's `n_scored` tells the two apart)."""
    kept = [v for v in values if math.isfinite(v)]
    return sum(kept) / len(kept) if kept else 0.0


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile: the sorted value at 1-based rank ceil(p/100·n), at least 1; empty ⇒ 0."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True)
class CaseResult:
    """One case's outcome. Accuracy fields are NaN for an abstention case. `returned` counts the hits
    within the first k (distinct ids), `relevant_returned` the relevant ones among them."""

    case_id: str
    category: str
    abstention: bool
    abstention_violation: bool
    recall_at_k: float
    reciprocal_rank: float
    ndcg_at_k: float
    hit_at_k: float
    ranking: tuple[str, ...]
    returned: int = 0
    relevant_returned: int = 0


@dataclass(frozen=True)
class EvalReport:
    """Means over scored (non-abstention) cases, plus abstention counts and per-category means.
    `precision` is pooled over the scored cases' first-k hits; `hits_per_question` is their mean count."""

    k: int
    recall_at_k: float
    mrr: float
    ndcg_at_k: float
    hit_rate: float
    precision: float
    hits_per_question: float
    n: int
    n_scored: int
    n_abstention: int
    abstention_violations: int
    by_category: dict[str, dict[str, float]] = field(default_factory=dict)
    per_case: tuple[CaseResult, ...] = ()


def score_case(
    case_id: str, category: str | None, relevant: Sequence[str], ranking: Sequence[str], k: int
) -> CaseResult:
    """Score one ranking against its relevant ids (an empty list makes it an abstention case)."""
    gold = _distinct(relevant)
    ranking = tuple(ranking)
    returned, relevant_returned = returned_within_k(ranking, gold, k)
    return CaseResult(
        case_id=case_id,
        category=category or "uncategorized",
        abstention=not gold,
        abstention_violation=not gold and bool(ranking),
        recall_at_k=recall_at_k(ranking, gold, k),
        reciprocal_rank=reciprocal_rank(ranking, gold, k),
        ndcg_at_k=ndcg_at_k(ranking, gold, k),
        hit_at_k=hit_at_k(ranking, gold, k),
        ranking=ranking,
        returned=returned,
        relevant_returned=relevant_returned,
    )


def evaluate(cases: Sequence[Mapping], rankings: Mapping[str, Sequence[str]], k: int = 10) -> EvalReport:
    """Aggregate per-case metrics. `cases` are `{id, relevant_ids, category?}`; `rankings[id]` the ids
    a capability returned, best first. Abstention cases are excluded from the means and from
    `by_category`; each one that returned anything adds one violation. Precision and hits per question,
    overall and per category, count each scored case's first k hits."""
    results = tuple(
        score_case(c["id"], c.get("category"), c["relevant_ids"], rankings.get(c["id"], ()), k) for c in cases
    )
    scored = [r for r in results if not r.abstention]
    by_category: dict[str, dict[str, float]] = {}
    for category in dict.fromkeys(r.category for r in scored):
        group = [r for r in scored if r.category == category]
        by_category[category] = {
            "n": len(group),
            "recall_at_k": mean_ignoring_nan(r.recall_at_k for r in group),
            "mrr": mean_ignoring_nan(r.reciprocal_rank for r in group),
            "ndcg_at_k": mean_ignoring_nan(r.ndcg_at_k for r in group),
            "hit_at_k": mean_ignoring_nan(r.hit_at_k for r in group),
            "precision": pooled_precision(group),
            "hits_per_question": sum(r.returned for r in group) / len(group),
        }
    return EvalReport(
        k=k,
        recall_at_k=mean_ignoring_nan(r.recall_at_k for r in scored),
        mrr=mean_ignoring_nan(r.reciprocal_rank for r in scored),
        ndcg_at_k=mean_ignoring_nan(r.ndcg_at_k for r in scored),
        hit_rate=mean_ignoring_nan(r.hit_at_k for r in scored),
        precision=pooled_precision(scored),
        hits_per_question=sum(r.returned for r in scored) / len(scored) if scored else 0.0,
        n=len(results),
        n_scored=len(scored),
        n_abstention=len(results) - len(scored),
        abstention_violations=sum(r.abstention_violation for r in results),
        by_category=by_category,
        per_case=results,
    )


# ---------------------------------------------------------------- bootstrap

_MASK32 = np.uint64(0xFFFFFFFF)


def mulberry32(seed: int, count: int) -> np.ndarray:
    """The first `count` outputs in [0, 1) of the mulberry32 generator seeded with `seed`.

    Its state only ever advances by the constant 0x6D2B79F5, so draw j (1-based) mixes the state
    seed + j·0x6D2B79F5 (mod 2^32); that makes the whole sequence one vectorised computation. All
    arithmetic is on unsigned 32-bit values (JS `Math.imul` is multiplication mod 2^32).
    """
    steps = np.arange(1, count + 1, dtype=np.uint64)
    a = (np.uint64(seed & 0xFFFFFFFF) + steps * np.uint64(0x6D2B79F5)) & _MASK32
    t = ((a ^ (a >> np.uint64(15))) * (a | np.uint64(1))) & _MASK32
    t = ((t + (((t ^ (t >> np.uint64(7))) * (t | np.uint64(61))) & _MASK32)) & _MASK32) ^ t
    return ((t ^ (t >> np.uint64(14))) & _MASK32).astype(np.float64) / 4294967296.0


@dataclass(frozen=True)
class BootstrapCI:
    mean: float
    lo: float
    hi: float
    n: int


def bootstrap_mean_ci(
    values: Iterable[float], *, iterations: int = 1000, seed: int = DEFAULT_SEED, ci: float = 0.95
) -> BootstrapCI:
    """Percentile bootstrap of the mean, reproducible from `seed` (ENGINE-SPEC §8.5).

    Non-finite values are dropped first (none left ⇒ all zeros). Each iteration draws n indices
    `floor(u·n)` with replacement, in order, from one mulberry32 stream, and records the mean of the
    drawn values (summed left to right). With the means sorted, lo is the one at index
    floor((1−ci)/2 · iterations) and hi at floor((1 − (1−ci)/2) · iterations), clamped to the last.
    `mean` is the plain sample mean.
    """
    kept = np.array([v for v in values if math.isfinite(v)], dtype=np.float64)
    n = kept.size
    if n == 0:
        return BootstrapCI(0.0, 0.0, 0.0, 0)
    draws = np.floor(mulberry32(seed, iterations * n) * n).astype(np.int64).reshape(iterations, n)
    # cumsum adds strictly left to right, as the original's loop does; np.sum would pair terms up.
    means = np.sort(np.cumsum(kept[draws], axis=1)[:, -1] / n)
    lo = means[min(iterations - 1, math.floor(((1 - ci) / 2) * iterations))]
    hi = means[min(iterations - 1, math.floor((1 - (1 - ci) / 2) * iterations))]
    return BootstrapCI(float(np.cumsum(kept)[-1] / n), float(lo), float(hi), n)


def paired_bootstrap_ci(baseline: Sequence[float], candidate: Sequence[float], **options) -> BootstrapCI:
    """Bootstrap CI of the per-case difference `candidate − baseline` (paired: same cases, same order).

    A pair where either side is not finite (an abstention case) is dropped.
    """
    if len(baseline) != len(candidate):
        raise ValueError("paired bootstrap needs one candidate value per baseline value")
    deltas = [
        c - b for b, c in zip(baseline, candidate, strict=True) if math.isfinite(b) and math.isfinite(c)
    ]
    return bootstrap_mean_ci(deltas, **options)


def beats_eval_bar(baseline: EvalReport, candidate: EvalReport, **options) -> bool:
    """Decision 11: the 95% CI of the paired MRR delta lies above 0, and neither recall@k nor nDCG@k
    drops by more than 0.01. Both reports must cover the same cases in the same order."""
    base_rr = [r.reciprocal_rank for r in baseline.per_case]
    cand_rr = [r.reciprocal_rank for r in candidate.per_case]
    interval = paired_bootstrap_ci(base_rr, cand_rr, **options)
    return (
        interval.n > 0
        and interval.lo > 0
        and candidate.recall_at_k >= baseline.recall_at_k - MAX_METRIC_DROP
        and candidate.ndcg_at_k >= baseline.ndcg_at_k - MAX_METRIC_DROP
    )


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that a random positive outscores a random negative, ties counting one half
    (the Mann-Whitney statistic); 0.5 when either side is empty. Used to ask whether recall's best
    relevance tells answerable questions from unanswerable ones (ENGINE-SPEC §8.6, `abstention`)."""
    if len(positives) == 0 or len(negatives) == 0:
        return 0.5
    values = np.concatenate([np.asarray(positives, float), np.asarray(negatives, float)])
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.size)
    sorted_values = values[order]
    i = 0
    while i < values.size:  # ties share the mean of their 1-based ranks
        j = i
        while j < values.size and sorted_values[j] == sorted_values[i]:
            j += 1
        ranks[order[i:j]] = (i + 1 + j) / 2
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
