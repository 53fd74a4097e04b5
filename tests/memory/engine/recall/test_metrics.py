"""Retrieval metrics, the eval report and the seeded bootstrap (ENGINE-SPEC §8.5, Decision 11)."""

import math

import pytest

from memory.engine.recall.metrics import (
    BootstrapCI,
    beats_eval_bar,
    bootstrap_mean_ci,
    evaluate,
    hit_at_k,
    mean_ignoring_nan,
    mulberry32,
    ndcg_at_k,
    paired_bootstrap_ci,
    percentile,
    recall_at_k,
    reciprocal_rank,
)


def test_recall_at_k_counts_each_relevant_id_once():
    """BEHAVIOURS 98."""
    assert recall_at_k(["a", "x", "c", "b"], {"a", "b", "c"}, 3) == 2 / 3
    assert recall_at_k(["a", "a", "c"], {"a", "b", "c"}, 3) == 2 / 3


def test_reciprocal_rank_is_one_over_the_first_relevant_position_within_k():
    """BEHAVIOURS 98."""
    assert reciprocal_rank(["x", "a", "y"], {"a"}, 3) == 0.5
    assert reciprocal_rank(["x", "y", "z", "a"], {"a"}, 3) == 0.0


def test_hit_at_one_misses_a_hit_at_rank_two():
    """BEHAVIOURS 98."""
    assert hit_at_k(["x", "a"], {"a"}, 1) == 0.0
    assert hit_at_k(["x", "a"], {"a"}, 2) == 1.0


def test_ndcg_with_the_only_relevant_id_at_rank_two_is_one_over_log2_of_3():
    """BEHAVIOURS 98."""
    assert ndcg_at_k(["x", "a"], {"a"}, 3) == 1 / math.log2(3)
    assert ndcg_at_k(["a", "b"], {"a", "b"}, 3) == 1.0


def test_ndcg_dedupes_the_ranking_before_taking_the_top_k():
    assert ndcg_at_k(["x", "x", "x", "a"], {"a"}, 2) == 1 / math.log2(3)


def test_metrics_of_a_case_without_relevant_ids_are_nan():
    for metric in (recall_at_k, reciprocal_rank, hit_at_k, ndcg_at_k):
        assert math.isnan(metric(["a"], set(), 3))


def test_nearest_rank_percentiles():
    """BEHAVIOURS 98."""
    values = list(range(1, 11))
    assert percentile(values, 50) == 5 and percentile(values, 95) == 10
    assert percentile([], 50) == 0


def test_the_mean_ignores_nan_and_an_empty_mean_is_zero():
    """BEHAVIOURS 98."""
    assert mean_ignoring_nan([1.0, math.nan, 0.0]) == 0.5
    assert mean_ignoring_nan([]) == 0.0
    assert mean_ignoring_nan([math.nan]) == 0.0


def three_cases():
    cases = [
        {"id": "c1", "relevant_ids": ["g1"], "category": "single-session"},
        {"id": "c2", "relevant_ids": ["g2"], "category": "single-session"},
        {"id": "c3", "relevant_ids": ["g3"], "category": "multi-session"},
    ]
    rankings = {"c1": ["g1"], "c2": ["x", "g2"], "c3": ["x", "y", "z", "g3"]}
    return cases, rankings


def test_a_three_case_run_aggregates_recall_mrr_and_categories():
    """BEHAVIOURS 99: a gold id at rank 4 is a miss at k = 3."""
    cases, rankings = three_cases()
    report = evaluate(cases, rankings, k=3)
    assert report.recall_at_k == 2 / 3 and report.mrr == 0.5
    assert report.by_category["single-session"]["mrr"] == 0.75
    assert report.by_category["multi-session"]["recall_at_k"] == 0.0


def test_abstention_cases_are_left_out_and_count_a_violation_only_when_something_came_back():
    """BEHAVIOURS 100."""
    cases, rankings = three_cases()
    cases += [
        {"id": "quiet", "relevant_ids": [], "category": "abstention"},
        {"id": "noisy", "relevant_ids": [], "category": "abstention"},
    ]
    rankings |= {"quiet": [], "noisy": ["x"]}
    report = evaluate(cases, rankings, k=3)
    assert report.mrr == 0.5 and report.n == 5 and report.n_scored == 3 and report.n_abstention == 2
    assert report.abstention_violations == 1
    assert "abstention" not in report.by_category


def test_a_run_of_only_abstentions_reports_zero_scored_cases():
    """BEHAVIOURS 99: `n_scored == 0` is what tells "n/a" apart from a real 0."""
    report = evaluate([{"id": "a", "relevant_ids": []}], {"a": []}, k=3)
    assert report.n_scored == 0 and report.mrr == 0.0 and report.abstention_violations == 0


def test_an_uncategorised_case_is_grouped_under_uncategorized():
    report = evaluate([{"id": "a", "relevant_ids": ["g"]}], {"a": ["g"]}, k=3)
    assert report.by_category == {"uncategorized": {"n": 1, "recall_at_k": 1.0, "mrr": 1.0, "ndcg_at_k": 1.0,
                                                    "hit_at_k": 1.0, "precision": 1.0, "hits_per_question": 1.0}}


