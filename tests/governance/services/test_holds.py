"""Held means not recallable (ENGINE-SPEC Decision 17): a held write waits out of recall until a verdict admits it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from governance.models import ReviewItem
from governance.services.verdicts import decide, undo
from memory.engine.writes.gate import WriteGateError
from memory.models import Fact, MemoryEvent
from memory.services.lifecycle.curation import fact_states
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = "channel:slack/general/s1"


def _ids(hits):
    return [h.id for h in hits]


def _held_slot_write(tl):
    owner = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    held = tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    return owner, held


def test_a_held_write_is_invisible_to_recall_explain_and_context_until_admitted(tl, workspace):
    owner, held = _held_slot_write(tl)
    assert held.outcome == "held" and held.lifecycle == "held" and held.review_item_id
    assert held.id not in _ids(tl.recall("where does the user live Madrid"))
    assert held.id not in _ids(tl.explain("Madrid"))
    assert "Madrid" not in (tl.context("where does the user live Madrid") or "")
    decide(workspace, held.review_item_id, "supersede", actor="user:olga")
    assert held.id in _ids(tl.recall("where does the user live Madrid"))
    assert "Madrid" in tl.context("where does the user live Madrid")
    assert Fact.objects.get(memory_id=owner.id).lifecycle == "archived"
    fact = Fact.objects.get(memory_id=held.id)
    assert fact.lifecycle == "active" and fact.admitted_at is not None


def test_undo_holds_the_write_again_and_recall_forgets_it(tl, workspace):
    _, held = _held_slot_write(tl)
    tl.recall("Madrid")  # warm the index first: the undo must reach a warm index too
    decide(workspace, held.review_item_id, "dismiss", actor="user:olga")
    assert held.id in _ids(tl.recall("Madrid"))
    undo(workspace, held.review_item_id, actor="user:olga")
    fact = Fact.objects.get(memory_id=held.id)
    assert (fact.lifecycle, fact.admitted_at) == ("held", None)
    assert held.id not in _ids(tl.recall("Madrid"))
    assert ReviewItem.objects.get(pk=held.review_item_id).status == "open"


def test_point_in_time_recall_answers_as_it_was_then(tl, workspace):
    _, held = _held_slot_write(tl)
    before_verdict = timezone.now()
    decide(workspace, held.review_item_id, "coexist", actor="user:olga", reason="different sources")
    later = timezone.now() + timedelta(seconds=1)
    assert held.id not in _ids(tl.recall("Madrid", as_of=before_verdict))
    assert held.id in _ids(tl.recall("Madrid", as_of=later))


def test_a_blocked_write_is_never_recalled_and_the_same_words_are_refused_not_queued_again(tl, workspace):
    _, held = _held_slot_write(tl)
    decide(workspace, held.review_item_id, "block", actor="user:olga")
    assert held.id not in _ids(tl.recall("Madrid"))
    assert held.id not in _ids(tl.recall("Madrid", as_of=timezone.now() + timedelta(seconds=1)))
    with pytest.raises(WriteGateError, match="a reviewer blocked this content"):
        tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    assert ReviewItem.objects.filter(workspace=workspace).count() == 1
    assert MemoryEvent.objects.filter(workspace=workspace, kind="blocked").count() == 1


def test_the_same_held_words_written_again_find_the_waiting_item(tl, workspace):
    _, held = _held_slot_write(tl)
    again = tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    assert (again.id, again.outcome, again.review_item_id) == (held.id, "held", held.review_item_id)
    assert ReviewItem.objects.filter(workspace=workspace).count() == 1
    assert Fact.objects.filter(workspace=workspace, lifecycle="held").count() == 1


def test_a_held_fact_is_left_out_of_the_graph_and_agent_exports_but_kept_in_a_full_export(tl, workspace):
    _, held = _held_slot_write(tl)
    from memory.services.maintenance.graph import export_graph

    graph = export_graph(workspace)
    assert held.id not in {node.id for node in graph.nodes}
    exported = {line["memoryId"]: line["lifecycle"] for line in tl.export()}
    assert exported[held.id] == "held"  # a backup keeps it, marked held, so a restore holds it again


# ---------------------------------------------------------------- durable promotions


def test_a_peer_writing_a_permanent_fact_waits_for_an_approver(tl, workspace):
    result = tl.add("The customer's legal name is Ana Ribeiro.", segment="identity", origin=PEER)
    assert result.outcome == "held" and result.tier == "permanent"
    item = ReviewItem.objects.get(pk=result.review_item_id)
    assert (item.kind, item.other_fact, item.details["rules"]) == ("promotion", None, ["permanent_from_peer"])
    assert result.id not in _ids(tl.recall("legal name Ana Ribeiro", origin=PEER))
    with pytest.raises(Exception, match="may decide|is not a verdict"):
        decide(workspace, item.pk, "supersede", actor="user:approver")
    decide(workspace, item.pk, "approve", actor="user:approver")
    assert result.id in _ids(tl.recall("legal name Ana Ribeiro", origin=PEER))


def test_the_author_of_a_promotion_cannot_decide_it(workspace):
    agent = Tideline(workspace, actor="user:pat")
    result = agent.add("Ana's phone number is 555 0100.", segment="knowledge", origin=PEER, classification="PII")
    assert result.outcome == "held"
    with pytest.raises(Exception, match="another approver") as refused:
        decide(workspace, result.review_item_id, "approve", actor="user:pat")
    assert refused.value.kind == "forbidden"
    assert Fact.objects.get(memory_id=result.id).lifecycle == "held"
    decide(workspace, result.review_item_id, "approve", actor="user:quinn")
    assert Fact.objects.get(memory_id=result.id).lifecycle == "active"


def test_a_peers_correction_replaces_nothing_until_approved(tl, workspace):
    first = tl.add("The standup is at 9:30.", segment="project", origin=PEER)
    assert first.outcome == "created"
    correction = tl.add("The standup moved to 10:00.", segment="project", origin=PEER, supersedes=[first.id])
    assert correction.outcome == "held" and not correction.superseded
    assert Fact.objects.get(memory_id=first.id).lifecycle == "active"
    item = ReviewItem.objects.get(pk=correction.review_item_id)
    assert item.details["replaces"] == [first.id] and item.other_fact.memory_id == first.id
    decide(workspace, item.pk, "approve", actor="user:approver", reason="confirmed with the team")
    states = fact_states(workspace, [first.id, correction.id])
    assert states[first.id]["lifecycle"] == "archived" and states[correction.id]["lifecycle"] == "active"
    undo(workspace, item.pk, actor="user:approver")
    states = fact_states(workspace, [first.id, correction.id])
    assert states[first.id]["lifecycle"] == "active" and states[correction.id]["lifecycle"] == "held"


def test_an_owner_write_and_a_workspace_that_turned_promotions_off_are_not_held(tl, workspace):
    assert tl.add("My legal name is Ana Ribeiro.", segment="identity").outcome == "created"
    workspace.hold_durable_promotions = False
    workspace.save()
    assert tl.add("The customer's legal name is Ana Ribeiro.", segment="identity", origin=PEER).outcome == "created"


def test_every_queue_action_is_a_reviewed_event(tl, workspace):
    _, held = _held_slot_write(tl)
    decide(workspace, held.review_item_id, "supersede", actor="user:olga", reason="she moved")
    undo(workspace, held.review_item_id, actor="user:olga")
    reviewed = list(MemoryEvent.objects.filter(workspace=workspace, kind="reviewed").order_by("revision"))
    assert [(e.data["review_action"], e.data["verdict"], e.data["reviewer"]) for e in reviewed] == [
        ("decided", "supersede", "user:olga"), ("undone", "supersede", "user:olga")]
    assert all(e.data["review_item"] == held.review_item_id for e in reviewed)


def test_a_backup_restores_a_held_write_held_and_back_in_the_queue(tl, workspace, other_workspace):
    from memory.services.writes.interchange import import_facts

    _, held = _held_slot_write(tl)
    lines = [json.dumps(line) for line in tl.export()]
    import_facts(workspace=other_workspace, lines=lines, actor="restore", strict=True, source_name="backup")
    restored = Fact.objects.get(workspace=other_workspace, memory_id=held.id)
    assert restored.lifecycle == "held" and restored.held_at is not None
    assert held.id not in _ids(Tideline(other_workspace).recall("Madrid"))
    item = ReviewItem.objects.get(workspace=other_workspace, fact=restored)
    assert item.status == "open" and item.details["rules"] == ["imported_held"]
    decide(other_workspace, item.pk, "dismiss", actor="user:olga")
    assert held.id in _ids(Tideline(other_workspace).recall("Madrid"))


def test_held_words_are_matched_only_within_their_trust_class(workspace):
    """A peer's trusted held write and the same words from a tool are two writes, never one answer."""
    peer = Tideline(workspace, actor="agent:gateway")
    trusted = peer.add("The customer's legal name is Ana Ribeiro.", segment="identity", origin=PEER)
    untrusted = peer.add("The customer's legal name is Ana Ribeiro.", segment="knowledge", origin=PEER,
                         source_type="tool_output", classification="PII")  # fmt: skip
    assert trusted.outcome == "held" and untrusted.outcome == "held"
    assert untrusted.id != trusted.id and Fact.objects.get(memory_id=untrusted.id).source_type == "tool_output"
