"""Record vocabulary and helpers (ENGINE-SPEC §1; BEHAVIOURS A2, B7)."""

from __future__ import annotations

import math

import pytest

from memory.engine.facts import records as R


def test_clamp_importance_clamps_and_falls_back():
    """A2."""
    assert R.clamp_importance(5, 0.5) == 1.0
    assert R.clamp_importance(-1, 0.5) == 0.0
    assert R.clamp_importance(None, 0.5) == 0.5
    assert R.clamp_importance(math.nan, 0.7) == 0.7
    assert R.clamp_importance(True, 0.7) == 0.7


def test_memory_ids_differ_and_follow_the_original_shape():
    """A2."""
    first, second = R.make_memory_id(), R.make_memory_id()
    assert first != second and first.startswith("mem_") and second.startswith("mem_")
    assert all(part.isalnum() for part in first.split("_"))


@pytest.mark.parametrize("source", ["tool_output", "retrieved_document", "compaction", "extraction"])
def test_the_four_untrusted_sources(source):
    """B7."""
    assert R.is_untrusted_source(source) and R.trust_class(source) == "untrusted"


@pytest.mark.parametrize("source", ["owner_message", "user_instruction", "channel_message", "dream", None])
def test_everything_else_is_trusted(source):
    """B7: absent (legacy) is trusted."""
    assert not R.is_untrusted_source(source) and R.trust_class(source) == "trusted"


@pytest.mark.parametrize("raw", ["Home City", "home-city", "home_city", "  HOME   city  ", "_home city_"])
def test_subject_keys_normalise_to_one_slot(raw):
    """C22."""
    assert R.normalize_subject_key(raw) == "home_city"


def test_blank_subject_keys_are_no_slot():
    assert R.normalize_subject_key("   ") is None and R.normalize_subject_key(None) is None


def test_normalised_content_ignores_case_spacing_and_final_full_stop():
    assert R.normalize_for_hash("I like tea.") == R.normalize_for_hash("i  like TEA")
    assert R.normalize_for_hash("I like tea?") != R.normalize_for_hash("I like tea")


def test_segment_defaults_match_the_spec_table():
    table = {s: (d.tier, d.importance, d.decay_rate) for s, d in R.SEGMENT_DEFAULTS.items()}
    assert table == {
        "identity": ("permanent", 0.85, 0.01), "correction": ("long", 0.80, 0.015),
        "relationship": ("long", 0.75, 0.02), "preference": ("long", 0.70, 0.02),
        "project": ("long", 0.65, 0.025), "knowledge": ("long", 0.60, 0.03), "context": ("short", 0.40, 0.08),
    }  # fmt: skip
