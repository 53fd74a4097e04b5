"""The learned embedder's part in contradiction detection, when one is configured.

The word rules (`contradiction_rules`) decide alone without an embedder, and this module never runs
then. With one, each fact's stored sentence vector adds three things:

* candidates: the nearest facts of the same origin by cosine (top `neighbours` per fact, at least
  `neighbour_cosine`) are judged too, even when the word blocking did not pair them — a pair whose
  shared words are all common words is invisible to the Jaccard join;
* a second opinion on polarity: two facts of opposite polarity that share a word but differ in more
  than the negation ("I'm a Python developer" / "I've never written Python") are too loose for the
  rules; when the embedder puts them on one topic (cosine ≥ `negation_cosine`) they are a candidate,
  ranked below every rule verdict;
* ranking: a rule verdict's confidence is blended with the pair's cosine (same topic, divergent value
  is the stronger case).

Pure: vectors come in as numpy arrays keyed by fact id; the caller reads them from storage. The
thresholds were chosen by cross-validation on the labelled pairs (`bench.governance.contradictions
--learned`, docs/BENCHMARKS.md).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from governance.engine.contradiction_rules import (
    Candidate,
    ClaimRecord,
    Detection,
    _candidate_pairs,
    _may_conflict,
    _Parsed,
    _score,
    _topic,
    _words,
    parse,
    prescreen,
)


@dataclass(frozen=True)
class LearnedSettings:
    """How the embedder's cosine is used. Defaults: see the module docstring and docs/BENCHMARKS.md."""

    neighbours: int = 10  # nearest facts per fact considered as extra candidates
    neighbour_cosine: float = 0.63  # ... only when at least this close (95% of labelled contradictions are)
    queries: int = 2_000  # the newest facts of an origin whose neighbours are searched (each against all)
    negation_cosine: float = 0.5  # opposite polarity on one topic: a candidate at this cosine
    weight: float = 0.1  # share of the cosine in a rule verdict's ranking score
    budget: int = 4_000_000  # similarity entries held at once while searching (16 MB in float32)


DEFAULT = LearnedSettings()
_CONTRAST = re.compile(r",\s*(?:but\s+|and\s+)?not\b", re.I)  # "X, not Y": Y is denied, X asserted


