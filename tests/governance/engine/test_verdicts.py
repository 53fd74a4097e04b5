"""The verdict rules without a database (governance/engine/verdicts.py)."""

from __future__ import annotations

import pytest

from governance.engine.verdicts import (
    ItemFacts,
    VerdictRefused,
    check_author,
    check_undo,
    may_decide,
    plan_verdict,
)

NOW = "2026-11-23T20:00:00+00:00"


def _item(kind="contradiction", status="open", held=False, lifecycles=("active", "active"), other="old", replaces=()):
    return ItemFacts(kind=kind, status=status, fact_id="new", other_id=other,
                     fact_lifecycle="held" if held else lifecycles[0],
                     other_lifecycle=lifecycles[1] if other else None, replaces=replaces)  # fmt: skip


def test_supersede_archives_the_other_with_valid_to_and_links_from_the_winner():
    plan = plan_verdict(_item(), "supersede", now=NOW)
    assert plan.states == {"old": {"lifecycle": "archived", "valid_to": NOW, "archived_at": NOW}}
    assert plan.links == (("new", "supersedes", "old", ""), ("new", "transition", "old", ""))
    assert plan.item_status == "resolved"


def test_coexist_links_relates_with_the_note():
    plan = plan_verdict(_item(), "coexist", note="different cities for work and home", now=NOW)
    assert plan.states == {} and plan.links == (("new", "relates", "old", "different cities for work and home"),)
    assert plan_verdict(_item(), "coexist", now=NOW).links[0][3]  # a note even when none was given


def test_block_rejects_the_fact_under_review():
    plan = plan_verdict(_item(), "block", now=NOW)
    assert plan.states == {"new": {"lifecycle": "archived", "status": "retracted", "archived_at": NOW}}
    assert plan.links == () and plan.item_status == "resolved"


def test_dismiss_changes_nothing_but_the_item():
    plan = plan_verdict(_item(), "dismiss", now=NOW)
    assert (plan.states, plan.links, plan.item_status) == ({}, (), "dismissed")


@pytest.mark.parametrize("verdict", ["supersede", "coexist", "dismiss"])
def test_every_verdict_but_block_admits_a_held_write(verdict):
    plan = plan_verdict(_item(kind="quarantine", held=True), verdict, now=NOW)
    assert plan.states["new"] == {"lifecycle": "active", "admitted_at": NOW}


def test_a_blocked_held_write_stays_out():
    plan = plan_verdict(_item(kind="quarantine", held=True), "block", now=NOW)
    assert plan.states["new"]["lifecycle"] == "archived" and plan.states["new"]["status"] == "retracted"


@pytest.mark.parametrize("item, verdict, kind", [
    (_item(), "approve", "validation"),
    (_item(kind="durable"), "supersede", "validation"),
    (_item(kind="promotion", held=True), "supersede", "validation"),
    (_item(lifecycles=("archived", "active")), "block", "conflict"),
    (_item(kind="quarantine", held=True, lifecycles=("held", "archived")), "coexist", "conflict"),
    (_item(status="resolved"), "supersede", "conflict"),
    (_item(status="dismissed"), "dismiss", "conflict"),
    (_item(lifecycles=("active", "archived")), "supersede", "conflict"),
])  # fmt: skip
def test_refusals(item, verdict, kind):
    with pytest.raises(VerdictRefused) as refused:
        plan_verdict(item, verdict, now=NOW)
    assert refused.value.kind == kind and refused.value.message


def test_undo_needs_a_decision_and_unchanged_facts():
    decision = {"after": {"old": {"lifecycle": "archived"}}}
    check_undo("resolved", decision, {"old": {"lifecycle": "archived", "status": None}})
    for status, current in [("open", {"old": {"lifecycle": "archived"}}), ("resolved", {"old": {"lifecycle": "active"}}),
                            ("resolved", {})]:  # fmt: skip
        with pytest.raises(VerdictRefused):
            check_undo(status, decision, current)


def test_owners_and_admins_decide_contradictions_and_held_writes():
    for kind in ("contradiction", "quarantine"):
        assert may_decide({"owner"}, kind) and may_decide({"admin", "viewer"}, kind)
        assert not may_decide({"viewer"}, kind) and not may_decide(set(), kind) and not may_decide({"approver"}, kind)
    assert not may_decide({"owner"}, "unknown")


def test_approving_a_promotion_admits_it_and_supersedes_what_it_corrects():
    plan = plan_verdict(_item(kind="promotion", held=True, replaces=("old", "older")), "approve", now=NOW)
    assert plan.states["new"] == {"lifecycle": "active", "admitted_at": NOW}
    assert {mid for mid, state in plan.states.items() if state.get("lifecycle") == "archived"} == {"old", "older"}
    assert ("new", "supersedes", "older", "") in plan.links and plan.item_status == "resolved"
    alone = plan_verdict(_item(kind="promotion", held=True, other=None), "approve", now=NOW)
    assert alone.states == {"new": {"lifecycle": "active", "admitted_at": NOW}} and alone.links == ()


def test_a_held_write_may_be_blocked_or_dismissed_after_its_slot_holder_moved_on():
    item = _item(kind="quarantine", held=True, lifecycles=("held", "archived"))
    assert plan_verdict(item, "block", now=NOW).states["new"]["status"] == "retracted"
    assert plan_verdict(item, "dismiss", now=NOW).states["new"]["lifecycle"] == "active"


def test_approvers_and_admins_decide_promotions_but_never_their_own():
    assert may_decide({"approver"}, "promotion") and may_decide({"admin"}, "promotion")
    assert not may_decide({"owner"}, "promotion")
    check_author("promotion", "user:pat", "user:quinn")
    check_author("contradiction", "user:pat", "user:pat")  # only promotions need a second person
    with pytest.raises(VerdictRefused) as refused:
        check_author("promotion", "user:pat", "user:pat")
    assert refused.value.kind == "forbidden"
