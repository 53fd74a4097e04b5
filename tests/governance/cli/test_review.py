"""`tideline review list|show|decide|undo` (governance/cli/review.py)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from governance.models import ReviewItem
from governance.services.contradictions import find_contradictions
from memory.management.commands.tideline import subcommands
from memory.models import Fact, MemoryEvent
from memory.tideline import Tideline
from tests.personas import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def item(workspace):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    find_contradictions(workspace)
    return ReviewItem.objects.get(workspace=workspace)


def _run(capsys, *args):
    call_command("tideline", "review", *args)
    return capsys.readouterr().out


def _json(capsys, *args):
    return json.loads(_run(capsys, *args, "--json"))


def _refused(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "review", *args, "--json")
    assert exit_.value.code == 2
    return json.loads(capsys.readouterr().out)["error"]


def test_registered_by_governance():
    assert subcommands()["review"].__name__ == "governance.cli.review"


def test_list_filters_by_kind_and_status(item, workspace, capsys):
    listed = _json(capsys, "list", "--workspace", workspace.name)
    assert listed["total"] == 1 and listed["items"][0]["id"] == item.pk
    assert listed["items"][0]["kind"] == "contradiction" and listed["items"][0]["status"] == "open"
    assert _json(capsys, "list", "--workspace", workspace.name, "--kind", "quarantine")["total"] == 0
    assert _json(capsys, "list", "--workspace", workspace.name, "--status", "resolved")["total"] == 0
    assert f"#{item.pk} contradiction open" in _run(capsys, "list", "--workspace", workspace.name)


def test_show_gives_both_facts(item, workspace, capsys):
    shown = _json(capsys, "show", str(item.pk), "--workspace", workspace.name)
    assert shown["fact"]["content"] == "I live in Bangalore now"
    assert shown["other_fact"]["content"] == "I live in Hyderabad"
    assert shown["reason"] == item.reason and shown["status"] == "open" and "score" in shown["details"]
    human = _run(capsys, "show", str(item.pk), "--workspace", workspace.name)
    assert "I live in Bangalore now" in human and "I live in Hyderabad" in human


def test_decide_then_undo(item, workspace, capsys):
    decided = _json(capsys, "decide", str(item.pk), "supersede", "--workspace", workspace.name, "--reason", "moved")
    assert (decided["status"], decided["verdict"]) == ("resolved", "supersede")
    assert Fact.objects.get(pk=item.other_fact_id).lifecycle == "archived"
    event = MemoryEvent.objects.get(workspace=workspace, data__review_action="decided")
    assert (event.actor, event.reason) == ("cli:review", "moved")
    again = _refused(capsys, "decide", str(item.pk), "supersede", "--workspace", workspace.name)
    assert again["kind"] == "conflict" and "already decided" in again["message"]
    undone = _json(capsys, "undo", str(item.pk), "--workspace", workspace.name)
    assert (undone["status"], undone["verdict"]) == ("open", None)
    assert Fact.objects.get(pk=item.other_fact_id).lifecycle == "active"
    assert _run(capsys, "decide", str(item.pk), "dismiss", "--workspace", workspace.name).startswith(f"review #{item.pk}: dismiss")


@pytest.mark.parametrize("args, kind", [
    (("show", "999999"), "not_found"),
    (("show", "x"), "not_found"),
    (("decide", "999999", "dismiss"), "not_found"),
    (("show",), "usage"),
    (("decide", "ITEM"), "usage"),
    (("decide", "ITEM", "approve"), "validation"),
    (("undo", "ITEM"), "conflict"),
])  # fmt: skip
def test_bad_input_is_a_json_error_with_exit_2(item, workspace, capsys, args, kind):
    args = tuple(str(item.pk) if a == "ITEM" else a for a in args)
    assert _refused(capsys, *args, "--workspace", workspace.name)["kind"] == kind
    item.refresh_from_db()
    assert item.status == "open"


def test_unknown_workspace(db, capsys):
    assert _refused(capsys, "list", "--workspace", "nowhere")["kind"] == "not_found"


def _promotion(workspace, author="user:pat"):
    result = Tideline(workspace, actor=author).add("The client's legal name is Ana Ribeiro.", segment="identity",
                                                   origin="channel:slack/general/s1")  # fmt: skip
    return ReviewItem.objects.get(pk=result.review_item_id), result


def _user(workspace, name, role):
    return make_user(name, role, workspace=workspace)


def test_a_durable_promotion_is_decided_by_a_named_approver_who_did_not_write_it(capsys, workspace):
    item, held = _promotion(workspace)
    _user(workspace, "pat", "approver")
    _user(workspace, "quinn", "approver")
    _user(workspace, "olga", "owner")
    assert "--as" in _refused(capsys, "decide", str(item.pk), "approve", "--workspace", workspace.name)["message"]
    assert "may not decide" in _refused(capsys, "decide", str(item.pk), "approve", "--workspace", workspace.name,
                                        "--as", "olga")["message"]  # fmt: skip
    assert "another approver" in _refused(capsys, "decide", str(item.pk), "approve", "--workspace", workspace.name,
                                          "--as", "pat")["message"]  # fmt: skip
    assert Fact.objects.get(memory_id=held.id).lifecycle == "held"
    out = _json(capsys, "decide", str(item.pk), "approve", "--workspace", workspace.name, "--as", "quinn")
    assert out["status"] == "resolved" and out["verdict"] == "approve"
    assert Fact.objects.get(memory_id=held.id).lifecycle == "active"
    event = MemoryEvent.objects.get(workspace=workspace, kind="reviewed")
    assert (event.actor, event.data["reviewer"]) == ("user:quinn", "user:quinn")


def test_review_settings_show_and_change_with_an_event(capsys, workspace):
    shown = _json(capsys, "settings", "--workspace", workspace.name)
    assert shown["settings"] == {"hold_durable_promotions": True, "hold_confined_writes": False, "review_daily_cap": 50}
    changed = _json(capsys, "settings", "--workspace", workspace.name, "--hold-promotions", "off")
    assert changed["settings"]["hold_durable_promotions"] is False and changed["changed"] == ["hold_durable_promotions"]
    event = MemoryEvent.objects.get(workspace=workspace, kind="settings_changed")
    assert event.data == {"before": {"hold_durable_promotions": True}, "after": {"hold_durable_promotions": False}}
    assert "off  hold_durable_promotions" in _run(capsys, "settings", "--workspace", workspace.name)


def test_the_daily_cap_is_a_bounded_whole_number(capsys, workspace):
    assert _json(capsys, "settings", "--workspace", workspace.name, "--daily-cap", "5")["settings"]["review_daily_cap"] == 5
    assert "whole number" in _refused(capsys, "settings", "--workspace", workspace.name, "--daily-cap", "-1")["message"]
    workspace.refresh_from_db()
    assert workspace.review_daily_cap == 5
