"""The abstention bench of issue 16: AUROC as the Mann-Whitney statistic, and in-domain against
out-of-domain questions over conversations in the gold-set format. Pure: no database."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.bench import abstention
from memory.bench.locomo import evaluate_locomo

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
    report = abstention.evaluate(paths)
    own = evaluate_locomo(paths)
    assert report.in_domain == sum(1 for case in own.cases if case.relevant)
    assert report.out_of_domain > 0 and 0.0 <= report.auroc_top_score <= 1.0 and 0.0 <= report.auroc_best_coverage <= 1.0
    # In-domain questions are scored exactly as the LoCoMo bench scores them.
    assert report.in_domain_hit_at_10 == pytest.approx(own.overall.hit_at_10, abs=1e-4)
    # A floor above every score leaves nothing: every out-of-domain question gets no hit.
    assert abstention.evaluate(paths, floor=1e9).out_of_domain_no_hit == 1.0


def test_coverage_is_the_weighted_share_of_the_questions_words_a_fact_holds():
    question = abstention.content_words("Where does Caroline work?")
    assert question == {"caroline", "work"}
    flat = lambda word: 1.0  # noqa: E731 - every word weighs the same here
    assert abstention.coverage(question, abstention.content_words("Caroline works at the library"), flat) == 0.5
    assert abstention.coverage(question, abstention.content_words("Caroline loves her work"), flat) == 1.0


def test_the_command_wants_two_conversations(capsys):
    with pytest.raises(SystemExit):
        abstention.main([str(sorted(GOLD.glob("*.json"))[0])])
    assert "at least two" in capsys.readouterr().err
