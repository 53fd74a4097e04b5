"""Verdicts on review items and their undo (governance/services/verdicts.py)."""

from __future__ import annotations

import pytest

from governance.models import ReviewItem
from governance.services.contradictions import find_contradictions
from governance.services.verdicts import decide, undo
from memory.models import Fact, Link, MemoryEvent
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import fact_states
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db

FIELDS = ("lifecycle", "status", "valid_to", "archived_at", "content", "segment", "importance")


def _contradiction(workspace):
    tl = Tideline(workspace)
    old = tl.add("I live in Hyderabad", segment="identity")
    new = tl.add("I live in Bangalore now", segment="identity")
    find_contradictions(workspace)
    return ReviewItem.objects.get(workspace=workspace, kind="contradiction"), new.id, old.id


def _held(workspace):
    tl = Tideline(workspace)
    owner = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    tool = tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    return ReviewItem.objects.get(pk=tool.review_item_id), tool.id, owner.id


def _fact(workspace, memory_id):
    return Fact.objects.get(workspace=workspace, memory_id=memory_id)


def _snapshot(workspace):
    facts = {f.memory_id: tuple(getattr(f, n) for n in FIELDS) for f in Fact.objects.filter(workspace=workspace)}
    links = sorted((link.from_fact.memory_id, link.kind, link.to_fact.memory_id, link.reason)
                   for link in Link.objects.filter(workspace=workspace).select_related("from_fact", "to_fact"))  # fmt: skip
    return facts, links


def _links(workspace):
    return {(link.from_fact.memory_id, link.kind, link.to_fact.memory_id)
            for link in Link.objects.filter(workspace=workspace).select_related("from_fact", "to_fact")}  # fmt: skip


def test_supersede_archives_the_loser_with_valid_to_and_links_the_winner(workspace):
    item, new, old = _contradiction(workspace)
    decide(workspace, item.pk, "supersede", actor="cli:review", reason="moved in 2025")
    loser, winner = _fact(workspace, old), _fact(workspace, new)
    assert loser.lifecycle == "archived" and loser.valid_to is not None and loser.archived_at is not None
    assert winner.lifecycle == "active"
    assert {(new, "supersedes", old), (new, "transition", old)} <= _links(workspace)
    item.refresh_from_db()
    assert item.status == "resolved" and item.resolved_at is not None and item.resolved_by is None
    assert item.details["verdict"] == "supersede" and item.details["decided_by"] == "cli:review"
    assert item.details["verdict_reason"] == "moved in 2025"
    [event] = MemoryEvent.objects.filter(workspace=workspace, data__review_action="decided")
    assert (event.kind, event.actor, event.reason, event.data["reviewer"]) == ("reviewed", "cli:review", "moved in 2025", "cli:review")
    assert event.data["before"][old]["lifecycle"] == "active" and event.data["after"][old]["lifecycle"] == "archived"


def test_coexist_keeps_both_and_links_them_with_the_note(workspace):
    item, new, old = _contradiction(workspace)
    decide(workspace, item.pk, "coexist", actor="cli:review", reason="two homes")
    assert _fact(workspace, new).lifecycle == _fact(workspace, old).lifecycle == "active"
    link = Link.objects.get(workspace=workspace, kind="relates")
    assert (link.from_fact.memory_id, link.to_fact.memory_id, link.reason) == (new, old, "two homes")
    assert find_contradictions(workspace).counts["opened"] == 0  # the pair is never reopened


def test_block_archives_the_fact_under_review_as_rejected(workspace):
    item, new, old = _contradiction(workspace)
    decide(workspace, item.pk, "block", actor="cli:review")
    blocked = _fact(workspace, new)
    assert (blocked.lifecycle, blocked.status) == ("archived", "retracted")
    assert _fact(workspace, old).lifecycle == "active"


def test_dismiss_changes_no_fact(workspace):
    item, _, _ = _contradiction(workspace)
    facts_before, links_before = _snapshot(workspace)
    decide(workspace, item.pk, "dismiss", actor="cli:review", reason="not a conflict")
    assert _snapshot(workspace) == (facts_before, links_before)
    item.refresh_from_db()
    assert item.status == "dismissed"


def test_a_held_write_superseding_is_admitted_and_the_trusted_value_archived(workspace):
    item, held, trusted = _held(workspace)
    assert _fact(workspace, held).lifecycle == "held"
    decide(workspace, item.pk, "supersede", actor="cli:review")
    assert _fact(workspace, held).lifecycle == "active" and _fact(workspace, held).admitted_at is not None
    assert _fact(workspace, trusted).lifecycle == "archived"


def test_a_blocked_held_write_is_rejected(workspace):
    item, held, trusted = _held(workspace)
    decide(workspace, item.pk, "block", actor="cli:review")
    assert (_fact(workspace, held).lifecycle, _fact(workspace, held).status) == ("archived", "retracted")
    assert _fact(workspace, trusted).lifecycle == "active"


