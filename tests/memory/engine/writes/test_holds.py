"""Which writes wait for a reviewer (memory.engine.writes.holds): pure rules, no database."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memory.engine.facts import records as R
from memory.engine.writes import holds

PLAIN = {"tier": "long", "classification": "INTERNAL", "segment": "knowledge", "corrects": False,
         "confined": False, "disputes_trusted_slot": False}  # fmt: skip


def test_an_owner_write_is_never_a_durable_promotion():
    for tier in R.TIERS:
        assert holds.hold_for_review(owner_origin=True, **{**PLAIN, "tier": tier, "classification": "PII",
                                                           "corrects": True}) is None  # fmt: skip


def test_a_peer_write_is_held_for_permanence_personal_data_or_a_correction():
    assert holds.hold_for_review(owner_origin=False, **PLAIN) is None
    permanent = holds.hold_for_review(owner_origin=False, **{**PLAIN, "tier": "permanent"})
    pii = holds.hold_for_review(owner_origin=False, **{**PLAIN, "classification": "PII"})
    correction = holds.hold_for_review(owner_origin=False, **{**PLAIN, "corrects": True})
    segment = holds.hold_for_review(owner_origin=False, **{**PLAIN, "segment": "correction"})
    assert [h.rules for h in (permanent, pii, correction, segment)] == [
        ("permanent_from_peer",), ("pii_from_peer",), ("correction_from_peer",), ("correction_from_peer",)]
    assert {h.kind for h in (permanent, pii, correction, segment)} == {holds.PROMOTION}
    assert "approver" in permanent.reason


def test_the_workspace_may_turn_durable_promotions_off():
    off = holds.HoldSettings(hold_durable_promotions=False)
    assert holds.hold_for_review(owner_origin=False, **{**PLAIN, "tier": "permanent"}, settings=off) is None


def test_an_untrusted_value_disputing_an_owner_slot_is_always_held():
    hold = holds.hold_for_review(owner_origin=True, **{**PLAIN, "confined": True, "disputes_trusted_slot": True},
                                 gate_reason="the slot holds owner-authored mem_1",
                                 settings=holds.HoldSettings(False, False))  # fmt: skip
    assert (hold.kind, hold.rules, hold.reason) == (holds.QUARANTINE, ("slot_protection",), "the slot holds owner-authored mem_1")


def test_a_confined_write_is_held_only_when_the_workspace_asks():
    confined = {**PLAIN, "confined": True}
    assert holds.hold_for_review(owner_origin=True, **confined) is None
    held = holds.hold_for_review(owner_origin=True, **confined, settings=holds.HoldSettings(hold_confined_writes=True))
    assert held.kind == holds.QUARANTINE and held.rules == ("confined_write",)


@given(tier=st.sampled_from(R.TIERS), classification=st.sampled_from(R.CLASSIFICATIONS),
       segment=st.sampled_from(R.SEGMENTS), corrects=st.booleans())  # fmt: skip
def test_a_peer_write_is_held_exactly_when_one_promotion_rule_applies(tier, classification, segment, corrects):
    hold = holds.hold_for_review(owner_origin=False, tier=tier, classification=classification, segment=segment,
                                 corrects=corrects, confined=False, disputes_trusted_slot=False)  # fmt: skip
    expected = tier == "permanent" or classification == "PII" or corrects or segment == "correction"
    assert (hold is not None) == expected


def test_a_person_correcting_a_peers_fact_is_named_in_the_reason_not_the_peer():
    made = holds.hold_for_review(owner_origin=False, **{**PLAIN, "corrects": True, "classification": "PII"},
                                 made_by="made in the console by ada")  # fmt: skip
    assert made.rules == ("pii_from_peer", "correction_from_peer")
    assert "a correction of a channel peer's fact, made in the console by ada" in made.reason
    assert "personal data (PII), in a channel peer's memory, made in the console by ada" in made.reason
    assert "by a channel peer" not in made.reason
    peer = holds.hold_for_review(owner_origin=False, **{**PLAIN, "corrects": True})
    assert peer.reason == "held for an approver: it is a correction by a channel peer"
