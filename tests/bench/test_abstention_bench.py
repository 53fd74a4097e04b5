"""The abstention bench (docs/BENCHMARKS.md): AUROC as the Mann-Whitney statistic, and in-domain against
out-of-domain questions over conversations in the gold-set format. Pure: no database."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.memory import abstention
from bench.memory.locomo import evaluate_locomo, load_conversation

GOLD = Path(__file__).resolve().parents[1] / "data" / "tideline-gold"


@pytest.mark.parametrize("positives, negatives, expected", [
    ([0.9, 0.8], [0.1, 0.2], 1.0),   # every answerable question outscores every unanswerable one
    ([0.1, 0.2], [0.9, 0.8], 0.0),
    ([0.5, 0.5], [0.5, 0.5], 0.5),   # ties count one half
    ([0.9, 0.3], [0.5, 0.1], 0.75),
    ([], [0.1], 0.5),
])  # fmt: skip
def test_auroc_is_the_chance_a_positive_outscores_a_negative(positives, negatives, expected):
    assert abstention.auroc(positives, negatives) == pytest.approx(expected)


def test_each_conversation_is_asked_its_own_and_the_others_questions():
    paths = sorted(GOLD.glob("*.json"))[:2]
    report = abstention.evaluate(paths, floor=0.0)
    own = evaluate_locomo(paths)
    figures = report.figures
    assert figures.in_domain == sum(1 for case in own.cases if case.relevant)
    assert figures.out_of_domain > 0 and 0.0 <= figures.auroc_top_relevance <= 1.0
    # In-domain questions are scored exactly as the LoCoMo bench scores them when nothing is dropped.
    assert figures.in_domain_hit_at_10 == pytest.approx(own.overall.hit_at_10, abs=1e-4)
    # A floor above every relevance leaves nothing: every out-of-domain question gets no hit.
    assert abstention.evaluate(paths, floor=1.01).figures.out_of_domain_no_hit == 1.0


def test_the_figures_match_a_question_by_question_count():
    specs = [load_conversation(path) for path in sorted(GOLD.glob("*.json"))]
    questions = abstention.collect(specs)
    for floor, cut in ((0.0, 0.0), (0.05, 0.0), (0.3, 0.0), (0.05, 0.7)):
        figures = abstention.score(questions, floor, abstention.ENGINE, cut)
        inside, outside, hits, returned, good, empty = [], [], [], 0, 0, 0
        for q in questions:
            rel = abstention.relevances(q, abstention.ENGINE)
            ranked = sorted(range(rel.size), key=lambda i: -rel[i])  # stable: ties keep the fused order
            kept = [i for i in ranked if rel[i] >= floor]
            # the shipped cut: a share of the best match strength among the hits reaching the floor
            kept = [i for i in kept if q.match[i] >= cut * max(q.match[j] for j in kept)][:10] if kept else []
            top = float(rel[kept[0]]) if kept else 0.0
            (inside if q.inside else outside).append(top)
            empty += not q.inside and not kept
            if q.inside:
                hits.append(bool(q.relevant[kept].any()))
                returned += len(kept)
                good += int(q.relevant[kept].sum())
        assert figures.out_of_domain_no_hit == pytest.approx(empty / len(outside), abs=1e-4)
        assert figures.in_domain_hit_at_10 == pytest.approx(sum(hits) / len(hits), abs=1e-4)
        assert figures.precision == pytest.approx(good / returned, abs=1e-4)
        assert figures.hits_per_question == pytest.approx(returned / len(hits), abs=1e-3)
        if floor > 0:  # the pooled AUROC compares relevance relative to the floor: same order
            assert figures.auroc_top_relevance == pytest.approx(abstention.auroc(inside, outside), abs=1e-4)


def test_the_chosen_floor_and_cut_are_the_lowest_that_reach_the_bars():
    specs = [load_conversation(path) for path in sorted(GOLD.glob("*.json"))]
    questions = abstention.collect(specs)
    knobs, floor, cut, figures = abstention.choose(questions, grid=[abstention.ENGINE])
    assert figures.out_of_domain_no_hit >= abstention.TARGET_NO_HIT
    lower = abstention.score(questions, floor * 0.999999 - 1e-12, knobs, cut)
    assert floor == 0.0 or lower.out_of_domain_no_hit < abstention.TARGET_NO_HIT
    if figures.precision >= abstention.TARGET_PRECISION:
        for smaller in [c for c in abstention.CUT_GRID if c < cut]:
            assert abstention.score(questions, floor, knobs, smaller).precision < abstention.TARGET_PRECISION


def test_cross_validation_scores_each_conversation_with_constants_chosen_without_it():
    paths = sorted(GOLD.glob("*.json"))
    specs = [load_conversation(path) for path in paths]
    report = abstention.cross_validate(specs, grid=[abstention.DEFAULT_SETTINGS], knob_grid=[abstention.ENGINE])
    assert [fold["held_out"] for fold in report.folds] == [spec["name"] for spec in specs]
    assert report.figures.in_domain == sum(1 for spec in specs for case in spec["cases"] if case["relevant_keys"])
    for fold in report.folds:
        assert fold["held_out_figures"]["in_domain"] > 0 and fold["floor"] >= 0.0
        assert fold["cut"] in abstention.CUT_GRID


def test_the_command_wants_two_conversations(capsys):
    with pytest.raises(SystemExit):
        abstention.main([str(sorted(GOLD.glob("*.json"))[0])])
    assert "at least two" in capsys.readouterr().err