@pytest.mark.parametrize("verdict", ["supersede", "coexist", "block", "dismiss"])
@pytest.mark.parametrize("make", [_contradiction, _held])
def test_undo_restores_facts_links_and_item_exactly(workspace, verdict, make):
    item, _, _ = make(workspace)
    before = _snapshot(workspace)
    decide(workspace, item.pk, verdict, actor="cli:review", reason="why not")
    undo(workspace, item.pk, actor="cli:undoer")
    assert _snapshot(workspace) == before
    item.refresh_from_db()
    assert item.status == "open" and item.resolved_at is None and "verdict" not in item.details
    [event] = MemoryEvent.objects.filter(workspace=workspace, data__review_action="undone")
    assert event.actor == "cli:undoer" and event.data["verdict"] == verdict
    decide(workspace, item.pk, verdict, actor="cli:review")  # and it can be decided again


def test_double_submit_is_refused_and_changes_nothing(workspace):
    item, _, _ = _contradiction(workspace)
    decide(workspace, item.pk, "supersede", actor="cli:review")
    state, revision = _snapshot(workspace), workspace.revision
    with pytest.raises(RequestError, match="already decided") as refused:
        decide(workspace, item.pk, "supersede", actor="cli:review")
    assert refused.value.kind == "conflict"
    workspace.refresh_from_db()
    assert _snapshot(workspace) == state and workspace.revision == revision


def test_a_stale_verdict_is_refused(workspace):
    item, new, old = _contradiction(workspace)
    shown = fact_states(workspace, [new, old])
    Fact.objects.filter(workspace=workspace, memory_id=old).update(status="confirmed")
    state = _snapshot(workspace)
    with pytest.raises(RequestError, match="changed since") as refused:
        decide(workspace, item.pk, "supersede", actor="cli:review", expected=shown)
    assert refused.value.kind == "conflict" and _snapshot(workspace) == state
    item.refresh_from_db()
    assert item.status == "open"


def test_a_fact_archived_since_the_item_opened_is_stale(workspace):
    item, new, old = _contradiction(workspace)
    Fact.objects.filter(workspace=workspace, memory_id=old).update(lifecycle="archived")
    with pytest.raises(RequestError, match="changed since") as refused:
        decide(workspace, item.pk, "supersede", actor="cli:review")
    assert refused.value.kind == "conflict"


@pytest.mark.parametrize("item_id", [999999, "abc", None])
def test_an_unknown_item_is_not_found(workspace, item_id):
    with pytest.raises(RequestError) as refused:
        decide(workspace, item_id, "dismiss", actor="cli:review")
    assert refused.value.kind == "not_found"


def test_an_item_of_another_workspace_is_not_found(workspace, django_user_model):
    from memory.services.workspaces import create_workspace

    item, _, _ = _contradiction(workspace)
    other = create_workspace("elsewhere")
    with pytest.raises(RequestError) as refused:
        decide(other, item.pk, "dismiss", actor="cli:review")
    assert refused.value.kind == "not_found"


def test_a_verdict_the_kind_does_not_take_is_a_validation_error(workspace):
    item, _, _ = _contradiction(workspace)
    with pytest.raises(RequestError) as refused:
        decide(workspace, item.pk, "approve", actor="cli:review")
    assert refused.value.kind == "validation"


def test_undo_of_an_open_item_is_refused(workspace):
    item, _, _ = _contradiction(workspace)
    with pytest.raises(RequestError, match="no verdict to undo") as refused:
        undo(workspace, item.pk, actor="cli:review")
    assert refused.value.kind == "conflict"


def test_undo_refuses_when_a_fact_changed_after_the_verdict(workspace):
    item, new, old = _contradiction(workspace)
    decide(workspace, item.pk, "supersede", actor="cli:review")
    Fact.objects.filter(workspace=workspace, memory_id=old).update(lifecycle="active", archived_at=None)
    with pytest.raises(RequestError, match="changed after the verdict"):
        undo(workspace, item.pk, actor="cli:review")
    item.refresh_from_db()
    assert item.status == "resolved"


def test_a_blocked_fact_written_again_is_not_reopened(workspace):
    item, new, old = _contradiction(workspace)
    decide(workspace, item.pk, "block", actor="cli:review")
    again = Tideline(workspace).add("I live in Bangalore now", segment="identity")
    assert again.id != new
    assert find_contradictions(workspace).counts["opened"] == 0
    assert ReviewItem.objects.filter(workspace=workspace, status="open").count() == 0


def test_undo_logs_the_links_it_removes_as_unlinked_with_the_reason(client, owner, workspace):
    item, _, _ = _contradiction(workspace)
    decide(workspace, item.pk, "coexist", actor="cli:review", reason="both true")
    [added] = MemoryEvent.objects.filter(workspace=workspace, kind="linked")
    undo(workspace, item.pk, actor="cli:undoer")
    [removed] = MemoryEvent.objects.filter(workspace=workspace, kind="unlinked")
    assert removed.data["removed"] == added.data["links"] and removed.fact_ids == added.fact_ids
    assert removed.reason == f"review #{item.pk}: undo of coexist"
    assert MemoryEvent.objects.filter(workspace=workspace, kind="linked").count() == 1  # the add only
    client.force_login(owner)
    log = client.get(f"/w/{workspace.name}/events/", {"kind": "unlinked"})
    assert log.status_code == 200 and [e.pk for e in log.context["page"].object_list] == [removed.pk]
    assert f"review #{item.pk}: undo of coexist" in log.content.decode()
