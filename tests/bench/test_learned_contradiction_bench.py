"""The learned embedder's effect on contradiction detection, measured as docs/BENCHMARKS.md reports it.

Real all-MiniLM-L6-v2 vectors of the labelled pairs; every setting is chosen on other pairs than the
ones it is scored on (cross-validation by line pair, and development half -> held-out half)."""

import pytest

from bench.governance.contradictions import load_pairs
from bench.governance.contradictions_learned import Pair, evaluate, featurise, precision_at_recall
from memory.services.recall import embedding


@pytest.fixture(scope="module")
def labelled():
    return featurise(load_pairs(), embedding.load("minilm"))


def test_the_learned_signal_adds_recall_and_keeps_precision_high_out_of_sample(labelled):
    result = evaluate(labelled, folds=5)
    for block in (result["cross_validation"], result["held_out"]):
        free, learned = block["model_free"], block["learned"]
        assert learned["recall"] > free["recall"] >= 0.6
        assert learned["precision"] >= 0.9
        assert learned["p_at_r60"] >= free["p_at_r60"]


def test_precision_at_recall_reads_the_ranking_best_first_and_a_tie_as_one_step():
    pairs = [
        Pair(label, 0.9, None, None, line) for line, label in enumerate([True, False, True, True, False])
    ]
    # Ranked: T (0.9) | F, T tied (0.8) | T (0.7); the 5th pair is not flagged. 3 contradictions in all.
    flagged = [0.9, 0.8, 0.8, 0.7, None]
    assert precision_at_recall(pairs, flagged, 0.6) == pytest.approx(2 / 3)  # the tie is taken whole
    assert precision_at_recall(pairs, flagged, 1.0) == pytest.approx(3 / 4)
    assert precision_at_recall(pairs, [None] * 5, 0.6) == 0.0