def test_precision_and_hits_per_question_count_what_came_back_within_k():
    """Precision pools the scored cases' first k hits (3 relevant of 7 returned, not the mean of the
    per-case shares); hits per question is their mean count; abstention cases stay out of both."""
    cases = [
        {"id": "c1", "relevant_ids": ["g1", "g2"], "category": "multi-session"},
        {"id": "c2", "relevant_ids": ["g3"], "category": "single-session"},
        {"id": "c3", "relevant_ids": ["g4"], "category": "single-session"},
        {"id": "quiet", "relevant_ids": [], "category": "abstention"},
    ]
    rankings = {
        "c1": ["g1", "x", "g2", "y", "g9"],  # k = 3: g1, x, g2 (the rest is beyond k)
        "c2": ["g3"],  # recall returned one hit, the right one
        "c3": ["x", "x", "y", "z", "g4"],  # a repeated id is one hit: x, y, z; g4 is beyond k
        "quiet": ["x", "y", "z"],
    }
    report = evaluate(cases, rankings, k=3)
    assert [(r.returned, r.relevant_returned) for r in report.per_case] == [(3, 2), (1, 1), (3, 0), (3, 0)]
    assert report.precision == 3 / 7
    assert report.hits_per_question == 7 / 3
    assert report.by_category["single-session"]["precision"] == 1 / 4
    assert report.by_category["single-session"]["hits_per_question"] == 2.0
    assert report.by_category["multi-session"]["precision"] == 2 / 3


def test_a_case_given_nothing_back_lowers_hits_per_question_but_not_precision():
    cases = [{"id": "a", "relevant_ids": ["g"]}, {"id": "b", "relevant_ids": ["h"]}]
    report = evaluate(cases, {"a": ["g"], "b": []}, k=5)
    assert report.precision == 1.0 and report.hits_per_question == 0.5
    silent = evaluate(cases, {}, k=5)
    assert silent.precision == 0.0 and silent.hits_per_question == 0.0


def test_a_run_of_only_abstentions_has_no_precision_to_report():
    report = evaluate([{"id": "a", "relevant_ids": []}], {"a": ["x", "y"]}, k=3)
    assert report.precision == 0.0 and report.hits_per_question == 0.0 and report.abstention_violations == 1


def test_mulberry32_matches_the_reference_generator():
    assert mulberry32(42, 3).tolist() == [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]


def test_the_bootstrap_reproduces_the_pinned_interval():
    """BEHAVIOURS 106."""
    result = bootstrap_mean_ci([1, 0.5, 1, 0.333, 1, 0, 0.5, 1, math.nan], seed=42)
    assert result == BootstrapCI(mean=0.666625, lo=0.41650000000000004, hi=0.916625, n=8)


def test_the_bootstrap_is_deterministic_and_a_wider_confidence_gives_a_wider_band():
    """BEHAVIOURS 106."""
    values = [1, 0.5, 1, 0.333, 1, 0, 0.5, 1]
    assert bootstrap_mean_ci(values) == bootstrap_mean_ci(values)
    wide, narrow = bootstrap_mean_ci(values, ci=0.99), bootstrap_mean_ci(values, ci=0.5)
    assert wide.hi - wide.lo >= narrow.hi - narrow.lo


def test_the_bootstrap_of_nothing_is_all_zeros():
    assert bootstrap_mean_ci([math.nan, math.inf]) == BootstrapCI(0.0, 0.0, 0.0, 0)


def test_the_paired_bootstrap_works_on_per_case_differences_and_skips_abstentions():
    result = paired_bootstrap_ci([0.5, 1.0, math.nan, 0.0], [1.0, 1.0, math.nan, 0.5], seed=1)
    assert result.n == 3 and result.mean == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        paired_bootstrap_ci([1.0], [1.0, 0.5])


def test_the_eval_bar_needs_an_mrr_gain_whose_interval_is_above_zero():
    """Decision 11."""
    cases = [{"id": f"c{i}", "relevant_ids": ["g"]} for i in range(20)]
    baseline = evaluate(cases, {f"c{i}": ["x", "g"] for i in range(20)}, k=3)
    better = evaluate(cases, {f"c{i}": ["g"] for i in range(20)}, k=3)
    assert beats_eval_bar(baseline, better)
    assert not beats_eval_bar(baseline, baseline)
    assert not beats_eval_bar(better, baseline)


def test_the_eval_bar_refuses_a_gain_that_costs_more_than_0_01_of_recall():
    """Decision 11."""
    cases = [{"id": f"c{i}", "relevant_ids": ["g", "h"]} for i in range(20)]
    baseline = evaluate(cases, {f"c{i}": ["x", "g", "h"] for i in range(20)}, k=3)
    lossy = evaluate(cases, {f"c{i}": ["g", "x", "y"] for i in range(20)}, k=3)
    assert lossy.mrr > baseline.mrr and lossy.recall_at_k < baseline.recall_at_k - 0.01
    assert not beats_eval_bar(baseline, lossy)


def test_the_bootstrap_interval_narrows_as_cases_grow():
    """Same per-case spread, 10 cases vs 1,000: the 95% band must shrink (roughly by sqrt(100))."""
    small = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.5]
    large = small * 100
    narrow, wide = bootstrap_mean_ci(large, seed=7), bootstrap_mean_ci(small, seed=7)
    assert (narrow.hi - narrow.lo) < (wide.hi - wide.lo) / 5


def test_ties_in_a_ranking_count_by_position_not_by_score():
    """A relevant id tied with an irrelevant one still ranks where the list puts it."""
    assert reciprocal_rank(["x", "gold"], ["gold"], 10) == 0.5
    assert ndcg_at_k(["gold", "x"], ["gold"], 2) == 1.0
