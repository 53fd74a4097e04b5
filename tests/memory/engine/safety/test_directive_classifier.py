"""The learned directive classifier's pure parts (ENGINE-SPEC Decision 18): the shipped weights file, the probability
and the combiner, which may add a hold but never weakens the rules' verdict. No database, no model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.engine.safety import directive_classifier as dc
from memory.engine.safety.directives import Verdict


def _classifier(weights, bias=0.0, threshold=0.9) -> dc.Classifier:
    return dc.Classifier(weights=np.asarray(weights, dtype=float), bias=bias, threshold=threshold,
                         fingerprint="test:0", model="test", meta={})  # fmt: skip


def test_the_shipped_weights_load_are_384_dimensional_and_a_few_kb():
    classifier = dc.load_weights()
    assert classifier.dims == 384 and classifier.model == "all-MiniLM-L6-v2"
    assert classifier.fingerprint.startswith("all-MiniLM-L6-v2:")
    assert 0.5 <= classifier.threshold <= 1.0  # the training never ships a threshold under its floor
    assert {"trained_at", "corpus_sha256", "training_items_sha256", "excluded_splits", "command", "l2"} <= set(
        classifier.meta)
    assert dc.DEFAULT_PATH.stat().st_size < 8_000
    assert all(float(f"{w:.4g}") == w for w in classifier.weights)  # 4 significant digits, as shipped


def test_probability_is_the_logistic_of_the_dot_product():
    classifier = _classifier([1.0, -2.0, 0.5], bias=-0.25)
    vector = np.array([0.6, 0.0, 0.8])
    assert dc.probability(vector, classifier) == pytest.approx(1 / (1 + math.exp(-(0.6 + 0.4 - 0.25))))
    assert dc.probability(np.zeros(3), _classifier([1, 1, 1], bias=-800.0)) == 0.0  # no overflow warning
    with pytest.raises(ValueError):
        dc.probability(np.zeros(4), classifier)


def test_a_unit_vector_gets_a_probability_from_the_shipped_weights():
    classifier = dc.load_weights()
    vector = np.random.default_rng(0).standard_normal(384)
    assert 0.0 <= dc.probability(vector / np.linalg.norm(vector), classifier) <= 1.0


VERDICTS = st.sampled_from([
    Verdict("allow"), Verdict("hold", ("standing_order",), "held"), Verdict("refuse", ("ignore_previous",), "bad"),
])  # fmt: skip


@given(VERDICTS, st.floats(0, 1), st.floats(0.01, 1.5))
def test_combine_never_weakens_the_rules_and_holds_exactly_at_the_threshold(verdict, p, threshold):
    settings = _classifier([0.0], threshold=threshold)
    combined = dc.combine(verdict, p, settings)
    if verdict.action != "allow":
        assert combined is verdict  # a rule's hold or refusal passes untouched, whatever the probability
    elif p >= threshold:
        assert combined.action == "hold" and combined.rules == ("learned_directive",) and combined.reason
    else:
        assert combined is verdict


def test_combine_is_allowed_at_nan_and_held_at_the_threshold_itself():
    settings = _classifier([0.0], threshold=0.8)
    assert dc.combine(Verdict("allow"), float("nan"), settings).action == "allow"
    assert dc.combine(Verdict("allow"), 0.8, settings).action == "hold"
    assert dc.combine(Verdict("allow"), 0.7999, settings).action == "allow"


@pytest.mark.parametrize("change", [
    lambda raw: raw.pop("weights"), lambda raw: raw.update(dims=383), lambda raw: raw.update(threshold=0),
    lambda raw: raw.update(bias=float("nan")), lambda raw: raw.update(format=99), lambda raw: raw.update(dims="x"),
])  # fmt: skip
def test_a_damaged_weights_file_is_refused_with_one_error_class(tmp_path, change):
    raw = json.loads(dc.DEFAULT_PATH.read_text(encoding="utf-8"))
    change(raw)
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(dc.ClassifierUnavailable):
        dc.load_weights(path)
    with pytest.raises(dc.ClassifierUnavailable):
        dc.load_weights(tmp_path / "missing.json")
