"""The console's Restore never undoes a reviewer's block, and never touches a shredded tombstone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from governance.models import ReviewItem
from governance.services.verdicts import decide, undo
from memory.models import Fact
from memory.services.keys.crypto_shred import resolve_origin, shred_origin
from memory.tideline import Tideline
from tests.personas import make_user

pytestmark = pytest.mark.django_db
PEER = "channel:slack/general/s1"


def _ids(hits):
    return [hit.id for hit in hits]


def _blocked_promotion(workspace):
    agent = Tideline(workspace, actor="token:peer-bot")
    held = agent.add("Ana's phone number is 555 0100.", segment="knowledge", origin=PEER, classification="PII")
    assert held.outcome == "held"
    decide(workspace, held.review_item_id, "block", actor="user:ada")
    return held


def _action(client, workspace, memory_id, action):
    url = reverse("memory:fact-action", args=[workspace.name, memory_id, action])
    return client.post(url, follow=True)


def test_an_owner_cannot_restore_a_promotion_an_admin_blocked(client, owner, workspace, tl):
    held = _blocked_promotion(workspace)
    client.force_login(owner)
    page = _action(client, workspace, held.id, "restore")
    assert page.status_code == 200
    assert "a reviewer blocked it" in page.content.decode() and "nothing was changed" in page.content.decode()
    fact = Fact.objects.get(memory_id=held.id)
    assert (fact.lifecycle, fact.status) == ("archived", "retracted")
    assert held.id not in _ids(tl.recall("Ana phone number", origin=PEER))
    item = ReviewItem.objects.get(pk=held.review_item_id)
    assert (item.status, item.details["verdict"]) == ("resolved", "block")

    # The bulk form refuses it too, and restores nothing else chosen with it.
    other = tl.add("The standup is at 9:30 on Mondays.", segment="project")
    _action(client, workspace, other.id, "archive")
    bulk = client.post(reverse("memory:fact-bulk", args=[workspace.name]),
                       {"action": "restore", "ids": [held.id, other.id], "confirm": "yes"}, follow=True)  # fmt: skip
    assert bulk.status_code == 200 and "cannot be restored" in bulk.content.decode()
    assert Fact.objects.get(memory_id=held.id).lifecycle == "archived"
    assert Fact.objects.get(memory_id=other.id).lifecycle == "archived"

    # The way back is the verdict's own: undoing it holds the write again, for a decider to decide.
    undo(workspace, held.review_item_id, actor="user:ada")
    assert Fact.objects.get(memory_id=held.id).lifecycle == "held"
    assert _action(client, workspace, other.id, "restore").status_code == 200
    assert Fact.objects.get(memory_id=other.id).lifecycle == "active"


def test_a_blocked_contradiction_comes_back_only_by_undoing_its_verdict(client, owner, workspace, tl):
    first = tl.add("The staging database listens on port 5432.", segment="project")
    second = tl.add("The staging database listens on port 5433.", segment="project")
    item = ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact=Fact.objects.get(memory_id=second.id),
                                     other_fact=Fact.objects.get(memory_id=first.id), fact_memory_id=second.id,
                                     other_memory_id=first.id, reason="another number")  # fmt: skip
    decide(workspace, item.pk, "block", actor="user:olga")
    client.force_login(owner)
    _action(client, workspace, second.id, "restore")
    assert Fact.objects.get(memory_id=second.id).lifecycle == "archived"
    undo(workspace, item.pk, actor="user:olga")
    assert Fact.objects.get(memory_id=second.id).lifecycle == "active"


def test_tombstones_answer_every_console_action_without_an_error(client, workspace, tl):
    admin = make_user("ada", "admin", "owner", workspace=workspace)
    gone = tl.add("Priya prefers tea to coffee.", segment="knowledge", origin=PEER, source_type="channel_message")
    kept = tl.add("The deploy window is Thursday afternoon.", segment="project")
    client.force_login(admin)
    client.post(reverse("memory:fact-action", args=[workspace.name, gone.id, "archive"]))
    assert Fact.objects.get(memory_id=gone.id).lifecycle == "archived"
    shred_origin(workspace, resolve_origin(PEER), actor="user:ada", reason="asked to be forgotten")
    for action in ("restore", "archive", "up", "down"):
        page = _action(client, workspace, gone.id, action)
        assert page.status_code in (200, 404, 409), (action, page.status_code)
    assert Fact.objects.get(memory_id=gone.id).lifecycle == "archived"
    page = _action(client, workspace, gone.id, "restore")
    assert "crypto-shredded" in page.content.decode()
    bulk = client.post(reverse("memory:fact-bulk", args=[workspace.name]),
                       {"action": "restore", "ids": [gone.id], "confirm": "yes"}, follow=True)  # fmt: skip
    assert bulk.status_code == 200 and "crypto-shredded" in bulk.content.decode()
    assert kept.id in _ids(tl.recall("deploy window Thursday"))
