"""The default recall lane: stemmed BM25, expanded by feedback, fused with a character n-gram lane.

The original's hybrid (`recall.recall_hybrid`, kept for parity) ranks by exact-word BM25 and lets
its HRR vectors only append facts after every BM25 hit. On real conversations that misses answers
worded differently from the question. This lane keeps BM25 as the backbone and adds three things
that need no model:

1. Terms are stems (`tokenize.recall_terms`): "volunteered" meets "volunteers".
2. Feedback expansion (`expansion.py`): the first pass's best few facts lend their other words,
   weighted by a relevance model, as a damped second query.
3. A character n-gram lane (`ngrams.py`) for what stems do not join: "grandma" and
   "grandmother", typos.

How a fact's score is made, in order:

* `bm25`: BM25 of the query's stems; `ngram`: the n-gram cosine; `cosine`: the stored vector's
  cosine, only when `vector_weight` > 0 (a learned embedder; HRR adds nothing measurable here);
* first pass: `blend(bm25, ngram, cosine)`, where `blend` divides each lane by its best value over
  the candidates and mixes them with the settings' weights, the lexical lane taking the rest;
* feedback: the `feedback_docs` best first-pass facts among those sharing a query stem give the
  relevance model; `expansion` is the BM25 of its weighted terms;
* `lexical = bm25 / bm25_max + expansion_weight · expansion / expansion_max`;
* `blend = blend(lexical, ngram, cosine)`;
* `score = blend × modulator × trust`, with the original's modulator (0.5 + 0.5·effective) and
  trust (source weight × confidence factor), so importance, decay and provenance act as in the
  hybrid.

Which facts may be returned: those sharing a stem with the query or its expansion, those whose
n-gram cosine reaches `ngram_floor`, and (with a vector weight) those whose cosine reaches the
embedder's `min_sim`. A query that shares nothing with the memory returns nothing, so abstention
holds. Ranked by score, then newest `created_at`, then column order; cut to `limit`.

The score ranks; it is scaled to each query's best candidate, so it says nothing about whether the
best hit is any good. Every hit therefore also carries `relevance` (`relevance.py`): how well it
answers the query on a fixed 0–1 scale, with the words it matched and missed. `floor` drops hits
whose relevance falls below it (0 keeps every hit, as the eval lanes want).
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from memory.engine.recall import relevance as relevance_rules
from memory.engine.recall.candidates import FactColumns, candidate_mask, trust_factor
from memory.engine.recall.expansion import relevance_model
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
from memory.engine.recall.selection import select

FUSED_FORMULA = "blend * modulator * trust"
BLEND_FORMULA = (
    "(1 - ngram_weight - vector_weight) * lexical / lexical_max"
    " + ngram_weight * ngram / ngram_max + vector_weight * cosine / cosine_max"
)
LEXICAL_FORMULA = "bm25 / bm25_max + expansion_weight * expansion / expansion_max"


@dataclass(frozen=True)
class FusionSettings:
    """The fused lane's knobs. The defaults are what leave-one-conversation-out cross-validation on
    LoCoMo's development conversations chooses (`python -m bench.memory.abstention --cv`: the best
    in-domain hit@10 once the relevance floor leaves half the foreign questions empty); the
    held-out figures are in docs/BENCHMARKS.md.

    * `ngram_weight`: share of the n-gram lane in the blend;
    * `feedback_docs`, `feedback_terms`: how many first-pass facts feed the relevance model and how
      many expansion terms it keeps;
    * `expansion_weight`: how much the expansion's BM25 counts next to the query's own (both scaled
      to a best of 1);
    * `ngram_floor`: the n-gram cosine at which a fact sharing no stem may still be returned;
    * `vector_weight`: share of the stored vectors' cosine; 0 leaves the embedder unused.
    """

    ngram_weight: float = 0.15
    feedback_docs: int = 5
    feedback_terms: int = 20
    expansion_weight: float = 0.35
    ngram_floor: float = 0.3
    vector_weight: float = 0.0

    def __post_init__(self) -> None:
        if not (
            self.ngram_weight >= 0.0
            and self.vector_weight >= 0.0
            and self.ngram_weight + self.vector_weight < 1.0
        ):
            raise ValueError("ngram_weight and vector_weight must be ≥ 0 and leave the lexical lane a share")


DEFAULT_SETTINGS = FusionSettings()


def top_stable(values: np.ndarray, k: int) -> np.ndarray:
    """Positions of the `k` largest values, largest first, ties in position order: what a stable
    argsort's first `k` are, without sorting every value (a common word matches most facts)."""
    if values.size <= 4 * k:
        return np.argsort(-values, kind="stable")[:k]
    threshold = np.partition(values, values.size - k)[values.size - k]
    near = np.flatnonzero(values >= threshold)
    return near[np.argsort(-values[near], kind="stable")][:k]


