"""The shred page (/w/<ws>/shred/) and governance's shred service: admins only, a preview, a typed
confirmation, a receipt; the origin's open review items are closed with a reason."""

from __future__ import annotations

from html import escape

import pytest

from governance.models import ReviewItem
from governance.services import shred
from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, MemoryEvent
from memory.services.errors import RequestError
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")


@pytest.fixture
def world(workspace, personas):
    tl = Tideline(workspace)
    mine = tl.add("I live in Porto.", segment="identity")
    theirs = tl.add("The user lives in Lisbon.", segment="identity", origin=PEER)
    tl.add("The user likes trams.", segment="preference", origin=PEER)
    item = ReviewItem.objects.create(workspace=workspace, kind="contradiction", reason="two cities",
                                     fact=Fact.objects.get(memory_id=mine.id),
                                     other_fact=Fact.objects.get(memory_id=theirs.id))  # fmt: skip
    return workspace, personas, item, theirs


def _url(workspace):
    return f"/w/{workspace.name}/shred/"


def test_the_preview_counts_facts_links_and_open_items(world):
    workspace, _, item, _ = world
    preview = shred.preview(workspace, PEER.key)
    assert (preview.facts, preview.links, preview.open_review_items) == (2, 0, _open_items_of_peer(workspace))
    assert preview.open_review_items >= 1
    assert preview.accepts(PEER.key) and preview.accepts(PEER.label()) and preview.accepts("2") and preview.accepts(" 2 ")
    assert not preview.accepts("") and not preview.accepts("3") and not preview.accepts("owner")


def test_a_shred_closes_the_origins_open_review_items_with_a_reason(world):
    workspace, _, item, theirs = world
    expected = _open_items_of_peer(workspace)
    report = shred.apply(workspace, PEER.key, typed="2", actor="user:ada", reason="erasure #7")
    assert report.review_items_closed == expected and _open_items_of_peer(workspace) == 0
    item.refresh_from_db()
    assert item.status == "closed" and item.details["closed_reason"] == f"fact {theirs.id} was shredded (erasure #7)"
    closed = MemoryEvent.objects.filter(kind="reviewed", revision=report.revision)
    assert {e.data["review_item"] for e in closed} >= {item.pk}
    assert {e.data["review_action"] for e in closed} == {"closed"}


def _open_items_of_peer(workspace) -> int:
    return sum(1 for i in ReviewItem.objects.filter(workspace=workspace, status="open")
               if PEER.key in {f.origin_key for f in (i.fact, i.other_fact) if f is not None})  # fmt: skip


def test_a_confirmation_that_does_not_match_changes_nothing(world):
    workspace, _, item, _ = world
    with pytest.raises(RequestError) as refused:
        shred.apply(workspace, PEER.key, typed="owner", actor="user:x")
    assert refused.value.kind == "confirmation"
    assert sealing.keyring.exists(workspace.pk, PEER.key) and not MemoryEvent.objects.filter(kind="shredded").exists()


def test_the_admin_sees_origins_and_a_preview(client, world):
    workspace, users, _, _ = world
    client.force_login(users["admin"])
    page = client.get(_url(workspace)).content.decode()
    # The origins are a list of choices in few words, each whole on a phone (a select would cut a long one).
    assert '<span class="shred-origin-name">slack · team · s1</span> <span class="muted">2 facts</span>' in page
    assert '<span class="shred-origin-name">the owner</span> <span class="muted">1 fact</span>' in page
    assert f'<input type="radio" name="origin" value="{escape(PEER.key)}" required >' in page
    assert "What becomes unreadable" not in page
    page = client.get(_url(workspace), {"origin": PEER.key}).content.decode()
    assert "What becomes unreadable" in page and 'name="confirm"' in page and f"{_open_items_of_peer(workspace)} open items will be closed" in page
    page = client.get(_url(workspace), {"origin": "channel:x/y/z"}).content.decode()
    assert "no facts from origin" in page and 'name="confirm"' not in page


