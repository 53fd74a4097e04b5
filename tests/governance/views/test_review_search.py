"""The queue's text search at its cap, and over a shredded origin: a clear note, never a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from governance import selectors
from governance.models import ReviewItem
from memory import sealing
from memory.engine.facts import records as R
from tests.factories import make_fact

pytestmark = pytest.mark.django_db


def _item(workspace, content, other, **facts):
    return ReviewItem.objects.create(workspace=workspace, kind="contradiction", reason="bench",
                                     fact=make_fact(workspace, content, **facts),
                                     other_fact=make_fact(workspace, other, **facts))  # fmt: skip


def _search(client, workspace, text):
    return client.get(reverse("governance:review-list", args=[workspace.name]), {"q": text})


def test_the_search_reads_the_newest_items_up_to_its_cap_and_says_so(client, owner, workspace, monkeypatch):
    items = [
        _item(workspace, f"I live in Lisbon, note {n}.", f"I live in Porto, note {n}.") for n in range(5)
    ]
    monkeypatch.setattr(selectors, "SEARCH_CAP", 3)
    client.force_login(owner)
    response = _search(client, workspace, "lisbon")
    # Newest first: the three newest items are read, every one matches, the two oldest are not read.
    assert [item.pk for item in response.context["page"].object_list] == [item.pk for item in items[:1:-1]]
    assert (
        response.context["truncated"]
        and "the search read the first 3 items only" in response.content.decode()
    )
    assert not _search(client, workspace, "note 0").context["page"].object_list  # beyond the cap


def test_facts_of_a_shredded_origin_match_nothing_and_the_page_still_draws(client, owner, workspace):
    peer = R.parse_origin("channel:qsearch/general/s1")
    gone = _item(workspace, "I live in Lisbon.", "I live in Faro.", origin=peer)
    kept = _item(workspace, "I live in Lisbon too.", "I live in Braga.")
    sealing.keyring.destroy(workspace.pk, gone.fact.origin_key)
    client.force_login(owner)
    response = _search(client, workspace, "lisbon")
    assert response.status_code == 200
    assert [item.pk for item in response.context["page"].object_list] == [kept.pk]
    assert _search(client, workspace, gone.fact.memory_id).context["page"].object_list[0].pk == gone.pk