def _best(values: np.ndarray) -> float:
    return float(values.max()) if values.size else 0.0


def unit_max(values: np.ndarray) -> np.ndarray:
    """`values / max(values)`, or all zeros when nothing is positive."""
    return scaled(values, _best(values))


def scaled(values: np.ndarray, top: float) -> np.ndarray:
    """`values / top`, or all zeros when `top` is not positive: `unit_max` with the maximum given,
    so a lane can be scaled at a few rows by its best over every candidate."""
    return values / top if top > 0 else np.zeros_like(values)


def blend(lexical: np.ndarray, ngram: np.ndarray, cosine: np.ndarray, settings: FusionSettings) -> np.ndarray:
    """Each lane scaled to a best of 1, mixed: lexical gets what the n-gram and vector weights leave."""
    return blend_at(lexical, ngram, cosine, (_best(lexical), _best(ngram), _best(cosine)), settings)


def blend_at(lexical, ngram, cosine, maxima: tuple[float, float, float], settings: FusionSettings) -> np.ndarray:
    """`blend` of some rows' lane values, each lane scaled by its best over all rows (`maxima`, in
    the order lexical, n-gram, cosine). Per row the same arithmetic as scaling whole lanes, so the
    values are identical; recall scores only the rows that can be returned, not every fact."""
    lexical_weight = 1.0 - settings.ngram_weight - settings.vector_weight
    mixed = lexical_weight * scaled(lexical, maxima[0]) + settings.ngram_weight * scaled(ngram, maxima[1])
    return mixed + settings.vector_weight * scaled(cosine, maxima[2]) if settings.vector_weight else mixed


@dataclass(frozen=True)
class _Lanes:
    bm25: np.ndarray
    ngram: np.ndarray
    cosine: np.ndarray
    vector_rows: np.ndarray  # rows whose cosine reached min_sim, best first
    terms: tuple[str, ...]  # the query's distinct stems
    idf: dict[str, float]  # the IDF over the candidates of each query stem some candidate holds
    n_candidates: int
    min_sim: float = 1.0  # the learned lane's cosine floor (1: no learned lane)

    @cached_property
    def maxima(self) -> tuple[float, float, float]:
        """The best BM25, n-gram and cosine over every candidate (0 where a lane found nothing)."""
        return _best(self.bm25), _best(self.ngram), _best(self.cosine)


def _lanes(cols, query, mask, settings, embedder, query_vector, min_sim) -> _Lanes:
    stems = cols.text.stems
    scored = stems.score(query, mask)
    n = len(cols)
    ngram = cols.text.ngrams.cosine(query, mask) if settings.ngram_weight > 0 else np.zeros(n)
    cosine, vector_rows, floor = np.zeros(n), np.zeros(0, dtype=np.int64), 1.0
    if settings.vector_weight > 0:
        embedder = embedder if embedder is not None else HrrEmbedder()
        floor = min_sim if min_sim is not None else getattr(embedder, "min_sim", 0.3)
        vector_rows, sims = vector_lane(cols, mask, embed_query(query, embedder, query_vector), floor)
        if sims is not None:  # None: no usable query vector (a broken or async embedder)
            cosine[vector_rows] = sims[vector_rows]
    idf = {stat.term: stat.idf for stat in scored.stats if stat.document_frequency > 0}
    return _Lanes(scored.scores, ngram, cosine, vector_rows, scored.terms, idf, scored.n_candidates, floor)