def test_the_preview_names_the_origin_in_words_and_keeps_the_key_behind_help(client, world):
    workspace, users, _, _ = world
    client.force_login(users["admin"])
    page = client.get(_url(workspace), {"origin": PEER.key}).content.decode()
    preview = page.split('id="shred-preview"')[1]
    origin = preview.split('id="shred-origin-words">')[1].split("</dd>")[0]
    assert origin.startswith("a peer on slack, conversation team, session s1 <details class=\"help\">")
    key = escape(PEER.key)  # channel:[&quot;slack&quot;,…]
    assert key in origin.split('<div class="help-body">')[1]  # the exact key, for experts, behind the "?"
    assert preview.replace(f'value="{key}"', "").count(key) == 1 and "(key " not in preview  # the form sends it
    owner = client.get(_url(workspace), {"origin": "owner"}).content.decode()
    assert 'id="shred-origin-words">the owner <details' in owner


def test_an_empty_workspace_says_there_is_nothing_to_shred(client, personas, other_workspace):
    from memory.models import Membership

    Membership.objects.create(user=personas.admin, workspace=other_workspace, role="admin")
    client.force_login(personas.admin)
    page = client.get(_url(other_workspace)).content.decode()
    assert "nothing to shred" in page and "once the owner or a peer writes a fact" in page


@pytest.mark.parametrize("role", ["owner", "approver"])
def test_owners_and_approvers_are_refused_even_the_preview_and_cannot_shred(client, world, role):
    workspace, users, _, _ = world
    client.force_login(users[role])
    assert client.get(_url(workspace), {"origin": PEER.key}).status_code == 403
    assert client.post(_url(workspace), {"origin": PEER.key, "confirm": PEER.key}).status_code == 403
    assert sealing.keyring.exists(workspace.pk, PEER.key)


def test_a_wrong_confirmation_then_the_right_one_then_a_second_shred(client, world):
    workspace, users, item, theirs = world
    client.force_login(users["admin"])
    wrong = client.post(_url(workspace), {"origin": PEER.key, "confirm": "yes"}, follow=True)
    assert "did not match" in wrong.content.decode() and sealing.keyring.exists(workspace.pk, PEER.key)
    done = client.post(_url(workspace), {"origin": PEER.key, "confirm": PEER.key, "reason": "erasure #7"}, follow=True)
    event = MemoryEvent.objects.get(kind="shredded")
    text = done.content.decode()
    assert f"Receipt: the shredded event at revision {event.revision}" in text and "erasure #7" in text
    assert event.actor == "user:ada" and not sealing.keyring.exists(workspace.pk, PEER.key)
    again = client.post(_url(workspace), {"origin": PEER.key, "confirm": PEER.key}, follow=True)
    assert "already shredded" in again.content.decode() and MemoryEvent.objects.filter(kind="shredded").count() == 1
    # The picker still lists the origin, greyed out as shredded (its key is a JSON array: read as text on every database).
    after = client.get(_url(workspace)).content.decode()
    assert f'value="{escape(PEER.key)}" required disabled>' in after and "2 facts, shredded</span>" in after
    # The tombstone: "shredded", metadata only, on the fact page, its panel and the list.
    for url in (f"/w/{workspace.name}/facts/{theirs.id}/", f"/w/{workspace.name}/facts/{theirs.id}/panel/",
                f"/w/{workspace.name}/facts/", f"/w/{workspace.name}/review/{item.pk}/"):
        response = client.get(url)
        assert response.status_code == 200 and b"Lisbon" not in response.content, url
        if "review" not in url:
            assert b"hredded" in response.content, url


def test_actions_on_a_tombstone_never_fail(client, world):
    workspace, users, _, _ = world
    shred.apply(workspace, PEER.key, typed="2", actor="user:ada")
    memory_id = Fact.objects.filter(origin_key=PEER.key).exclude(lifecycle="held").get().memory_id  # the trams
    client.force_login(users["admin"])
    page = client.get(f"/w/{workspace.name}/facts/{memory_id}/").content.decode()
    assert "A shredded fact is a tombstone" in page and "Store correction" not in page
    for action, data in (("up", {}), ("down", {}), ("archive", {}), ("correct", {"content": "The user lives in Faro."})):
        response = client.post(f"/w/{workspace.name}/facts/{memory_id}/{action}/", data)
        assert response.status_code < 500, action
    assert not Fact.objects.get(memory_id=memory_id).is_readable


