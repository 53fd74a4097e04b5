"""The settings search is judged on gold cases it did not see (governance.engine.settings_search)."""

from __future__ import annotations

import random

import numpy as np

from governance.engine import settings_search as S
from memory.engine import tuning as T
from memory.engine.recall.lanes import Hit
from memory.engine.recall.selection import select


def _cases(n: int) -> list[S.Case]:
    return [S.Case(f"c{i}", frozenset({f"answer{i}"})) for i in range(n)]


def _ranked(case: int, answer_at: int) -> list[tuple[str, float, float]]:
    """A list of five hits with the case's answer at `answer_at` (0-based), relevances and matches all 0.9."""
    ids = [f"noise{case}-{j}" for j in range(4)]
    ids.insert(answer_at, f"answer{case}")
    return [(mid, 0.9, 0.9) for mid in ids]


def _tunings(n: int) -> list[T.Tuning]:
    return [T.DEFAULT, *(T.DEFAULT.changed(ngram_weight=round(0.01 * (i + 1), 4)) for i in range(n))]


def test_a_setting_that_only_fits_the_cases_it_was_chosen_on_is_not_proposed():
    # Each candidate puts the answers of one fold's cases first and changes nothing else: on all the
    # cases each looks better than the settings in force, but a fold never gains from the setting its
    # other folds chose, since that setting helped only cases outside it.
    cases = _cases(40)
    fold = S.fold_of([c.id for c in cases])
    tunings = _tunings(S.FOLDS)
    rankings = [{c.id: _ranked(i, 1) for i, c in enumerate(cases)}]
    for j in range(S.FOLDS):
        rankings.append({c.id: _ranked(i, 0 if fold[i] == j else 1) for i, c in enumerate(cases)})
    outcome = S.search(S.build_table(cases, rankings, tunings, cuts=[T.DEFAULT.match_cut]))
    assert outcome.chosen is None
    assert outcome.after is not None and outcome.after.mrr > outcome.before.mrr + 0.05  # it did fit them
    assert "not for sure on cases it was not" in outcome.reason
    assert outcome.cv is not None and outcome.cv.gain.mean <= 0


def test_a_change_within_the_noise_of_the_settings_in_force_is_not_taken():
    # One candidate puts a single case's answer first: better on all the cases, by less than its error.
    cases = _cases(30)
    rankings = [{c.id: _ranked(i, 1) for i, c in enumerate(cases)},
                {c.id: _ranked(i, 0 if i == 0 else 1) for i, c in enumerate(cases)}]  # fmt: skip
    table = S.build_table(cases, rankings, _tunings(1), cuts=[T.DEFAULT.match_cut])
    assert table.rr[:, 1].mean() > table.rr[:, 0].mean()
    assert S.choose(table, np.ones(len(cases), dtype=bool)) == table.base


def test_a_setting_that_helps_most_cases_is_proposed_with_its_cross_validated_gain():
    cases = _cases(30)
    tunings = _tunings(1)
    rankings = [{c.id: _ranked(i, 2) for i, c in enumerate(cases)},
                {c.id: _ranked(i, 0 if i % 5 else 3) for i, c in enumerate(cases)}]  # fmt: skip
    outcome = S.search(S.build_table(cases, rankings, tunings, cuts=[T.DEFAULT.match_cut]))
    assert outcome.chosen == tunings[1]
    assert outcome.cv is not None and outcome.cv.gain.lo > 0
    assert outcome.reason.startswith("expected MRR gain on unseen questions +")
    assert round(outcome.before.mrr, 3) == 0.333 and outcome.after.mrr > 0.8


def test_the_cut_is_tried_on_the_ranked_list_and_can_be_what_is_proposed():
    # The answer is ranked second at half the best match: the cut in force drops it; a lower cut keeps it.
    cases = _cases(12)
    ranking = {c.id: [(f"noise{i}", 0.8, 0.8), (f"answer{i}", 0.4, 0.4)] for i, c in enumerate(cases)}
    outcome = S.search(S.build_table(cases, [ranking], [T.DEFAULT]))
    assert outcome.before.hit_at_k == 0.0
    assert outcome.chosen is not None and outcome.chosen.match_cut <= 0.5
    assert T.diff(T.DEFAULT, outcome.chosen) == [{"name": "match_cut", "label": T.KNOB["match_cut"].label,
                                                 "group": "recall", "before": T.DEFAULT.match_cut,
                                                 "after": outcome.chosen.match_cut}]  # fmt: skip
    assert outcome.after.precision == 0.5 and outcome.after.hits_per_question == 2.0