def _expansion(cols, lanes: _Lanes, mask, settings) -> tuple[np.ndarray, dict[str, float]]:
    """The relevance model of the first pass's best lexical matches, and its BM25 per fact."""
    matched = np.flatnonzero(lanes.bm25 > 0)
    if matched.size == 0 or settings.expansion_weight <= 0 or settings.feedback_docs <= 0:
        return np.zeros(len(cols)), {}
    first = blend_at(lanes.bm25[matched], lanes.ngram[matched], lanes.cosine[matched], lanes.maxima, settings)
    best = top_stable(first, settings.feedback_docs)
    stems = cols.text.stems
    terms = relevance_model(
        stems, matched[best], first[best], mask, n_terms=settings.feedback_terms, exclude=lanes.terms
    )
    if not terms:
        return np.zeros(len(cols)), {}
    return stems.score_weighted(terms, mask), terms


def recall_fused(
    cols: FactColumns,
    query: str,
    now: int,
    scope: Any,
    *,
    limit: int | None = DEFAULT_LIMIT,
    settings: FusionSettings = DEFAULT_SETTINGS,
    embedder: Any = None,
    query_vector: Sequence[float] | None = None,
    min_sim: float | None = None,
    mmr_lambda: float = 1.0,
    floor: float = 0.0,
    cut: float = 0.0,
    match_cut: float = 0.0,
) -> list[Hit]:
    """The default recall (see the module docstring for every rule): at most `limit` hits, most
    relevant first, each reaching relevance `floor` and `cut` × the best hit's relevance.

    Same candidates as every lane (active, valid at `now`, visible to `scope`). `embedder`,
    `query_vector` and `min_sim` matter only with `settings.vector_weight` > 0; `mmr_lambda` < 1
    diversifies the cut as in the hybrid.
    """
    fused = prepare(cols, query, now, scope, settings=settings, embedder=embedder, query_vector=query_vector,
                    min_sim=min_sim)  # fmt: skip
    if fused is None:
        return []
    return fused.rank(limit, floor=floor, cut=cut, match_cut=match_cut, mmr_lambda=mmr_lambda)


def prepare(cols: FactColumns, query: str, now: int, scope: Any, *, settings: FusionSettings = DEFAULT_SETTINGS,
            embedder: Any = None, query_vector: Sequence[float] | None = None,
            min_sim: float | None = None) -> FusedQuery | None:  # fmt: skip
    """Score every lane for `query` once; None when the caller sees no fact or none shares anything
    with the query. The result ranks (`rank`) and judges any other candidate row (`judge`: a fact the
    link walk reached) by the same rules."""
    mask = candidate_mask(cols, now, scope)
    if not mask.any():
        return None
    lanes = _lanes(cols, query, mask, settings, embedder, query_vector, min_sim)
    expansion, expansion_terms = _expansion(cols, lanes, mask, settings)
    # a floor of 0 still needs a shared piece
    close = lanes.ngram >= settings.ngram_floor if settings.ngram_floor > 0 else lanes.ngram > 0
    eligible = (lanes.bm25 > 0) | (expansion > 0) | close
    eligible[lanes.vector_rows] = True
    rows = np.flatnonzero(mask & eligible)
    if rows.size == 0:
        return None
    words = relevance_rules.weigh_query(query, lanes.idf, relevance_rules.unknown_idf(lanes.n_candidates),
                                        spell=lambda stem: _spelled(cols.text.stems, stem, mask))  # fmt: skip
    return FusedQuery(cols, now, mask, settings, lanes, expansion, expansion_terms, rows, words)


