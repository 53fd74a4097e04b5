"""The settings search behind a recall-miss proposal, cross-validated inside the gold set.

A workspace's gold set is small (tens to hundreds of cases), and a search over recall settings that
keeps whatever scores best on those cases fits them: on real conversations, settings chosen that way
do no better on the conversation's other questions than the ones shipped. So the search is judged
the way the shipped constants were chosen, by cases it did not see:

1. every candidate is scored case by case: the settings in force and their one-knob neighbours
   (each recall knob a step either way, and its default), each with every match cut of
   `CUT_OPTIONS` (the cut is applied to the ranked list, so trying a cut costs no recall);
2. the answerable cases are split into `FOLDS` folds; for each fold, the candidate that scores best
   on the *other* folds (mean reciprocal rank at k, never returning more to a question that should
   get nothing) is scored on the fold itself, against the settings in force;
3. those held-out differences, one per case, give the expected gain with its paired bootstrap 95%
   interval (ENGINE-SPEC §8.5). Only when the whole interval lies above 0 is anything proposed: the
   candidate best on all the cases. Otherwise the answer is "nothing to propose", with the reason.

Steps 2–3 run first over the cut and the floor alone (what recall keeps of a ranking it does not
change), then over every knob, which is taken only when choosing among all of them beats choosing
the cut and floor alone on held-out folds (`_staged`).

Pure: the caller ranks (one recall per ranking candidate and case, with no cut) and hands over each
case's ranked (id, relevance, match strength) triples: every candidate reaching the floor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from governance.engine.proposals import ANSWERS_FIRST, Bar
from memory.engine import tuning as T
from memory.engine.recall.metrics import BootstrapCI, paired_bootstrap_ci

K = 10
FOLDS = 5
MIN_CASES = 10  # answerable cases the search needs before it can check anything on cases it did not see
CUT_OPTIONS = (0.0, 0.3, 0.5, 0.6, 0.65, 0.7, 0.725, 0.75, 0.8, 0.85, 0.9)
# One step either way for each knob that changes what recall ranks. `match_cut` is not here: every
# candidate is tried with each of `CUT_OPTIONS`; `relevance_cut` stays as in force.
STEPS: dict[str, float] = {
    "ngram_weight": 0.1,
    "expansion_weight": 0.15,
    "feedback_docs": 2,
    "feedback_terms": 10,
    "ngram_floor": 0.1,
    "graph_weight": 0.5,
    "hop_decay": 0.2,
    "learned_weight": 0.1,
}
FLOOR_FACTORS = (0.0, 0.5, 2.0)  # the relevance floor is scaled, not stepped: its scale is small


Ranked = Sequence[tuple[str, float, float]]  # one case's candidates under one ranking: (memory id, relevance,
#                                              match strength), most relevant first, all reaching the floor


def ranking_candidates(current: T.Tuning, *, learned: bool = False) -> list[T.Tuning]:
    """The settings in force first, then its one-knob neighbours (a step either way and the knob's
    default; the floor halved, doubled, at 0 and at its default), each within the knob's range.
    The cuts stay as in force: `CUT_OPTIONS` are tried on each ranking as the match cut."""
    out = [current]
    seen = {current}

    def add(name: str, value: float) -> None:
        knob = T.KNOB[name]
        value = int(round(value)) if knob.integer else round(float(value), 4)
        if value == getattr(current, name) or not knob.low <= value <= knob.high:
            return
        try:
            tuning = current.changed(**{name: value})
        except T.TuningError:
            return
        if tuning not in seen:
            seen.add(tuning)
            out.append(tuning)

    for name, step in STEPS.items():
        if name == "learned_weight" and not learned:
            continue
        now = getattr(current, name)
        for value in (now - step, now + step, getattr(T.DEFAULT, name)):
            add(name, value)
    floor = current.relevance_floor
    for value in (*(floor * f for f in FLOOR_FACTORS), T.DEFAULT.relevance_floor):
        add("relevance_floor", value)
    return out


def cut_options(current: T.Tuning, *, learned: bool = False) -> tuple[float, ...]:
    return tuple(sorted({*CUT_OPTIONS, current.match_cut_for(learned=learned), T.DEFAULT.match_cut_for(learned=learned)}))


@dataclass(frozen=True)
class Case:
    id: str
    relevant: frozenset[str]  # empty: nothing should come back (an abstention case)


@dataclass(frozen=True)
class Table:
    """Every case under every candidate (a ranking tuning with a cut). Row per case, column per candidate."""

    cases: tuple[Case, ...]
    candidates: tuple[T.Tuning, ...]  # the cut included
    rr: np.ndarray  # reciprocal rank of the first relevant hit within k (0: none)
    returned: np.ndarray  # hits returned
    good: np.ndarray  # relevant hits returned
    base: int = 0  # the column of the settings in force

    @property
    def answerable(self) -> np.ndarray:
        return np.array([bool(c.relevant) for c in self.cases], dtype=bool)

    def value(self, asks: Bar) -> np.ndarray:
        """Each case's value under each candidate as the workspace's bar measures it (reciprocal rank,
        less its noise weight per fact returned that does not answer)."""
        return asks.value(self.rr, self.returned, self.good) if asks.trades_noise else self.rr


def with_cut(ranked: Ranked, match_cut: float, k: int = K, relevance_cut: float = 0.0) -> list[str]:
    """What recall returns from a list ranked with no cut: the hits reaching `relevance_cut` × the
    best relevance and `match_cut` × the best match among those, at most k
    (`memory.engine.recall.selection.select`, the floor already applied)."""
    if not ranked:
        return []
    bar = relevance_cut * ranked[0][1]
    reaching = [item for item in ranked if item[1] >= bar]
    match_bar = match_cut * max(match for _, _, match in reaching)
    return [mid for mid, _, match in reaching if match >= match_bar][:k]


def build_table(cases: Sequence[Case], rankings: Sequence[Mapping[str, Ranked]], tunings: Sequence[T.Tuning],
                *, cuts: Sequence[float] | None = None, k: int = K, learned: bool = False) -> Table:  # fmt: skip
    """Score every case under every (ranking tuning, match cut); `rankings[i][case.id]` is the case's
    list under `tunings[i]`, ranked with no cut. The first tuning is the settings in force. `learned`:
    ranked with a learned embedder, whose match cut is `learned_match_cut`."""
    knob = tunings[0].cut_knob(learned=learned)
    cuts = (tuple(sorted({*cuts, tunings[0].match_cut_for(learned=learned)})) if cuts is not None
            else cut_options(tunings[0], learned=learned))  # fmt: skip
    columns: list[T.Tuning] = []
    rr, returned, good = [], [], []
    for tuning, ranking in zip(tunings, rankings, strict=True):
        for cut in cuts:
            columns.append(tuning if cut == tuning.match_cut_for(learned=learned) else tuning.changed(**{knob: cut}))
            col_rr, col_ret, col_good = [], [], []
            for case in cases:
                kept = with_cut(ranking.get(case.id, ()), cut, k, tuning.relevance_cut)
                first = next((i for i, mid in enumerate(kept) if mid in case.relevant), None)
                col_rr.append(0.0 if first is None else 1.0 / (first + 1))
                col_ret.append(len(kept))
                col_good.append(sum(mid in case.relevant for mid in kept))
            rr.append(col_rr)
            returned.append(col_ret)
            good.append(col_good)
    base = columns.index(tunings[0])
    return Table(tuple(cases), tuple(columns), np.array(rr, dtype=float).T.reshape(len(cases), len(columns)),
                 np.array(returned, dtype=float).T.reshape(len(cases), len(columns)),
                 np.array(good, dtype=float).T.reshape(len(cases), len(columns)), base)  # fmt: skip


def _changes(table: Table, column: int) -> int:
    return len(T.diff(table.candidates[table.base], table.candidates[column]))


def _distance(table: Table, column: int) -> float:
    """How far a candidate moves from the settings in force: each changed knob's move as a share of its range."""
    moved = T.diff(table.candidates[table.base], table.candidates[column])
    return sum(abs(c["after"] - c["before"]) / ((T.KNOB[c["name"]].high - T.KNOB[c["name"]].low) or 1.0) for c in moved)


