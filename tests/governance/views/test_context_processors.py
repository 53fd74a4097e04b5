"""The dashboard's open review figure comes from governance's context processor, unchanged."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from governance.context_processors import review_queue
from governance.models import ReviewItem
from tests.factories import make_fact
from tests.personas import make_user

pytestmark = pytest.mark.django_db


def _items(workspace, statuses):
    for status in statuses:
        a, b = make_fact(workspace, f"I live in {status} town."), make_fact(workspace, "I live in Porto.")
        ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact=a, other_fact=b, reason="r", status=status)


def _dashboard(client, workspace) -> str:
    return client.get(reverse("memory:workspace-overview", args=[workspace.name])).content.decode()


def test_the_dashboard_counts_the_workspaces_open_items_only(client, owner, workspace, other_workspace):
    _items(workspace, ["open", "open", "resolved", "dismissed"])
    _items(other_workspace, ["open"])
    client.force_login(owner)
    page = _dashboard(client, workspace)
    assert "2 open review items</a></p>" in page
    assert f'<a href="{reverse("governance:review-list", args=[workspace.name])}">2 open review items' in page  # it leads there


def test_one_item_is_singular_and_none_is_zero(client, owner, workspace):
    client.force_login(owner)
    make_fact(workspace, "I keep a strict vegetarian diet.")
    assert "0 open review items</a></p>" in _dashboard(client, workspace)
    _items(workspace, ["open"])
    assert "1 open review item</a></p>" in _dashboard(client, workspace)


def _request(rf, user, **kwargs):
    request = rf.get("/")
    request.user = user
    request.resolver_match = type("Match", (), {"kwargs": kwargs})()
    return request


def test_outsiders_and_pages_outside_a_workspace_get_no_figure(rf, owner, workspace, other_workspace):
    _items(other_workspace, ["open"])
    stranger = make_user("sam", "owner", workspace=workspace)  # an owner here, nothing in the other workspace
    assert review_queue(_request(rf, stranger, workspace=other_workspace.name))["open_review_count"]() == 0
    assert review_queue(_request(rf, owner)) == {}


def test_the_count_costs_a_query_only_when_shown_and_only_once(rf, owner, workspace):
    _items(workspace, ["open"])
    with CaptureQueriesContext(connection) as queries:
        count = review_queue(_request(rf, owner, workspace=workspace.name))["open_review_count"]
    assert len(queries) == 0
    with CaptureQueriesContext(connection) as queries:
        assert (count(), count()) == (1, 1)
    assert len(queries) == 2  # the membership-checked workspace, then the count
