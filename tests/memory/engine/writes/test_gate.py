"""The provenance write gate (ENGINE-SPEC §2 step 3; Decisions 2, 3 and 5) and the typed errors."""

from __future__ import annotations

import dataclasses

import pytest

from memory.engine.writes.gate import (
    Allow,
    Block,
    Confine,
    FactValidationError,
    MemoryThreatError,
    TargetFact,
    TidelineError,
    UnworthyFactError,
    WriteGateError,
    confine_untrusted_segment,
    evaluate_write_gate,
)

TRUSTED = [None, "user_instruction", "owner_message", "channel_message", "dream"]
UNTRUSTED = ["tool_output", "retrieved_document", "compaction", "extraction"]
PROTECTED = ["identity", "preference", "correction"]
OPEN = ["knowledge", "context", "project", "relationship"]

OWNER_FACT = ("mem_owner1", "owner_message", "owner")
LEGACY_FACT = ("mem_legacy", None, "owner")
TOOL_FACT = ("mem_tool1", "tool_output", "owner")


# ---------------------------------------------------------------- trusted writers


@pytest.mark.parametrize("source_type", TRUSTED)
@pytest.mark.parametrize("segment", PROTECTED)
def test_a_trusted_writer_may_write_a_protected_segment(source_type, segment):
    """BEHAVIOURS 8."""
    decision = evaluate_write_gate(segment=segment, source_type=source_type)
    assert isinstance(decision, Allow) and decision.segment == segment


@pytest.mark.parametrize("source_type", TRUSTED)
def test_a_trusted_writer_may_supersede_an_owner_fact(source_type):
    """BEHAVIOURS 8."""
    decision = evaluate_write_gate(
        segment="preference", source_type=source_type, supersede_targets=[OWNER_FACT]
    )
    assert isinstance(decision, Allow)


def test_an_allowed_write_gets_its_segment_defaults():
    """BEHAVIOURS 1–2: identity defaults to permanent and 0.85; an importance override is clamped."""
    assert evaluate_write_gate(segment="identity") == Allow("identity", "permanent", 0.85, None)
    assert evaluate_write_gate(segment="knowledge", importance=5).importance == 1.0
    assert evaluate_write_gate(segment="knowledge", importance=float("nan")).importance == 0.6


def test_a_trusted_writer_keeps_its_tier_status_and_importance():
    decision = evaluate_write_gate(
        segment="knowledge",
        source_type="owner_message",
        tier="permanent",
        status="confirmed",
        importance=0.95,
    )
    assert decision == Allow("knowledge", "permanent", 0.95, "confirmed")


# ---------------------------------------------------------------- segment protection


@pytest.mark.parametrize("source_type", UNTRUSTED)
@pytest.mark.parametrize("segment", PROTECTED)
def test_an_untrusted_writer_is_denied_the_authoritative_segments(source_type, segment):
    """BEHAVIOURS 9, 12 and 13: the reason names the authoritative segments."""
    decision = evaluate_write_gate(segment=segment, source_type=source_type)
    assert isinstance(decision, Block)
    assert (decision.kind, decision.rule) == ("write_gate", "segment_protection")
    assert "authoritative segments" in decision.reason
    assert decision.message == "memory write blocked: " + decision.reason


@pytest.mark.parametrize("source_type", UNTRUSTED)
@pytest.mark.parametrize("segment", OPEN)
def test_an_untrusted_writer_may_write_the_descriptive_segments(source_type, segment):
    """BEHAVIOURS 9."""
    decision = evaluate_write_gate(segment=segment, source_type=source_type)
    assert isinstance(decision, Allow) and decision.segment == segment


def test_a_distillers_protected_proposal_is_confined_to_knowledge():
    """ENGINE-SPEC §2 step 3: an honest extraction is kept as evidence instead of refused."""
    decision = evaluate_write_gate(segment="preference", source_type="extraction", distiller=True)
    assert isinstance(decision, Confine)
    assert (decision.segment, decision.rules) == ("knowledge", ("segment_protection",))
    assert (decision.tier, decision.importance) == ("long", 0.6)  # knowledge defaults, not preference's
    assert "authoritative segments" in decision.reason
    assert not decision.drop_subject_key and decision.contradicts == ()