def choose(table: Table, rows: np.ndarray, asks: Bar = ANSWERS_FIRST, among: np.ndarray | None = None) -> int:
    """The candidate to take on these cases. Among those that return no more to the abstention cases
    than the settings in force: find the highest mean reciprocal rank over the answerable cases, then
    take the simplest candidate within one standard error of it (the paired error of the per-case
    differences; the one-standard-error rule): the settings in force first, then the fewest knobs
    changed, then the higher mean, then (an exact tie: a lower cut that returns the same answers
    first) the smallest move. A change must beat the settings in force by more than its noise.
    (Preferring the smallest move before the higher mean keeps more precision but, on LoCoMo's
    development conversations, less of the gain on unseen questions: docs/BENCHMARKS.md.)

    With a bar that trades noise (`Bar.noise_weight`), each case's value stands for its reciprocal
    rank, and a candidate may find the answer within k at most `Bar.hit_allowance` less often.
    `among`: the columns it may choose from (all by default; the settings in force always)."""
    answer = rows & table.answerable
    abstain = rows & ~table.answerable
    if not answer.any():
        return table.base
    rr = table.value(asks)[answer]
    means = rr.mean(axis=0)
    violations = (table.returned[abstain] > 0).sum(axis=0) if abstain.any() else np.zeros(len(table.candidates))
    kept = violations <= violations[table.base]
    if among is not None:
        kept &= among
        kept[table.base] = True
    if asks.trades_noise:
        hits = (table.rr[answer] > 0).mean(axis=0)
        kept &= hits >= hits[table.base] - asks.hit_allowance - 1e-12
    allowed = np.flatnonzero(kept)
    best = int(max(allowed, key=lambda c: (round(float(means[c]), 9), c == table.base, -_changes(table, c), -c)))
    n = rr.shape[0]
    differences = rr[:, [best]] - rr[:, allowed]
    errors = differences.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(len(allowed))
    close = [int(c) for c, error in zip(allowed, errors, strict=True) if means[c] >= means[best] - error - 1e-12]
    return min(close, key=lambda c: (c != table.base, _changes(table, c), -round(float(means[c]), 9),
                                     _distance(table, c), c))  # fmt: skip