def test_an_unfinished_shred_is_shown_and_finished_from_the_page(client, world):
    """A shred whose process stopped after it was begun and its key destroyed (tests/governance/
    test_shred_kill.py does it with a real kill -9): the page says so, and one button finishes it."""
    from memory.services.keys import crypto_shred as shredding

    workspace, users, item, _ = world
    shredding._begin(workspace, PEER.key, actor="user:gone-admin", reason="erasure #9")
    sealing.keyring.destroy(workspace.pk, PEER.key)
    assert shred.preview(workspace, PEER.key).unfinished_since  # not refused as "has no data key"
    client.force_login(users["admin"])
    page = client.get(_url(workspace)).content.decode()
    assert "Unfinished shreds" in page and escape(PEER.label()) in page and "user:gone-admin" in page
    done = client.post(_url(workspace), {"origin": PEER.key, "finish": "1"}, follow=True).content.decode()
    assert "Finished the unfinished shred. Shredded a peer on" in done and "Unfinished shreds" not in done
    receipt = MemoryEvent.objects.get(workspace=workspace, kind="shredded")
    assert receipt.actor == "user:ada" and receipt.reason == "erasure #9"
    assert receipt.data["begun_by"] == "user:gone-admin"
    item.refresh_from_db()
    assert item.status == "closed"
    again = client.post(_url(workspace), {"origin": PEER.key, "finish": "1"}, follow=True).content.decode()
    assert "already shredded" in again


def test_an_unfinished_shred_whose_facts_were_purged_since_still_finishes(client, world):
    from governance.services import purge
    from memory.services.keys import crypto_shred as shredding

    workspace, users, _, _ = world
    shredding._begin(workspace, PEER.key, actor="user:gone-admin", reason="erasure #10")
    purge.apply(workspace, purge.Selection.parse(origin=PEER.label()), hard=True, typed=workspace.name, actor="t")
    assert not Fact.objects.filter(origin_key=PEER.key).exists() and sealing.keyring.exists(workspace.pk, PEER.key)
    client.force_login(users["admin"])
    assert "Unfinished shreds" in client.get(_url(workspace)).content.decode()
    assert client.get(_url(workspace), {"origin": PEER.key}).status_code == 200
    done = client.post(_url(workspace), {"origin": PEER.key, "finish": "1"}, follow=True).content.decode()
    assert "Finished the unfinished shred. Shredded a peer on" in done
    assert not sealing.keyring.exists(workspace.pk, PEER.key) and not shredding.unfinished_shreds(workspace)
    assert MemoryEvent.objects.get(workspace=workspace, kind="shredded").data["facts"] == 0


def test_tombstones_are_counted_apart_on_the_overview_and_never_selectable_for_bulk_actions(client, world):
    workspace, users, _, theirs = world
    client.force_login(users["admin"])
    overview = client.get(f"/w/{workspace.name}/")
    assert overview.context["total"] == 3 and overview.context["shredded"] == 0
    shred.apply(workspace, PEER.key, typed=PEER.key, reason="erasure", user=users["admin"], actor="user:ada")
    workspace.refresh_from_db()
    overview = client.get(f"/w/{workspace.name}/")
    assert overview.context["total"] == 1 and overview.context["shredded"] == 2  # fresh figures, not the cached ones
    assert sum(bar["n"] for bar in overview.context["by_segment"]) == 1
    assert "2 shredded tombstones, not counted" in overview.content.decode()
    page = client.get(f"/w/{workspace.name}/facts/").content.decode()
    assert 'name="ids"' in page and f'name="ids" value="{theirs.id}"' not in page
    before = Fact.objects.get(memory_id=theirs.id)
    for action in ("archive", "up"):
        response = client.post(f"/w/{workspace.name}/facts/bulk/", {"action": action, "ids": [theirs.id]}, follow=True)
        said = " ".join(str(m) for m in response.context["messages"])
        assert "crypto-shredded" in said and "nothing was changed" in said, action
    tombstone = Fact.objects.get(memory_id=theirs.id)
    assert (tombstone.lifecycle, tombstone.importance) == (before.lifecycle, before.importance)
