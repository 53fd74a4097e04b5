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
