"""Moving through the filtered queue from an item page: previous/next in the list's own
order under its filters, links that keep the filters, and a verdict that keeps them too."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from governance import selectors
from governance.models import ReviewItem
from memory.models import Fact
from memory.services.lifecycle.curation import fact_states
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


def _item(workspace, name, *, hours_ago, score=None, kind="contradiction", status="open", words=None):
    memory = Tideline(workspace)
    a = memory.add(words or f"The {name} launch is in May.", segment="project").id
    b = memory.add(f"The {name} launch is in June.", segment="project").id
    item = ReviewItem.objects.create(workspace=workspace, kind=kind, reason=name, status=status,
                                     fact=Fact.objects.get(memory_id=a), other_fact=Fact.objects.get(memory_id=b),
                                     details={} if score is None else {"score": score})  # fmt: skip
    ReviewItem.objects.filter(pk=item.pk).update(created_at=timezone.now() - timedelta(hours=hours_ago))
    item.refresh_from_db()
    return item


@pytest.fixture
def queue(workspace):
    return {
        "a": _item(workspace, "alpha", hours_ago=1, score=0.4),
        "b": _item(workspace, "beta", hours_ago=2, score=0.9, words="The beta launch is in May, says Porto."),
        "c": _item(workspace, "gamma", hours_ago=3),  # no score: last when strongest first
        "d": _item(workspace, "delta", hours_ago=4, score=0.7, kind="quarantine"),
        "e": _item(workspace, "epsilon", hours_ago=5, score=0.9, status="dismissed"),
        "f": _item(workspace, "zeta", hours_ago=6, score=0.4, words="The zeta launch is in May, says Porto."),
    }


def _walk(workspace, data, queue, start):
    """Every item from `start` to the end by `next`, and back to `start`'s first by `previous`."""
    forward, item = [start], queue[start]
    names = {i.pk: name for name, i in queue.items()}
    while (following := selectors.queue_neighbours(workspace, data, item)[1]) is not None:
        forward.append(names[following])
        item = queue[names[following]]
    backward = [forward[-1]]
    while (previous := selectors.queue_neighbours(workspace, data, item)[0]) is not None:
        backward.append(names[previous])
        item = queue[names[previous]]
    return forward, backward


def _listed(workspace, data, queue):
    names = {i.pk: name for name, i in queue.items()}
    items = selectors.filtered_review_items(workspace, data)
    if data.get("q"):
        return [names[pk] for pk in selectors.search_items(items, data["q"])[0]]
    return [names[i.pk] for i in items]


@pytest.mark.parametrize("data", [{}, {"sort": "strongest"}, {"kind": "contradiction"},
                                  {"kind": "contradiction", "sort": "strongest"}, {"status": "any", "sort": "strongest"},
                                  {"q": "porto"}, {"q": "porto", "sort": "strongest"}])  # fmt: skip
def test_next_and_previous_follow_the_lists_order_under_its_filters(workspace, queue, data):
    order = _listed(workspace, data, queue)
    forward, backward = _walk(workspace, data, queue, order[0])
    assert forward == order and backward == order[::-1]


def test_the_orders_themselves(workspace, queue):
    assert _listed(workspace, {}, queue) == ["a", "b", "c", "d", "f"]
    assert _listed(workspace, {"sort": "strongest"}, queue) == ["b", "d", "a", "f", "c"]
    assert _listed(workspace, {"status": "any", "sort": "strongest"}, queue) == ["b", "e", "d", "a", "f", "c"]


def test_a_decided_item_still_knows_its_neighbours_in_the_open_queue(workspace, queue):
    assert selectors.queue_neighbours(workspace, {"sort": "strongest"}, queue["e"]) == (queue["b"].pk, queue["d"].pk)
    assert selectors.queue_neighbours(workspace, {}, queue["e"]) == (queue["d"].pk, queue["f"].pk)


def test_the_item_page_links_previous_and_next_with_the_filters(client, owner, workspace, queue):
    client.force_login(owner)
    url = reverse("governance:review-detail", args=[workspace.name, queue["d"].pk])
    page = client.get(url, {"sort": "strongest", "page": "3", "bogus": "x"}).content.decode()
    detail = reverse("governance:review-detail", args=[workspace.name, 0])[:-2]
    assert f'href="{detail}{queue["b"].pk}/?sort=strongest" rel="prev"' in page
    assert f'href="{detail}{queue["a"].pk}/?sort=strongest" rel="next"' in page
    assert f'href="{reverse("governance:review-list", args=[workspace.name])}?sort=strongest"' in page
    assert 'data-key="s" aria-keyshortcuts="s">Supersede <kbd>s</kbd>' in page
    assert 'id="keys-help"' in page


def test_the_list_links_items_with_its_filters(client, owner, workspace, queue):
    client.force_login(owner)
    page = client.get(reverse("governance:review-list", args=[workspace.name]), {"kind": "quarantine", "sort": "strongest"})
    assert f'/review/{queue["d"].pk}/?kind=quarantine&amp;sort=strongest"' in page.content.decode()


def test_a_verdict_keeps_the_filters_and_offers_the_next_item(client, owner, workspace, queue):
    client.force_login(owner)
    item = queue["a"]
    seen = json.dumps(fact_states(workspace, [item.fact_memory_id, item.other_memory_id]))
    url = reverse("governance:review-decide", args=[workspace.name, item.pk])
    response = client.post(url + "?sort=strongest", {"verdict": "dismiss", "seen": seen})
    assert response["Location"].endswith(f"/review/{item.pk}/?sort=strongest")
    page = client.get(response["Location"]).content.decode()
    assert "Decided: dismiss." in page
    assert f'/review/{queue["f"].pk}/?sort=strongest" data-key-focus>Next item of the queue →' in page


def test_the_last_item_offers_the_way_back(client, owner, workspace, queue):
    client.force_login(owner)
    item = queue["f"]
    seen = json.dumps(fact_states(workspace, [item.fact_memory_id, item.other_memory_id]))
    client.post(reverse("governance:review-decide", args=[workspace.name, item.pk]), {"verdict": "dismiss", "seen": seen})
    page = client.get(reverse("governance:review-detail", args=[workspace.name, item.pk])).content.decode()
    assert "No more items after this one: back to the queue" in page
