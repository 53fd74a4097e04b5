"""Which candidates recall returns and why the others were left out (memory/engine/recall/selection.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory.engine.recall.lanes import Hit
from memory.engine.recall.selection import BELOW_CUT, BELOW_FLOOR, PAST_LIMIT, select, why_kept, why_left_out


def hit(name: str, relevance: float) -> Hit:
    return Hit(name, 0.0, {"relevance": relevance}, 0)


def test_most_relevant_first_then_the_given_order_for_equal_relevance():
    chosen = select([hit("a", 0.5), hit("b", 0.9), hit("c", 0.5), hit("d", 0.9)], floor=0.0, cut=0.0, limit=None)
    assert [h.memory_id for h in chosen.hits] == ["b", "d", "a", "c"]


def test_a_hit_needs_the_floor_and_the_cut_share_of_the_best_and_k_is_a_maximum():
    candidates = [hit("best", 0.8), hit("near", 0.7), hit("weak", 0.3), hit("tiny", 0.01), hit("near2", 0.65)]
    chosen = select(candidates, floor=0.05, cut=0.85, limit=8)
    assert [h.memory_id for h in chosen.hits] == ["best", "near"]  # 0.65 < 0.85 × 0.8
    reasons = {item.hit.memory_id: item.reason for item in chosen.left_out}
    assert reasons == {"near2": BELOW_CUT, "weak": BELOW_CUT, "tiny": BELOW_FLOOR}
    assert chosen.bar == 0.85 * 0.8 and chosen.counts() == {BELOW_FLOOR: 1, BELOW_CUT: 2, PAST_LIMIT: 0}
    limited = select(candidates, floor=0.05, cut=0.0, limit=2)
    assert [h.memory_id for h in limited.hits] == ["best", "near"]
    assert [i.reason for i in limited.left_out] == [PAST_LIMIT, PAST_LIMIT, BELOW_FLOOR]


def test_nothing_reaching_the_floor_returns_nothing():
    chosen = select([hit("a", 0.01), hit("b", 0.0)], floor=0.02, cut=0.7, limit=8)
    assert chosen.hits == [] and chosen.best == 0.0 and chosen.counts()[BELOW_FLOOR] == 2


def test_the_reasons_read_as_sentences_with_the_numbers_used():
    chosen = select([hit("a", 1.0), hit("b", 0.5), hit("c", 0.001)], floor=0.0152, cut=0.725, limit=8)
    assert why_kept(chosen, chosen.hits[0]) == "Kept: relevance 1.00 reaches the cut 0.725 (72.5% of the best hit's 1.00)."
    below_cut, below_floor = chosen.left_out
    assert why_left_out(chosen, below_cut) == (
        "Left out: relevance 0.50 is below the cut 0.725 (72.5% of the best hit's 1.00).")
    assert why_left_out(chosen, below_floor) == "Left out: relevance 0.00 is below the floor 0.0152."
    one = select([hit("a", 0.75), hit("b", 0.75)], floor=0.0152, cut=0.0, limit=1)
    assert why_left_out(one, one.left_out[0]) == (
        "Left out: at most 1 fact was asked for (k = 1), and it ranks above this one (more relevant, or as relevant "
        "and found first by the search).")


@given(st.lists(st.floats(0.0, 1.0), max_size=30), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
       st.integers(1, 12))  # fmt: skip
def test_every_candidate_is_either_returned_or_left_out_with_its_reason(relevances, floor, cut, limit):
    candidates = [hit(str(i), r) for i, r in enumerate(relevances)]
    chosen = select(candidates, floor=floor, cut=cut, limit=limit)
    assert len(chosen.hits) + len(chosen.left_out) == len(candidates) and len(chosen.hits) <= limit
    shown = [h.components["relevance"] for h in chosen.hits]
    assert shown == sorted(shown, reverse=True)
    assert all(r >= floor and r >= cut * chosen.best for r in shown)
    for item in chosen.left_out:
        r = item.hit.components["relevance"]
        assert (item.reason == BELOW_FLOOR) == (r < floor)
        assert item.reason != BELOW_CUT or r < cut * chosen.best


def matched(name: str, relevance: float, match: float) -> Hit:
    return Hit(name, 0.0, {"relevance": relevance, "match": match}, 0)


def test_the_match_cut_leaves_out_a_fact_as_relevant_as_the_best_but_matching_far_less_strongly():
    # Both hold the question's one important word; the second mentions it in passing in a long fact.
    candidates = [matched("strong", 0.9, 1.0), matched("passing", 0.9, 0.4), matched("near", 0.6, 0.8)]
    chosen = select(candidates, floor=0.05, cut=0.0, match_cut=0.625, limit=8)
    assert [h.memory_id for h in chosen.hits] == ["strong", "near"]  # still in relevance order
    assert chosen.best_match == 1.0 and chosen.match_bar == 0.625
    (item,) = chosen.left_out
    assert item.reason == BELOW_CUT and item.hit.memory_id == "passing"
    assert why_left_out(chosen, item) == ("Left out: relevance 0.90, but its match 0.40 is below 62.5% of the best "
                                          "match 1.00: other facts match the question's words more strongly.")
    assert why_kept(chosen, chosen.hits[1]) == ("Kept: relevance 0.60 reaches the floor 0.05, and its match 0.80 "
                                                "reaches 62.5% of the best match 1.00.")


def test_the_best_match_is_taken_among_the_facts_reaching_the_floor_and_the_relevance_cut():
    # A fact under the floor that matches strongly (a long fact repeating a common word) sets no bar.
    candidates = [matched("answer", 0.5, 0.5), matched("under", 0.01, 1.0)]
    chosen = select(candidates, floor=0.05, cut=0.0, match_cut=0.9, limit=8)
    assert [h.memory_id for h in chosen.hits] == ["answer"] and chosen.best_match == 0.5


@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=30), st.floats(0.0, 1.0),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(1, 12))  # fmt: skip
def test_every_returned_hit_reaches_both_cuts_and_the_list_keeps_relevance_order(pairs, floor, cut, match_cut, limit):
    candidates = [matched(str(i), r, m) for i, (r, m) in enumerate(pairs)]
    chosen = select(candidates, floor=floor, cut=cut, match_cut=match_cut, limit=limit)
    assert len(chosen.hits) + len(chosen.left_out) == len(candidates) and len(chosen.hits) <= limit
    shown = [h.components["relevance"] for h in chosen.hits]
    assert shown == sorted(shown, reverse=True)
    assert all(h.components["match"] >= match_cut * chosen.best_match for h in chosen.hits)
    if any(r >= floor for r, _ in pairs):
        assert chosen.hits, "the hit with the best match among those reaching the floor always reaches the cut"