# How many of the best-scoring rows recall judges for relevance before ordering them by it: twice
# the hits asked for, and at least this many.
JUDGED_AT_LEAST = 20


class FusedQuery:
    """One query's lanes over one set of candidates (see `prepare`)."""

    def __init__(self, cols, now, mask, settings, lanes, expansion, expansion_terms, rows, words) -> None:
        self.cols, self.now, self.mask, self.settings = cols, now, mask, settings
        self.lanes, self.expansion, self.expansion_terms, self.words = lanes, expansion, expansion_terms, words
        self.rows = rows  # the eligible rows
        bm25_max, ngram_max, cosine_max = lanes.maxima
        self.expansion_max = float(expansion.max())
        self.lexical = self._lexical(rows)  # at the eligible rows
        self.lexical_max = float(self.lexical.max())
        self._pending: dict[str, tuple] = {}  # per judged fact: what `detail` needs
        self.maxima = {"bm25_max": bm25_max, "expansion_max": self.expansion_max, "lexical_max": self.lexical_max,
                       "ngram_max": ngram_max, "cosine_max": cosine_max}  # fmt: skip

    def _lexical(self, rows: np.ndarray) -> np.ndarray:
        lanes, weight = self.lanes, self.settings.expansion_weight
        return scaled(lanes.bm25[rows], lanes.maxima[0]) + weight * scaled(self.expansion[rows], self.expansion_max)

    def _blended(self, rows: np.ndarray, lexical: np.ndarray) -> np.ndarray:
        lanes = self.lanes
        maxima = (self.lexical_max, lanes.maxima[1], lanes.maxima[2])
        return blend_at(lexical, lanes.ngram[rows], lanes.cosine[rows], maxima, self.settings)

    def rank(self, limit: int | None, *, floor: float = 0.0, cut: float = 0.0, match_cut: float = 0.0,
             mmr_lambda: float = 1.0) -> list[Hit]:  # fmt: skip
        """At most `limit` hits reaching `floor`, most relevant first (ties: best score, newest,
        column order), each at least `cut` × the best relevance and `match_cut` × the best match
        (`selection.select`)."""
        if mmr_lambda < 1.0:
            hits = [hit for hit in self.candidates(limit, mmr_lambda) if hit.components["relevance"] >= floor]
            picked = mmr_pick(self.cols, np.array([h.row for h in hits], dtype=np.int64),
                              np.array([h.score for h in hits]), resolve_limit(limit), mmr_lambda)  # fmt: skip
            return self.detail([hits[i] for i in picked])
        chosen = select(self.candidates(limit), floor=floor, cut=cut, match_cut=match_cut, limit=resolve_limit(limit))
        return self.detail(chosen.hits)

    def candidates(self, limit: int | None, mmr_lambda: float = 1.0) -> list[Hit]:
        """The best-scoring facts, judged: best score first (ties: newest, then column order), twice
        `limit` and at least `JUDGED_AT_LEAST` of them (every one with no limit), so a query costs
        relevance for a few rows, never for every candidate. Each hit's components hold its
        relevance and score; `detail` adds every lane's numbers to the hits a caller shows."""
        cols, rows, lexical = self.cols, self.rows, self.lexical
        blended = self._blended(rows, lexical)
        cut_at = resolve_limit(limit)
        kept = _scored(cols, rows, blended, self.now, cut_at, mmr_lambda)
        order = rank_order(kept.rows, kept.score, cols.created_at[kept.rows])
        judged = order[: order.size if cut_at is None or mmr_lambda < 1.0 else max(2 * cut_at, JUDGED_AT_LEAST)]
        return [self._hit(int(kept.rows[i]), float(lexical[kept.at[i]]), float(blended[kept.at[i]]), kept, int(i))
                for i in judged]  # fmt: skip

    def judge(self, rows: Sequence[int]) -> list[Hit]:
        """Hits for any candidate rows (a fact the link walk reached), with the score and relevance
        the same rules give them; rows the caller may not see are left out."""
        wanted = np.asarray([r for r in rows if self.mask[r]], dtype=np.int64)
        if wanted.size == 0:
            return []
        lexical = self._lexical(wanted)
        blended = self._blended(wanted, lexical)
        scored = _Scored.of(self.cols, np.arange(wanted.size), wanted, blended, self.now)
        return [self._hit(int(row), float(lexical[i]), float(blended[i]), scored, i) for i, row in enumerate(wanted)]

    def _hit(self, row: int, lexical: float, blended: float, scored: _Scored, i: int) -> Hit:
        lanes, settings = self.lanes, self.settings
        present = _row_terms(self.cols.text.stems, row)
        spelling = relevance_rules.past_floor(float(lanes.ngram[row]), settings.ngram_floor)
        similarity = relevance_rules.past_floor(float(lanes.cosine[row]), lanes.min_sim)
        match = relevance_rules.match(self.words, present, spelling, similarity)
        score = float(scored.score[i])
        components = {**match.as_components(float(scored.trust[i])), "score": score}
        # How strongly the fact matches (selection.py): the lanes' blend at the fact's trust (an untrusted
        # page worded like the question never sets the bar for the owner's facts), before decay; or its
        # relevance when higher (a fact holding the question's words in another form matches that well).
        components["match"] = round(max(float(blended) * float(scored.trust[i]), components["relevance"]), 6)
        self._pending[self.cols.memory_ids[row]] = (
            row, present, lexical, blended, float(scored.effective[i]), float(scored.modulator[i]),
            float(scored.weight[i]), float(scored.conf[i]), float(scored.trust[i]),
        )  # fmt: skip
        return Hit(self.cols.memory_ids[row], score, components, row)

    def detail(self, hits: Sequence[Hit]) -> list[Hit]:
        """Add every lane's numbers to these hits' components, in place (what `explain` shows; the
        ranking needs only relevance and score, so a recall details only the hits it returns)."""
        todo = [hit for hit in hits if hit.memory_id in self._pending and "lane" not in hit.components]
        if not todo:
            return list(hits)
        lanes, settings = self.lanes, self.settings
        lex_ranks = _ranks_of(lanes.bm25, [self._pending[hit.memory_id][0] for hit in todo])  # one pass for all
        vec_rank = {int(row): position + 1 for position, row in enumerate(lanes.vector_rows)}
        for hit, lex_rank in zip(todo, lex_ranks, strict=True):
            row, present, lexical, blended, effective, modulator, weight, conf, trust = self._pending[hit.memory_id]
            lane_numbers = {
                "lane": "fused",
                "formula": FUSED_FORMULA,
                "blend_formula": BLEND_FORMULA,
                "lexical_formula": LEXICAL_FORMULA,
                "bm25": float(lanes.bm25[row]),
                "matched_terms": [t for t in lanes.terms if t in present],
                "expansion": float(self.expansion[row]),
                "expansion_terms": [t for t in self.expansion_terms if t in present],
                "expansion_weight": settings.expansion_weight,
                "lexical": lexical,
                "ngram": float(lanes.ngram[row]),
                "ngram_weight": settings.ngram_weight,
                "cosine": float(lanes.cosine[row]) if settings.vector_weight > 0 else None,
                "vector_weight": settings.vector_weight,
                **self.maxima,
                "blend": blended,
                "effective": effective,
                "modulator": modulator,
                "source_weight": weight,
                "confidence_factor": conf,
                "trust": trust,
                "lex_rank": lex_rank,
                "vec_rank": vec_rank.get(row),
            }
            rest = dict(hit.components)
            hit.components.clear()
            hit.components.update({**lane_numbers, **rest})
        return list(hits)