def unit_rows(vectors: Iterable[np.ndarray]) -> np.ndarray:
    """The vectors as float32 rows of unit length (a zero vector stays zero: cosine 0 with anything)."""
    matrix = np.asarray(np.stack(list(vectors)), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def nearest_pairs(matrix: np.ndarray, *, neighbours: int, threshold: float, queries: np.ndarray | None = None,
                  budget: int = DEFAULT.budget) -> np.ndarray:  # fmt: skip
    """Pairs (i < j, one per row) where j is among i's `neighbours` nearest rows with cosine ≥ threshold.

    `matrix` holds unit rows. Only the rows in `queries` (default: all) search, each against every
    row, a chunk of rows at a time so at most `budget` similarities exist at once; what is kept is at
    most `neighbours` pairs per query row, never the all-pairs matrix."""
    n = matrix.shape[0]
    rows = np.arange(n) if queries is None else np.asarray(queries, dtype=np.int64)
    if n < 2 or neighbours < 1 or rows.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    keep = min(neighbours, n - 1)
    step = max(1, budget // n)
    found = []
    for start in range(0, rows.size, step):
        chunk = rows[start : start + step]
        sims = matrix[chunk] @ matrix.T
        sims[np.arange(chunk.size), chunk] = -np.inf  # a fact is not its own neighbour
        if keep < n - 1:
            top = np.argpartition(-sims, keep - 1, axis=1)[:, :keep]
        else:
            top = np.broadcast_to(np.arange(n), (chunk.size, n))
        values = np.take_along_axis(sims, top, axis=1)
        hit_rows, hit_cols = np.nonzero(values >= threshold)
        left, right = chunk[hit_rows], top[hit_rows, hit_cols]
        found.append(np.stack([np.minimum(left, right), np.maximum(left, right)], axis=1))
    pairs = np.concatenate(found)
    return np.unique(pairs, axis=0) if pairs.size else pairs.reshape(0, 2)


def ranking_score(confidence: float, cosine: float, weight: float) -> float:
    """A rule verdict's confidence blended with the pair's cosine: one topic, one diverging slot ranks first."""
    return round((1 - weight) * confidence + weight * max(cosine, 0.0), 3)


def topic_negation(a: _Parsed, b: _Parsed, cosine: float, threshold: float,
                   texts: tuple[str, str] = ("", "")) -> tuple[float, str] | None:  # fmt: skip
    """Opposite polarity, a shared word and one topic by the embedder: (confidence, reason), or None.

    `texts` are the two facts as written: a contrast ("spelled Ines, not Inez") negates the
    alternative, not the fact, and is no denial. Confidence stays below every rule verdict (≤ 0.5):
    on the labelled pairs this call is right about two times in three (6 of 9 pairs at the shipped
    bar), the rules 74 times in 75."""
    if a.negated == b.negated or cosine < threshold or not a.bag & b.bag:
        return None
    positive, negative = (b, a) if a.negated else (a, b)
    if _CONTRAST.search(texts[1] if negative is b else texts[0]):
        return None
    shown = f"'{_words(positive)}' vs '{_words(negative)}' (negated)"
    reason = f"same subject {_topic(a, b)}; {shown}; the learned embedder puts both on one topic (cosine {cosine:.2f})"
    return round(0.3 + 0.2 * cosine, 3), reason


def find_candidates_learned(records: Iterable[ClaimRecord], vectors: Mapping[str, np.ndarray], *,
                            settings: LearnedSettings = DEFAULT, limit: int | None = None) -> Detection:  # fmt: skip
    """`contradiction_rules.find_candidates` plus the embedder's candidates, verdicts and ranking.

    Facts without a vector in `vectors` take part exactly as in the model-free detector."""
    by_origin: dict[str, list[ClaimRecord]] = defaultdict(list)
    for record in records:
        by_origin[record.origin_key].append(record)
    found: list[Candidate] = []
    scored = 0
    for group in by_origin.values():
        parsed = [parse(record.content) for record in group]
        pairs = _candidate_pairs(group, parsed)
        held = [k for k, record in enumerate(group) if record.id in vectors]
        row_of = {k: row for row, k in enumerate(held)}
        matrix = unit_rows(vectors[group[k].id] for k in held) if held else np.empty((0, 0), np.float32)
        if len(held) >= 2:
            by_age = sorted(range(len(held)), key=lambda row: group[held[row]].created_ms)
            newest = np.array(
                by_age[-settings.queries :]
            )  # a nightly pass looks for what the new facts contradict
            near = nearest_pairs(matrix, neighbours=settings.neighbours, threshold=settings.neighbour_cosine,
                                 queries=newest, budget=settings.budget)  # fmt: skip
            pairs.update((held[i], held[j]) for i, j in near.tolist())
        scored += len(pairs)
        for i, j in prescreen(pairs, group, parsed):  # lets every pair of opposite polarity through
            a, b = parsed[i], parsed[j]
            key = group[i].subject_key
            rules = bool(key) and key == group[j].subject_key or _may_conflict(a, b)
            if not rules and a.negated == b.negated:
                continue  # neither the rules nor `topic_negation` can call this pair
            cosine = float(matrix[row_of[i]] @ matrix[row_of[j]]) if i in row_of and j in row_of else None
            candidate = _score(group[i], group[j], a, b) if rules else None
            if candidate is not None and cosine is not None:
                score = ranking_score(candidate.confidence, cosine, settings.weight)
                candidate = replace(candidate, confidence=score, cosine=round(cosine, 4))
            elif candidate is None and cosine is not None:
                candidate = _topic_candidate(group[i], group[j], a, b, cosine, settings.negation_cosine)
            if candidate is not None:
                found.append(candidate)
    found.sort(key=lambda c: (-c.confidence, c.a, c.b))
    return Detection(found if limit is None else found[:limit], scored)


def _topic_candidate(x: ClaimRecord, y: ClaimRecord, px: _Parsed, py: _Parsed, cosine: float,
                     threshold: float) -> Candidate | None:  # fmt: skip
    if (x.created_ms, x.id) > (y.created_ms, y.id):
        x, y, px, py = y, x, py, px
    if x.content.strip().lower() == y.content.strip().lower():
        return None
    called = topic_negation(px, py, cosine, threshold, (x.content, y.content))
    if called is None:
        return None
    confidence, reason = called
    mismatch = x.trusted != y.trusted
    if mismatch:
        reason += (
            f"; untrusted source disagrees with a trusted one ({(y if x.trusted else x).id} is untrusted)"
        )
    return Candidate(x.id, y.id, "negation", confidence, reason, mismatch, round(cosine, 4))
