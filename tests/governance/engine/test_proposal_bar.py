"""A workspace's bar (governance.engine.proposals.Bar): by default a settings proposal must rank answers
better; a workspace that prices noise accepts one that returns less beside the answer, within what
it allows of finding the answer, and the settings search proposes for that bar."""

from __future__ import annotations

from governance.engine import proposals as rules
from governance.engine import settings_search as S
from memory.engine import tuning as T
from memory.engine.recall.metrics import evaluate

NOISY = rules.Bar(noise_weight=0.02, hit_allowance=0.05)
IN_FORCE = T.DEFAULT.changed(relevance_cut=0.0, match_cut=0.0)  # every hit reaching the floor comes back


def _cases(n: int) -> list[dict]:
    return [{"id": f"c{i}", "relevant_ids": [f"a{i}"], "category": "x"} for i in range(n)]


def _judged(cases, base, cand, asks):
    b, c = evaluate(cases, base, 10), evaluate(cases, cand, 10)
    return rules.judge(rules.BEAT, rules.deltas(b, c, asks=asks), moved=rules.movement(b, c, asks), asks=asks)


def test_less_noise_with_the_same_answers_clears_only_a_bar_that_prices_noise():
    cases = _cases(30)
    base = {c["id"]: [c["relevant_ids"][0], *(f"n{c['id']}-{j}" for j in range(5))] for c in cases}
    cand = {c["id"]: [c["relevant_ids"][0]] for c in cases}
    default = _judged(cases, base, cand, rules.ANSWERS_FIRST)
    assert not default.clears and "already finds its fact first" in default.reason
    priced = _judged(cases, base, cand, NOISY)
    assert priced.clears, priced.reason
    assert priced.reason.startswith("The value of an answer (MRR less 0.02 per fact that does not answer) improves by +0.100")
    assert "hit@k, recall@k and nDCG@k hold within 0.05" in priced.reason


def test_a_gain_on_fewer_cases_than_the_bootstrap_can_tell_from_chance_does_not_clear():
    """One case ranking better gives the bootstrap the interval [gain, gain]: not evidence of a gain."""
    for n in (1, rules.MIN_CASES_TO_BEAT - 1):
        cases = _cases(n)
        base = {c["id"]: ["other", c["relevant_ids"][0]] for c in cases}
        cand = {c["id"]: [c["relevant_ids"][0]] for c in cases}
        verdict = _judged(cases, base, cand, rules.ANSWERS_FIRST)
        assert not verdict.clears and f"a gain needs at least {rules.MIN_CASES_TO_BEAT}" in verdict.reason
    cases = _cases(rules.MIN_CASES_TO_BEAT)
    verdict = _judged(cases, {c["id"]: ["other", c["relevant_ids"][0]] for c in cases},
                      {c["id"]: [c["relevant_ids"][0]] for c in cases}, rules.ANSWERS_FIRST)
    assert verdict.clears and verdict.reason.startswith("MRR improves by +0.500")


def test_less_noise_that_loses_more_answers_than_the_bar_allows_does_not_clear():
    cases = _cases(30)
    base = {c["id"]: [c["relevant_ids"][0], *(f"n{c['id']}-{j}" for j in range(9))] for c in cases}
    cand = {c["id"]: ([c["relevant_ids"][0]] if i >= 3 else []) for i, c in enumerate(cases)}  # 3 of 30 lost
    pricier = rules.Bar(noise_weight=0.05, hit_allowance=0.05)
    verdict = _judged(cases, base, cand, pricier)
    assert not verdict.clears and verdict.reason == "hit@k drops by 0.100, more than the 0.05 the bar allows"
    assert _judged(cases, base, cand, rules.Bar(noise_weight=0.05, hit_allowance=0.1)).clears


def _table(cases: list[S.Case], answer_relevance) -> S.Table:
    """Each case: its answer first (relevance per `answer_relevance(i)`), then four weaker hits; the
    settings in force return them all (cut 0), the other cut keeps only what reaches 0.725 × the best match."""
    rankings = [{c.id: [(f"answer{i}", answer_relevance(i), answer_relevance(i)), *((f"noise{i}-{j}", 0.4, 0.4) for j in range(4))]
                 for i, c in enumerate(cases)}]  # fmt: skip
    return S.build_table(cases, rankings, [IN_FORCE], cuts=[0.0, 0.725])


def test_the_search_proposes_a_higher_cut_for_a_bar_that_prices_noise_and_nothing_otherwise():
    cases = [S.Case(f"c{i}", frozenset({f"answer{i}"})) for i in range(30)]
    table = _table(cases, lambda i: 0.9)
    assert S.search(table).chosen is None  # every answer is first already
    outcome = S.search(table, asks=NOISY)
    assert outcome.chosen is not None and outcome.chosen.match_cut == 0.725
    assert outcome.after.precision == 1.0 and outcome.before.precision == 0.2
    assert "expected value (MRR less 0.02 per fact that does not answer) gain" in outcome.reason


def test_the_search_keeps_within_the_hit_allowance():
    cases = [S.Case(f"c{i}", frozenset({f"answer{i}"})) for i in range(30)]
    # The answer is itself the best hit, so a cut never drops it; make three answers second to noise.
    rankings = [{c.id: ([(f"noise{i}-0", 0.9, 0.9), (f"answer{i}", 0.5, 0.5)] if i < 3 else [(f"answer{i}", 0.9, 0.9)])
                 + [(f"noise{i}-{j}", 0.4, 0.4) for j in range(1, 9)] for i, c in enumerate(cases)}]  # fmt: skip
    table = S.build_table(cases, rankings, [IN_FORCE], cuts=[0.0, 0.725])
    assert S.figures(table, 1).hit_at_k == 0.9  # the higher cut loses 3 answers in 30
    assert S.search(table, asks=rules.Bar(noise_weight=0.05, hit_allowance=0.05)).chosen is None
    generous = rules.Bar(noise_weight=0.05, hit_allowance=0.1)
    assert S.search(table, asks=generous).chosen is not None