def _spelled(stems, unknown: str, mask) -> tuple[str, float] | None:
    """The known stem one edit from `unknown` (a typo), else of its word family ("allergy" where the
    memory says "allergic"), that most candidates hold, and its IDF; None if none."""
    vocabulary = stems.vocabulary
    columns = sorted({vocabulary[w] for w in relevance_rules.one_edit(unknown) if w in vocabulary})
    if not columns:
        columns = sorted(vocabulary[w] for w in _family(stems, unknown))
    if not columns:
        return None
    df = stems.document_frequency(np.asarray(columns, dtype=np.int64), mask)
    best = int(np.argmax(df))
    if df[best] == 0:
        return None
    idf = stems.idf(np.asarray([columns[best]], dtype=np.int64), mask)
    return stems.term_names()[columns[best]], float(idf[0])


_SORTED_TERMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # index → (vocabulary size, sorted terms)


def _family(stems, word: str) -> list[str]:
    """The index's stems of `word`'s family (`relevance.same_family`). Every member starts with the
    same first `FAMILY_MIN` letters, so one range of the sorted vocabulary holds them all."""
    if len(word) < relevance_rules.FAMILY_MIN:
        return []
    cached = _SORTED_TERMS.get(stems)
    if cached is None or cached[0] != len(stems.vocabulary):
        cached = _SORTED_TERMS[stems] = (len(stems.vocabulary), sorted(stems.vocabulary))
    terms, prefix = cached[1], word[: relevance_rules.FAMILY_MIN]
    found, at = [], bisect.bisect_left(terms, prefix)
    while at < len(terms) and terms[at].startswith(prefix):
        if relevance_rules.same_family(word, terms[at]):
            found.append(terms[at])
        at += 1
    return found


