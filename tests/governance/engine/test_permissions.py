"""The verb → roles table: what each role may do, and the words of a refusal."""

from __future__ import annotations

import pytest

from governance.engine import permissions
from governance.engine.verdicts import DECIDERS_BY_KIND, may_decide
from governance.services.acting import Actor, acting_name, event_actor


@pytest.mark.parametrize("verb", ["purge", "shred", "export", "import", "manage_members", "manage_tokens",
                                  "manage_retention", "review_settings"])  # fmt: skip
def test_destroying_exporting_and_running_the_workspace_are_the_admins(verb):
    assert permissions.roles_for(verb) == ("admin",)
    assert not permissions.allows({"owner", "approver"}, verb)
    assert permissions.allows({"owner", "admin"}, verb)


def test_owners_propose_and_make_gold_approvers_decide_and_approve_every_member_carries_out():
    assert permissions.allows({"owner"}, "propose") and not permissions.allows({"approver"}, "propose")
    assert permissions.allows({"approver"}, "decide_proposal") and not permissions.allows({"owner"}, "decide_proposal")
    assert permissions.allows({"owner"}, "edit_gold") and not permissions.allows({"approver"}, "edit_gold")
    assert permissions.allows({"approver"}, "approve_gold") and not permissions.allows({"owner"}, "approve_gold")
    for verb in ("evaluate_proposal", "apply_proposal", "revert_proposal", "score_gold"):
        assert all(permissions.allows({role}, verb) for role in ("owner", "approver", "admin"))


def test_the_review_queue_reads_the_same_table():
    expected = {"contradiction": frozenset({"owner", "admin"}), "quarantine": frozenset({"owner", "admin"}),
                "promotion": frozenset({"approver", "admin"})}  # fmt: skip
    assert expected == DECIDERS_BY_KIND
    assert may_decide({"approver"}, "promotion") and not may_decide({"approver"}, "contradiction")


def test_a_refusal_names_the_roles_in_order():
    assert permissions.refusal("propose", "propose changes") == "only owners or admins may propose changes"
    assert permissions.refusal("apply_proposal", "apply proposals") == (
        "only owners or approvers or admins may apply proposals")


def test_an_actor_is_spelled_as_the_event_log_spells_it():
    assert str(Actor("user", "ada")) == "user:ada" and str(Actor.cli("shred")) == "cli:shred"
    assert Actor.of("task:retention") == Actor("task", "retention") and str(Actor.of("t")) == "t"
    assert acting_name(None, Actor("user", "ada")) == "ada" and acting_name(None, Actor.cli("gold")) == "cli:gold"
    assert event_actor(Actor("user", "ada")) == "user:ada" and event_actor("ada") == "user:ada"