@dataclass(frozen=True)
class CrossValidated:
    """The search judged on cases it did not see: per answerable case, the held-out reciprocal rank of
    the candidate its training folds chose, against the settings in force."""

    gain: BootstrapCI  # mean, 95% interval and number of cases of (held-out chosen − in force)
    folds: int
    chosen: tuple[int, ...]  # the column each fold chose
    base_mrr: float
    held_out_mrr: float

    @property
    def shows_gain(self) -> bool:
        return self.gain.n > 0 and self.gain.lo > 0


def fold_of(case_ids: Sequence[str], folds: int = FOLDS) -> np.ndarray:
    """Each case's fold, by the stable hash of its id (a case keeps its fold as others are added)."""
    out = np.zeros(len(case_ids), dtype=int)
    for i, case_id in enumerate(case_ids):
        h = 2166136261
        for byte in case_id.encode():
            h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
        out[i] = h % folds
    return out


def cross_validate(table: Table, *, folds: int = FOLDS, asks: Bar = ANSWERS_FIRST, among: np.ndarray | None = None,
                   against: np.ndarray | None = None) -> CrossValidated:  # fmt: skip
    """Choose on all folds but one, score on that one, for each fold (module docstring): choosing
    `among` these columns (all by default), against the settings in force, or against choosing
    `against` those columns on the same folds (is the wider choice worth more than the narrower?)."""
    fold = fold_of([c.id for c in table.cases], folds)
    value = table.value(asks)
    held = np.full(len(table.cases), np.nan)
    base = np.full(len(table.cases), np.nan)
    chosen = []
    answerable = table.answerable
    for f in range(folds):
        test = fold == f
        if not (test & answerable).any():
            continue
        column = choose(table, ~test, asks, among)
        chosen.append(column)
        rows = test & answerable
        held[rows] = value[rows, column]
        base[rows] = value[rows, table.base if against is None else choose(table, ~test, asks, against)]
    scored = ~np.isnan(held)
    gain = paired_bootstrap_ci(base[scored].tolist(), held[scored].tolist())
    return CrossValidated(gain, folds, tuple(chosen), float(base[scored].mean()) if scored.any() else math.nan,
                          float(held[scored].mean()) if scored.any() else math.nan)  # fmt: skip


@dataclass(frozen=True)
class Figures:
    mrr: float
    hit_at_k: float
    precision: float
    hits_per_question: float
    abstention_violations: int
    answerable: int

    def as_dict(self) -> dict:
        return {"mrr": self.mrr, "hit_at_k": self.hit_at_k, "precision": self.precision,
                "hits_per_question": self.hits_per_question, "abstention_violations": self.abstention_violations,
                "answerable": self.answerable}  # fmt: skip


def figures(table: Table, column: int) -> Figures:
    answer = table.answerable
    returned = table.returned[answer, column]
    n = int(answer.sum())
    return Figures(
        mrr=float(table.rr[answer, column].mean()) if n else math.nan,
        hit_at_k=float((table.rr[answer, column] > 0).mean()) if n else math.nan,
        precision=float(table.good[answer, column].sum() / returned.sum()) if returned.sum() else 0.0,
        hits_per_question=float(returned.mean()) if n else 0.0,
        abstention_violations=int((table.returned[~answer, column] > 0).sum()),
        answerable=n,
    )  # fmt: skip


