"""Deciding a review item from its page: verdict, undo, roles, stale pages, double submits."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from governance.models import ReviewItem
from governance.services.contradictions import find_contradictions
from memory.models import Fact
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


@pytest.fixture
def item(workspace):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    find_contradictions(workspace)
    return ReviewItem.objects.get(workspace=workspace, kind="contradiction")


def _page(client, workspace, item) -> str:
    return client.get(reverse("governance:review-detail", args=[workspace.name, item.pk])).content.decode()


def _seen(page: str) -> str:
    start = page.index('name="seen" value="') + len('name="seen" value="')
    return page[start : page.index('"', start)].replace("&quot;", '"')


def _decide(client, workspace, item, verdict, seen, **extra):
    url = reverse("governance:review-decide", args=[workspace.name, item.pk])
    return client.post(url, {"verdict": verdict, "seen": seen, **extra}, follow=True).content.decode()


def test_an_owner_supersedes_from_the_page_and_undoes_it(client, owner, workspace, item):
    client.force_login(owner)
    page = _page(client, workspace, item)
    assert "Supersede" in page and "Coexist" in page and "Block" in page and "Dismiss" in page
    done = _decide(client, workspace, item, "supersede", _seen(page), reason="moved in October")
    assert "Decided: supersede." in done and "moved in October" in done and "Undo this verdict" in done
    item.refresh_from_db()
    assert item.status == "resolved" and item.resolved_by == owner
    assert Fact.objects.get(pk=item.other_fact_id).lifecycle == "archived"

    undone = _decide(client, workspace, item, "undo", "")
    assert "Verdict undone" in undone
    item.refresh_from_db()
    assert item.status == "open" and Fact.objects.get(pk=item.other_fact_id).lifecycle == "active"


def test_an_approver_reads_the_item_but_cannot_decide_it(client, workspace, item, personas):
    client.force_login(personas.approver)
    page = _page(client, workspace, item)
    assert "Owners and admins decide" in page and 'name="verdict"' not in page
    url = reverse("governance:review-decide", args=[workspace.name, item.pk])
    assert client.post(url, {"verdict": "dismiss", "seen": "{}"}).status_code == 403
    item.refresh_from_db()
    assert item.status == "open"


def test_a_stale_page_a_double_submit_and_a_forged_form_change_nothing(client, owner, workspace, item):
    client.force_login(owner)
    seen = _seen(_page(client, workspace, item))
    stale = json.loads(seen)
    stale[next(iter(stale))]["lifecycle"] = "archived"
    assert "changed since this item was shown" in _decide(client, workspace, item, "supersede", json.dumps(stale))
    assert "form was incomplete" in _decide(client, workspace, item, "supersede", "not json")
    assert "is not a verdict" in _decide(client, workspace, item, "explode", seen)
    item.refresh_from_db()
    assert item.status == "open"

    _decide(client, workspace, item, "coexist", seen)
    again = _decide(client, workspace, item, "coexist", seen)
    assert "already decided" in again
    assert ReviewItem.objects.get(pk=item.pk).status == "resolved"


def test_deciding_needs_a_post_a_member_and_a_real_item(client, owner, workspace, other_workspace, item):
    url = reverse("governance:review-decide", args=[workspace.name, item.pk])
    assert client.post(url, {"verdict": "dismiss"})["Location"].startswith("/login/")
    client.force_login(owner)
    assert client.get(url).status_code == 405
    assert client.post(reverse("governance:review-decide", args=[workspace.name, 999999]), {}).status_code == 404
    assert client.post(reverse("governance:review-decide", args=[other_workspace.name, item.pk]), {}).status_code == 404