def test_a_distillers_identity_proposal_loses_the_permanent_tier_it_would_have_had():
    decision = evaluate_write_gate(
        segment="identity", source_type="compaction", tier="permanent", distiller=True
    )
    assert isinstance(decision, Confine) and decision.tier == "long"


def test_the_distiller_flag_changes_nothing_for_a_trusted_writer():
    """ENGINE-SPEC §13.15: a peer's distilled preference is a preference in the peer's own scope."""
    decision = evaluate_write_gate(segment="preference", source_type="channel_message", distiller=True)
    assert isinstance(decision, Allow) and decision.segment == "preference"


@pytest.mark.parametrize(
    ("source_type", "segment", "expected"),
    [
        ("extraction", "preference", "knowledge"),
        ("extraction", "context", "context"),
        (None, "preference", "preference"),
        ("tool_output", "correction", "knowledge"),
        ("owner_message", "identity", "identity"),
        ("made_up_source", "identity", "knowledge"),  # not known to be trusted: confined
    ],
)
def test_confine_untrusted_segment_moves_only_untrusted_protected_segments(source_type, segment, expected):
    """BEHAVIOURS 11."""
    assert confine_untrusted_segment(source_type, segment) == expected


# ---------------------------------------------------------------- supersede protection


@pytest.mark.parametrize("source_type", UNTRUSTED)
@pytest.mark.parametrize("target", [OWNER_FACT, LEGACY_FACT], ids=["owner_message", "legacy"])
def test_an_untrusted_writer_may_not_supersede_an_owner_fact(source_type, target):
    """BEHAVIOURS 10 and 12: the reason says "supersede owner-authored" and names the fact."""
    decision = evaluate_write_gate(segment="knowledge", source_type=source_type, supersede_targets=[target])
    assert isinstance(decision, Block) and decision.rule == "supersede_protection"
    assert "supersede owner-authored" in decision.reason and target[0] in decision.reason


def test_an_untrusted_writer_may_supersede_its_own_untrusted_fact():
    """BEHAVIOURS 10."""
    decision = evaluate_write_gate(
        segment="knowledge", source_type="tool_output", supersede_targets=[TOOL_FACT]
    )
    assert isinstance(decision, Allow)


def test_a_target_of_another_origin_is_ignored_as_the_store_ignores_it():
    peer_fact = ("mem_peer", "owner_message", 'channel:["wa","","c1","s1"]')
    decision = evaluate_write_gate(
        segment="knowledge", source_type="tool_output", supersede_targets=[peer_fact]
    )
    assert isinstance(decision, Allow)


def test_a_target_with_an_unknown_source_type_is_protected_like_a_trusted_one():
    odd = ("mem_odd", "imported_from_elsewhere", "owner")
    decision = evaluate_write_gate(segment="knowledge", source_type="extraction", supersede_targets=[odd])
    assert isinstance(decision, Block) and decision.rule == "supersede_protection"


def test_a_distiller_that_supersedes_an_owner_fact_is_blocked_not_confined():
    decision = evaluate_write_gate(
        segment="correction", source_type="extraction", distiller=True, supersede_targets=[OWNER_FACT]
    )
    assert isinstance(decision, Block) and decision.rule == "supersede_protection"


def test_targets_may_be_given_as_named_tuples_or_plain_tuples():
    named = TargetFact("mem_owner1", "owner_message", "owner")
    assert evaluate_write_gate(segment="knowledge", source_type="tool_output", supersede_targets=[named]) == (
        evaluate_write_gate(segment="knowledge", source_type="tool_output", supersede_targets=[OWNER_FACT])
    )


# ---------------------------------------------------------------- slot protection (Decision 5)


def test_an_untrusted_value_for_a_slot_holding_an_owner_value_is_confined_and_opens_a_review():
    """BEHAVIOURS 26, with Decision 5: the trusted prior stays, and the slot keeps a single value."""
    decision = evaluate_write_gate(segment="project", source_type="tool_output", slot_holders=[OWNER_FACT])
    assert isinstance(decision, Confine)
    assert (decision.segment, decision.rules) == ("knowledge", ("slot_protection",))
    assert decision.drop_subject_key and decision.contradicts == ("mem_owner1",)


def test_an_untrusted_value_may_replace_an_untrusted_value_in_its_slot():
    decision = evaluate_write_gate(segment="project", source_type="tool_output", slot_holders=[TOOL_FACT])
    assert isinstance(decision, Allow) and decision.segment == "project"