SELECTION_KNOBS = frozenset({"relevance_cut", "match_cut", "learned_match_cut", "relevance_floor"})


def selection_only(table: Table) -> np.ndarray:
    """The columns that change only what recall keeps of its ranking (the cut and the floor)."""
    base = table.candidates[table.base]
    return np.array([{c["name"] for c in T.diff(base, t)} <= SELECTION_KNOBS for t in table.candidates], dtype=bool)


def _staged(table: Table, asks: Bar) -> tuple[int, CrossValidated]:
    """The column to propose and the cross-validation behind it (which `search` reads: a column whose
    cross-validation shows no gain is not proposed).

    In two steps, each checked on cases it was not fitted to: first the cut and the floor alone
    (what recall keeps of a ranking it does not change); then every knob, taken only when choosing
    among all of them does better on held-out folds than choosing the cut and floor alone. The
    ranking knobs fit a half conversation's questions more easily than they carry over to its
    others (docs/BENCHMARKS.md), so they must earn their place over what the simpler change gives."""
    everything = np.ones(len(table.cases), dtype=bool)
    narrow = selection_only(table)
    first = cross_validate(table, asks=asks, among=narrow)
    if first.shows_gain:
        wider = cross_validate(table, asks=asks, against=narrow)
        if wider.shows_gain:
            return choose(table, everything, asks), cross_validate(table, asks=asks)
        return choose(table, everything, asks, narrow), first
    return choose(table, everything, asks), cross_validate(table, asks=asks)  # `search` says why when it shows none


@dataclass(frozen=True)
class Outcome:
    """What the search found: a tuning to propose (None: nothing), why, and the figures behind it."""

    chosen: T.Tuning | None
    reason: str
    before: Figures
    after: Figures | None = None
    cv: CrossValidated | None = None
    tried: int = 0
    misses: int = 0
    details: dict = field(default_factory=dict)


def search(table: Table, *, k: int = K, asks: Bar = ANSWERS_FIRST) -> Outcome:
    """The whole decision (module docstring), in words a person reads."""
    before = figures(table, table.base)
    n = before.answerable
    misses = int(round(n - before.hit_at_k * n)) if n else 0
    tried = len(table.candidates)
    measure = f"value (MRR less {asks.noise_weight:g} per fact that does not answer)" if asks.trades_noise else "MRR"
    if n == 0:
        return Outcome(None, "no approved gold case names a fact it should find, so there is nothing to improve on",
                       before, tried=tried)  # fmt: skip
    perfect = before.mrr >= 1.0 - 1e-12 and (not asks.trades_noise or before.precision >= 1.0 - 1e-12)
    if perfect:
        return Outcome(None, f"every one of the {n} answerable gold cases already finds its fact first"
                             f"{' with nothing else beside it' if asks.trades_noise else ''}, so no setting can show a "
                             "gain on this gold set (add cases recall gets wrong)", before, tried=tried)  # fmt: skip
    if n < MIN_CASES:
        return Outcome(None, f"the gold sets have {n} answerable case{'s' if n != 1 else ''}; the search needs at "
                             f"least {MIN_CASES} to check a change on cases it was not fitted to", before,
                       tried=tried, misses=misses)  # fmt: skip
    best, cv = _staged(table, asks)
    gain = cv.gain
    interval = f"{gain.mean:+.3f}, 95% CI [{gain.lo:+.3f}, {gain.hi:+.3f}]"
    if best == table.base:
        return Outcome(None, f"none of the {tried} settings tried does better than those in force on these {n} cases",
                       before, figures(table, best), cv, tried, misses)  # fmt: skip
    if not cv.shows_gain:
        return Outcome(None, f"the best of {tried} settings tried does better on the cases it was fitted to, but not "
                             f"for sure on cases it was not ({measure} {interval} over {FOLDS}-fold cross-validation): "
                             "it would fit these cases rather than improve recall", before, figures(table, best), cv,
                       tried, misses)  # fmt: skip
    return Outcome(table.candidates[best], f"expected {measure} gain on unseen questions {interval} ({FOLDS}-fold "
                                           "cross-validation inside the gold set)", before, figures(table, best), cv,
                   tried, misses)  # fmt: skip