def _row_terms(stems, row: int) -> set[str]:
    """The stems a fact holds (one sparse row read, not a lookup per term)."""
    names = stems.term_names()
    return {names[col] for col in stems.document_columns(row)}


@dataclass(frozen=True)
class _Scored:
    """The rows that can still be returned (positions `at` in the eligible rows), with their score
    and the parts it was made from."""

    at: np.ndarray
    rows: np.ndarray
    score: np.ndarray
    effective: np.ndarray
    modulator: np.ndarray
    weight: np.ndarray
    conf: np.ndarray
    trust: np.ndarray

    @classmethod
    def of(cls, cols: FactColumns, at: np.ndarray, rows: np.ndarray, blended: np.ndarray, now: int) -> _Scored:
        effective = cols.effective(rows, now)
        modulator = 0.5 + 0.5 * effective
        weight, conf = trust_factor(cols, rows)
        trust = weight * conf
        return cls(at, rows, blended * modulator * trust, effective, modulator, weight, conf, trust)

    def select(self, keep: np.ndarray) -> _Scored:
        return _Scored(*(getattr(self, name)[keep] for name in self.__dataclass_fields__))


FIRST_BATCH = 8  # rows scored first, in multiples of the rows kept


def _scored(cols: FactColumns, rows: np.ndarray, blended: np.ndarray, now: int, limit: int | None,
            mmr_lambda: float) -> _Scored:  # fmt: skip
    """The eligible rows that can still reach the top `limit`, scored; all of them when nothing is cut.

    Only the best few can be returned, so the rows kept are those scoring at least the
    `max(4·limit, 64)`-th best score (ties at that edge kept), and the exact ranking rules then run
    on that handful. A common word makes most facts eligible, and decay and trust for every one
    of them cost more than the rest of the query. So:

    1. the rows with the best blend are scored first, which gives an edge score;
    2. neither decay nor trust can lift a score above `blend × the best source weight`, so only
       rows whose blend reaches the edge by that measure are looked at again;
    3. of those, only rows whose `_score_ceiling` reaches the edge are scored too.

    A row left out scores below the first edge, which is at most the true edge; so the rows kept
    are exactly those a full pass would keep.
    """
    keep = None if limit is None or mmr_lambda < 1.0 else max(4 * limit, 64)
    if keep is None or rows.size <= FIRST_BATCH * keep:
        scored = _Scored.of(cols, np.arange(rows.size), rows, blended, now)
        return scored if keep is None else scored.select(_at_least_kth(scored.score, keep))
    best = FIRST_BATCH * keep
    first = np.partition(blended, rows.size - best)[rows.size - best] <= blended
    at = np.flatnonzero(first)
    scored = _Scored.of(cols, at, rows[at], blended[at], now)
    edge = float(scored.score[_at_least_kth(scored.score, keep)].min())
    top_weight = float(cols.source_weight.max()) if len(cols) else 1.0
    rest = np.flatnonzero(~first & (blended * (top_weight * CEILING_SLACK) >= edge))
    if rest.size:
        rest = rest[_score_ceiling(cols, rows[rest], blended[rest]) >= edge]
    if rest.size:
        at = np.sort(np.concatenate((at, rest)))
        scored = _Scored.of(cols, at, rows[at], blended[at], now)
    return scored.select(_at_least_kth(scored.score, keep))


