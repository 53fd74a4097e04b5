"""The contradiction pass with the learned embedder configured (real all-MiniLM-L6-v2 weights).

Vectors are the ones stored at write time; the pass never embeds. Without the embedder the pass is
the model-free detector, whatever vectors are stored."""

from __future__ import annotations

import pytest
from django.test import override_settings

from governance.engine.contradiction_rules import ClaimRecord, find_candidates
from governance.engine.contradiction_vectors import DEFAULT, ranking_score
from governance.models import ReviewItem
from governance.services.contradictions import find_contradictions
from memory.models import FactVector
from memory.services.maintenance.passes import maint_facts
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
WITH_EMBEDDER = override_settings(TIDELINE_EMBEDDER="minilm", TIDELINE_EMBEDDER_PATH="")
NO_EMBEDDER = override_settings(TIDELINE_EMBEDDER="")


def _records(workspace):
    return [ClaimRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                       subject_key=f.subject_key or "", created_ms=int(f.created_at))
            for f in maint_facts(workspace)]  # fmt: skip


def _python_facts(workspace):
    tl = Tideline(workspace)
    dev = tl.add("I'm a Python developer.", segment="identity")
    never = tl.add("I've never written Python.", segment="identity")
    tl.add("I like filter coffee.", segment="preference")
    return dev, never


def test_with_the_embedder_a_negation_on_one_topic_opens_a_review_item(workspace):
    """The rules find this pair too loose (polarity and another word change); the vectors put it on one topic."""
    with WITH_EMBEDDER:
        dev, never = _python_facts(workspace)
        report = find_contradictions(workspace)
    assert report.counts == {"found": 1, "opened": 1, "without_vector": 0}
    item = ReviewItem.objects.get(workspace=workspace, kind="contradiction")
    assert (item.fact.memory_id, item.other_fact.memory_id) == (never.id, dev.id)
    assert item.details["signal"] == "negation" and 0.5 <= item.details["cosine"] <= 1
    assert item.details["score"] <= 0.5  # below every rule verdict
    assert "learned embedder" in item.reason and "python" in item.reason.lower()


def test_without_the_embedder_the_pass_is_model_free_whatever_vectors_are_stored(workspace):
    with WITH_EMBEDDER:
        _python_facts(workspace)
        Tideline(workspace).add("I live in Hyderabad", segment="identity")
        Tideline(workspace).add("I live in Bangalore now", segment="identity")
    assert FactVector.objects.filter(workspace=workspace).count() == 5
    with NO_EMBEDDER:
        report = find_contradictions(workspace)
    assert report.counts == {"found": len(find_candidates(_records(workspace)).candidates), "opened": 1}
    item = ReviewItem.objects.get(workspace=workspace, kind="contradiction")
    assert set(item.details) == {"score", "signal", "trust_mismatch"}  # no cosine, the model-free score
    assert "bangalore" in item.reason.lower()


def test_a_fact_without_a_stored_vector_is_judged_on_words_and_nothing_is_embedded(workspace):
    with NO_EMBEDDER:
        old = Tideline(workspace).add("I live in Hyderabad", segment="identity")  # before the embedder
    with WITH_EMBEDDER:
        new = Tideline(workspace).add("I live in Bangalore now", segment="identity")
        assert FactVector.objects.filter(workspace=workspace).count() == 1
        report = find_contradictions(workspace)
    assert FactVector.objects.filter(workspace=workspace).count() == 1  # the pass read vectors, made none
    assert report.counts == {"found": 1, "opened": 1, "without_vector": 1}
    item = ReviewItem.objects.get(workspace=workspace, kind="contradiction")
    assert (item.fact.memory_id, item.other_fact.memory_id) == (new.id, old.id)
    assert "cosine" not in item.details  # one side has no vector: the rule's own confidence


def test_a_rule_verdict_carries_the_pairs_cosine_in_its_score(workspace):
    with WITH_EMBEDDER:
        Tideline(workspace).add("I live in Hyderabad", segment="identity")
        Tideline(workspace).add("I live in Bangalore now", segment="identity")
        find_contradictions(workspace)
    [rule] = find_candidates(_records(workspace)).candidates
    details = ReviewItem.objects.get(workspace=workspace, kind="contradiction").details
    assert details["signal"] == rule.kind and 0.5 < details["cosine"] < 1
    assert (
        details["score"]
        == ranking_score(rule.confidence, details["cosine"], DEFAULT.weight)
        != rule.confidence
    )
