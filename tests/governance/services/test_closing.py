"""Deleting a fact (purge, shred) closes its open review items with a reason; no item ever disappears."""

from __future__ import annotations

import pytest
from django.urls import reverse

from governance.models import ReviewItem
from memory.models import Fact, MemoryEvent
from memory.services.lifecycle.deletion import delete_facts
from memory.services.mutation import mutate
from tests.factories import make_fact

pytestmark = pytest.mark.django_db


def _item(workspace, fact, other=None, *, kind="contradiction", status="open", details=None):
    return ReviewItem.objects.create(workspace=workspace, kind=kind, fact=fact, other_fact=other, status=status,
                                     reason="they disagree", details=details or {"score": 0.8})  # fmt: skip


def _delete(workspace, *ids, kind="purged", reason=""):
    with mutate(workspace, actor="user:olga") as m:
        return delete_facts(m, ids, kind=kind, reason=reason)


def test_purging_a_fact_closes_its_open_item_with_a_reason_and_an_event(workspace):
    fact, other = make_fact(workspace, "I live in Lisbon."), make_fact(workspace, "I live in Porto.")
    item = _item(workspace, fact, other)
    assert _delete(workspace, other.memory_id, "mem_never_was") == [other.memory_id]
    item.refresh_from_db()
    assert item.status == "closed" and item.resolved_at is not None
    assert item.details == {"score": 0.8, "closed_reason": f"fact {other.memory_id} was purged"}
    assert item.fact == fact and item.other_fact is None and item.other_memory_id == other.memory_id
    purged, reviewed = MemoryEvent.objects.filter(workspace=workspace, kind__in=["purged", "reviewed"]).order_by("id")
    assert purged.kind == "purged" and purged.fact_ids == [other.memory_id]
    assert reviewed.kind == "reviewed" and reviewed.fact_ids == [other.memory_id] and reviewed.revision == purged.revision
    assert reviewed.data == {"review_item": item.pk, "review_kind": "contradiction", "review_action": "closed"}
    assert reviewed.reason == f"fact {other.memory_id} was purged" and reviewed.actor == "user:olga"


def test_shredding_both_facts_closes_the_item_once_naming_both(workspace):
    fact, other = make_fact(workspace, "a"), make_fact(workspace, "b")
    item = _item(workspace, fact, other)
    _delete(workspace, fact.memory_id, other.memory_id, kind="shredded", reason="origin forgotten")
    item.refresh_from_db()
    assert item.status == "closed"
    assert item.details["closed_reason"] == (f"facts {fact.memory_id} and {other.memory_id} were shredded "
                                             "(origin forgotten)")  # fmt: skip
    assert MemoryEvent.objects.filter(workspace=workspace, kind="reviewed").count() == 1


def test_decided_and_unrelated_items_are_left_as_they_are(workspace, other_workspace):
    fact, other, bystander = make_fact(workspace, "a"), make_fact(workspace, "b"), make_fact(workspace, "c")
    decided = _item(workspace, fact, other, status="resolved")
    unrelated = _item(workspace, bystander, other)
    promotion = _item(workspace, fact, kind="promotion")
    elsewhere = _item(other_workspace, make_fact(other_workspace, "d", memory_id=fact.memory_id))
    _delete(workspace, fact.memory_id)
    statuses = dict(ReviewItem.objects.values_list("pk", "status"))
    assert statuses == {decided.pk: "resolved", unrelated.pk: "open", promotion.pk: "closed", elsewhere.pk: "open"}
    decided.refresh_from_db()
    assert decided.fact is None and decided.fact_memory_id == fact.memory_id and "closed_reason" not in decided.details


def test_a_closed_item_is_listed_under_closed_and_its_page_renders(client, owner, workspace):
    fact, other = make_fact(workspace, "I live in Lisbon."), make_fact(workspace, "I live in Porto.")
    item = _item(workspace, fact, other)
    _delete(workspace, fact.memory_id)
    client.force_login(owner)
    queue = client.get(reverse("governance:review-list", args=[workspace.name]), {"status": "closed"})
    assert [i.pk for i in queue.context["page"].object_list] == [item.pk]
    assert f"deleted fact {fact.memory_id}" in queue.content.decode()
    assert not client.get(reverse("governance:review-list", args=[workspace.name])).context["page"].object_list
    response = client.get(reverse("governance:review-detail", args=[workspace.name, item.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert f"fact {fact.memory_id} was purged" in body and f"Fact {fact.memory_id} was deleted" in body
    assert "I live in Porto." in body and 'name="verdict"' not in body


def test_a_receiver_that_fails_rolls_the_deletion_back(workspace, monkeypatch):
    fact = make_fact(workspace, "a")
    item = _item(workspace, fact, make_fact(workspace, "b"))

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(ReviewItem.objects, "bulk_update", broken)
    with pytest.raises(RuntimeError):
        _delete(workspace, fact.memory_id)
    assert Fact.objects.filter(pk=fact.pk).exists()
    item.refresh_from_db()
    assert item.status == "open" and item.fact == fact