def _at_least_kth(values: np.ndarray, k: int) -> np.ndarray:
    """Positions of the values at least the `k`-th largest (ties with it kept), in position order."""
    if values.size <= k:
        return np.arange(values.size)
    edge = np.partition(values, values.size - k)[values.size - k]
    return np.flatnonzero(values >= edge)


CEILING_SLACK = 1.0 + 1e-9  # far above the rounding of a dozen float operations (~1e-15)


def _score_ceiling(cols: FactColumns, rows: np.ndarray, blended: np.ndarray) -> np.ndarray:
    """An upper bound of each row's score, `blend × modulator × trust`, that needs no decay.

    Decay only lowers the effective score, so it is at most `importance × (1 + 0.1·ln(1 + uses))`,
    itself at most `importance × (1 + 0.1·uses)` (ln(1 + x) ≤ x), and at most 1; a permanent fact's
    is 1. The confidence factor is at most 1, so trust is at most the source weight. A decay rate
    below −1 (never written, but not excluded by the columns) would make decay raise a score, so
    such a row gets the loosest ceiling. The slack keeps rounding from ever putting the ceiling a
    hair under the exactly computed score.
    """
    importance = cols.importance[rows]
    effective = np.minimum(1.0, importance * (1.0 + 0.1 * cols.access_count[rows]))
    loose = cols.permanent[rows] | ~(cols.decay_rate[rows] >= -1.0) | ~(importance >= 0.0)
    effective[loose] = 1.0
    return blended * cols.source_weight[rows] * (0.5 + 0.5 * effective) * CEILING_SLACK


def _ranks_of(values: np.ndarray, rows: list[int]) -> list[int | None]:
    """1-based rank of each of `rows` by value desc, ties in row order (as `_ranks` would give);
    None for a value ≤ 0. One pass over `values` for all of them, then only the rows that could
    rank above one (at least the smallest positive value asked about)."""
    asked = [float(values[row]) for row in rows]
    positive = [value for value in asked if value > 0]
    if not positive:
        return [None] * len(rows)
    above = np.flatnonzero(values >= min(positive))
    near = values[above]
    return [int(np.count_nonzero(near > value) + np.count_nonzero((near == value) & (above < row)) + 1)
            if value > 0 else None for row, value in zip(rows, asked, strict=True)]  # fmt: skip


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based rank of every positive value by value desc (ties in row order); 0 for the rest."""
    ranks = np.zeros(values.size, dtype=np.int64)
    positive = np.flatnonzero(values > 0)
    ranks[positive[np.argsort(-values[positive], kind="stable")]] = np.arange(1, positive.size + 1)
    return ranks