def test_a_slot_value_of_another_origin_does_not_confine():
    """BEHAVIOURS 25: slots are per origin."""
    peer_value = ("mem_peer", "channel_message", 'channel:["wa","","c1","s1"]')
    decision = evaluate_write_gate(segment="project", source_type="tool_output", slot_holders=[peer_value])
    assert isinstance(decision, Allow)


def test_both_confinements_are_reported_together():
    decision = evaluate_write_gate(
        segment="preference", source_type="extraction", distiller=True, slot_holders=[OWNER_FACT]
    )
    assert isinstance(decision, Confine)
    assert decision.rules == ("segment_protection", "slot_protection")


# ---------------------------------------------------------------- untrusted claims are capped (Decision 3)


def test_an_untrusted_writer_cannot_make_a_fact_permanent_confirmed_or_more_important():
    decision = evaluate_write_gate(
        segment="knowledge",
        source_type="retrieved_document",
        tier="permanent",
        status="confirmed",
        importance=0.99,
    )
    assert isinstance(decision, Allow)
    assert (decision.tier, decision.status, decision.importance) == ("long", None, 0.6)
    assert len(decision.notes) == 3
    assert any("permanent" in note for note in decision.notes)


def test_an_untrusted_writer_keeps_claims_within_its_segment_defaults():
    decision = evaluate_write_gate(
        segment="context", source_type="tool_output", tier="long", status="provisional", importance=0.1
    )
    assert decision == Allow("context", "long", 0.1, "provisional")


# ---------------------------------------------------------------- fail closed (Decision 2)


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"segment": "knowledge", "source_type": "web_scrape"}, "unknown_source_type"),
        ({"segment": "opinions"}, "unknown_segment"),
        ({"segment": "knowledge", "tier": "forever"}, "unknown_tier"),
        ({"segment": "knowledge", "status": "certain"}, "unknown_status"),
    ],
)
def test_an_unknown_value_is_a_validation_error_not_a_trusted_default(fields, rule):
    """Decision 2 (ENGINE-SPEC §13.6)."""
    decision = evaluate_write_gate(**fields)
    assert isinstance(decision, Block)
    assert (decision.kind, decision.rule) == ("validation", rule)
    error = decision.to_error()
    assert isinstance(error, FactValidationError) and isinstance(error, ValueError)
    assert error.kind == "validation" and error.rules == (rule,)


def test_an_unknown_source_type_is_refused_even_into_an_open_segment():
    decision = evaluate_write_gate(segment="context", source_type="Tool_Output")
    assert isinstance(decision, Block) and decision.kind == "validation"


# ---------------------------------------------------------------- decisions and errors


def test_a_gate_block_becomes_a_write_gate_error():
    decision = evaluate_write_gate(segment="identity", source_type="tool_output")
    error = decision.to_error()
    assert isinstance(error, WriteGateError)
    assert error.message == decision.message and str(error) == decision.message
    assert error.to_dict() == {
        "kind": "write_gate",
        "message": decision.message,
        "rules": ["segment_protection"],
    }
    assert WriteGateError.code == "write_gate_blocked"


def test_decisions_are_frozen_and_say_their_action():
    decision = evaluate_write_gate(segment="knowledge")
    assert (Allow.action, Confine.action, Block.action) == ("allow", "confine", "block")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.segment = "identity"  # type: ignore[misc]


def test_a_threat_error_names_its_rules_like_the_original():
    """BEHAVIOURS 15: `memory:threat`, with the matched ids."""
    error = MemoryThreatError.for_rules(["ignore_instructions", "invisible_unicode"])
    assert error.message == "memory content matched threat pattern(s): ignore_instructions, invisible_unicode"
    assert error.threats == ["ignore_instructions", "invisible_unicode"]
    assert (error.kind, error.code) == ("threat", "memory:threat")


@pytest.mark.parametrize(
    ("error_class", "kind"),
    [
        (WriteGateError, "write_gate"),
        (MemoryThreatError, "threat"),
        (UnworthyFactError, "unworthy"),
        (FactValidationError, "validation"),
    ],
)
def test_every_refusal_is_a_tideline_error_with_a_kind(error_class, kind):
    error = error_class("refused", ["some_rule"])
    assert isinstance(error, TidelineError) and error.kind == kind
    assert error.to_dict() == {"kind": kind, "message": "refused", "rules": ["some_rule"]}
