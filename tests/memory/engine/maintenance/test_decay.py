"""effectiveScore (ENGINE-SPEC §3.3) and the feedback arithmetic (§3.12)."""

import numpy as np
import pytest

from memory.engine.maintenance.decay import DAY_MS, apply_feedback, effective_score

NOW = 1_750_000_000_000


def days_ago(days: float) -> int:
    return NOW - int(days * DAY_MS)


def test_a_fresh_unused_fact_scores_exactly_its_importance():
    """BEHAVIOURS 38."""
    assert effective_score(0.7, 0.08, 0, NOW, NOW) == 0.7


def test_importance_0_7_with_decay_rate_0_08_after_60_days_is_the_pinned_value():
    """BEHAVIOURS 38."""
    assert effective_score(0.7, 0.08, 0, days_ago(60), NOW) == 0.10693741342748979


def test_importance_0_4_with_decay_rate_0_08_after_10_days_is_the_pinned_value():
    """BEHAVIOURS 38."""
    assert effective_score(0.4, 0.08, 0, days_ago(10), NOW) == 0.27347871875258195


def test_twenty_accesses_lift_the_10_day_value_to_the_pinned_value():
    """BEHAVIOURS 38."""
    assert effective_score(0.4, 0.08, 20, days_ago(10), NOW) == 0.3567399283007909


def test_the_permanent_tier_is_pinned_to_one_even_after_1000_days():
    """BEHAVIOURS 38."""
    assert effective_score(0.1, 0.08, 0, days_ago(1000), NOW, permanent=True) == 1.0


def test_a_last_access_in_the_future_counts_as_zero_days():
    assert effective_score(0.6, 0.03, 0, NOW + DAY_MS, NOW) == 0.6


def test_reinforcement_cannot_push_the_score_above_one():
    assert effective_score(1.0, 0.0, 10**9, NOW, NOW) == 1.0


def test_the_array_form_matches_the_scalar_form_element_by_element():
    importance = np.array([0.7, 0.4, 0.4, 0.85])
    decay = np.array([0.08, 0.08, 0.08, 0.01])
    access = np.array([0, 0, 20, 0])
    last = np.array([days_ago(60), days_ago(10), days_ago(10), days_ago(1000)])
    permanent = np.array([False, False, False, True])
    scores = effective_score(importance, decay, access, last, NOW, permanent)
    assert scores.tolist() == [0.10693741342748979, 0.27347871875258195, 0.3567399283007909, 1.0]


def test_the_derived_thresholds_of_the_segment_table_hold():
    """ENGINE-SPEC §1.3: a context fact drops below 0.15 after about 25.8 days and 0.05 after 54.7."""
    assert (
        effective_score(0.4, 0.08, 0, days_ago(25.7), NOW)
        > 0.15
        > effective_score(0.4, 0.08, 0, days_ago(25.9), NOW)
    )
    assert (
        effective_score(0.4, 0.08, 0, days_ago(54.6), NOW)
        > 0.05
        > effective_score(0.4, 0.08, 0, days_ago(54.8), NOW)
    )


def test_feedback_up_adds_0_05_and_counts_as_a_use_and_down_subtracts_0_10_without_touching():
    """BEHAVIOURS 66: preference 0.70 → up 0.75 → down 0.65."""
    up = apply_feedback(0.70, None, "up")
    assert up.importance == pytest.approx(0.75) and up.touch and up.confidence is None
    down = apply_feedback(up.importance, None, "down")
    assert down.importance == pytest.approx(0.65) and not down.touch


def test_feedback_clamps_importance_and_moves_confidence_by_the_same_delta():
    """BEHAVIOURS 66."""
    assert apply_feedback(0.98, None, "up").importance == 1.0
    assert apply_feedback(0.05, None, "down").importance == 0.0
    assert apply_feedback(0.7, 0.5, "down").confidence == pytest.approx(0.4)


def test_an_unknown_feedback_signal_is_refused():
    with pytest.raises(ValueError, match="up"):
        apply_feedback(0.5, None, "sideways")
