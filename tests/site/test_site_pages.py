"""`site_pages` (tideline_site/context_processors.py): what a memory page shows of governance, joined by
the site so that memory's templates never name governance."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tideline_site.context_processors import site_pages

pytestmark = pytest.mark.django_db


def _request(rf, user, **kwargs):
    request = rf.get("/")
    request.user = user
    request.resolver_match = type("Match", (), {"kwargs": kwargs})()
    return request


def test_a_workspace_page_gets_governance_pages_of_its_workspace(rf, owner, workspace):
    context = site_pages(_request(rf, owner, workspace=workspace.name))
    pages = context["site_pages"]
    assert pages["review_queue"] == reverse("governance:review-list", args=[workspace.name])
    assert pages["graph_download"] == reverse("governance:export-graph", args=[workspace.name])
    assert pages["open_review_count"] == 0
    assert pages["gold_sets_to_score"] == []  # a workspace with no live gold set offers none to score
    assert set(context) == {"open_review_count", "pending_proposal_count", "can_create_workspace", "gold_sets_to_score",
                            "site_pages", "workspace_nav"}  # fmt: skip
    # The workspace navigation: four sections, worked out only when a page shows it.
    assert [section.key for section in context["workspace_nav"]()] == ["memory", "review", "governance", "settings"]
    with pytest.raises(KeyError):
        pages["no_such_page"]


def test_nothing_is_looked_up_until_a_template_reads_it_and_only_once(rf, owner, workspace):
    with CaptureQueriesContext(connection) as queries:
        pages = site_pages(_request(rf, owner, workspace=workspace.name))["site_pages"]
    assert len(queries) == 0
    with CaptureQueriesContext(connection) as queries:
        assert (pages["new_workspace"], pages["new_workspace"]) == ("", "")  # an owner, not an admin
    assert len(queries) == 1


def test_outside_a_workspace_there_are_no_workspace_pages(rf, owner):
    pages = site_pages(_request(rf, owner))["site_pages"]
    with pytest.raises(KeyError):
        pages["review_queue"]
    assert pages["open_review_count"] == ""