def test_a_ranking_knob_rides_along_with_the_cut_only_when_it_earns_its_place_on_unseen_folds():
    # The cut in force drops every answer (second, at half the best match); a lower cut keeps them
    # all. Each ranking candidate also puts the answers of one fold first: with the lower cut it is
    # best on all the cases, yet never better on a fold its other folds chose it for. The cut alone is
    # proposed.
    cases = _cases(40)
    fold = S.fold_of([c.id for c in cases])
    tunings = _tunings(S.FOLDS)
    second = {c.id: [(f"noise{i}", 0.8, 0.8), (f"answer{i}", 0.4, 0.4)] for i, c in enumerate(cases)}
    rankings = [second] + [{c.id: [(f"answer{i}", 0.8, 0.8), (f"noise{i}", 0.4, 0.4)] if fold[i] == j else second[c.id]
                            for i, c in enumerate(cases)} for j in range(S.FOLDS)]  # fmt: skip
    table = S.build_table(cases, rankings, tunings, cuts=[0.0, T.DEFAULT.match_cut])
    best_on_all = table.candidates[S.choose(table, np.ones(len(cases), dtype=bool))]
    assert best_on_all.ngram_weight != T.DEFAULT.ngram_weight  # it fits them
    outcome = S.search(table)
    assert outcome.chosen == T.DEFAULT.changed(match_cut=0.0)
    assert outcome.cv.gain.lo > 0 and round(outcome.after.mrr, 3) == 0.5


def test_a_setting_that_answers_a_question_meant_to_get_nothing_is_never_chosen():
    cases = [*_cases(12), S.Case("nothing", frozenset())]
    base = {c.id: [(f"noise{i}", 0.8, 0.8), (f"answer{i}", 0.4, 0.4)] for i, c in enumerate(cases[:-1])}
    # The floor at 0 keeps the answers (relevance 0.4 would pass a lower cut too) but also answers "nothing".
    lower = {**base, "nothing": [("stray", 0.1, 0.1)]}
    tunings = [T.DEFAULT, T.DEFAULT.changed(relevance_floor=0.0)]
    table = S.build_table(cases, [base, lower], tunings, cuts=[0.0, T.DEFAULT.match_cut])
    chosen = table.candidates[S.choose(table, np.ones(len(cases), dtype=bool))]
    assert chosen.relevance_floor == T.DEFAULT.relevance_floor and chosen.match_cut == 0.0


def test_nothing_is_searched_when_every_case_already_finds_its_answer_first_or_there_are_too_few():
    cases = _cases(12)
    first = {c.id: _ranked(i, 0) for i, c in enumerate(cases)}
    done = S.search(S.build_table(cases, [first, first], _tunings(1)))
    assert done.chosen is None and "already finds its fact first" in done.reason
    few = _cases(4)
    second = {c.id: _ranked(i, 1) for i, c in enumerate(few)}
    small = S.search(S.build_table(few, [second], [T.DEFAULT]))
    assert small.chosen is None and "needs at least 10" in small.reason and "4 answerable cases" in small.reason


def test_the_cut_applied_to_a_list_ranked_without_one_is_what_recall_would_return():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(0, 15)
        rel = sorted((round(rng.random(), 2) for _ in range(n)), reverse=True)
        hits = [Hit(f"m{i}", 1.0, {"relevance": r, "match": round(rng.random(), 2)}, i) for i, r in enumerate(rel)]
        cut, k = rng.choice(S.CUT_OPTIONS), rng.randint(1, 10)
        relevance_cut = rng.choice((0.0, 0.0, 0.5, 0.8))
        uncut = select(hits, floor=0.0, cut=0.0, limit=k)
        ranked = [(h.memory_id, h.components["relevance"], h.components["match"])
                  for h in select(hits, floor=0.0, cut=0.0, limit=None).hits]  # fmt: skip
        expected = select(hits, floor=0.0, cut=relevance_cut, match_cut=cut, limit=k).hits
        assert S.with_cut(ranked, cut, k, relevance_cut) == [h.memory_id for h in expected]
        assert len(uncut.hits) == min(n, k)


def test_the_candidates_are_the_settings_in_force_and_one_knob_moves_within_range():
    current = T.DEFAULT.changed(ngram_weight=0.55)
    found = S.ranking_candidates(current)
    assert found[0] == current and len(found) == len(set(found))
    for tuning in found[1:]:
        changed = T.diff(current, tuning)
        assert len(changed) == 1 and changed[0]["name"] != "match_cut"
        knob = T.KNOB[changed[0]["name"]]
        assert knob.low <= changed[0]["after"] <= knob.high
    names = {T.diff(current, t)[0]["name"] for t in found[1:]}
    assert "relevance_floor" in names and "learned_weight" not in names
    assert "learned_weight" in {T.diff(current, t)[0]["name"] for t in S.ranking_candidates(current, learned=True)[1:]}
