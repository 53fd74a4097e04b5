"""The dashboard shows exact figures for a quiet workspace, and the last ones (saying of which
revision) for a few minutes after writes while the worker computes the new ones."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from memory.services.maintenance import dashboard_stats
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def test_figures_follow_the_revision_and_are_never_older_than_the_bound(workspace, monkeypatch):
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity")
    workspace.refresh_from_db()
    assert dashboard_stats.current(workspace)["total"] == 1  # computed and kept
    queued = []
    monkeypatch.setattr(dashboard_stats, "_refresh_later", lambda ws: queued.append(ws.revision) or True)
    tl.add("I work at the harbour.", segment="identity")
    workspace.refresh_from_db()
    shown = dashboard_stats.current(workspace)
    assert shown["total"] == 1 and shown["as_of_revision"] == workspace.revision - 1  # last figures, labelled
    assert queued == [workspace.revision]  # the worker is asked for the current ones
    dashboard_stats.refresh(workspace.pk)  # the worker's task
    assert dashboard_stats.current(workspace)["total"] == 2 and dashboard_stats.current(workspace)["as_of_revision"] is None
    tl.add("I swim on Sundays.", segment="preference")
    workspace.refresh_from_db()
    monkeypatch.setattr(dashboard_stats, "STALE_SECONDS", 0)  # too old to show: computed in the request
    assert dashboard_stats.current(workspace)["total"] == 3


def test_the_page_says_when_its_figures_are_from_an_earlier_revision(client, workspace, owner, monkeypatch):
    client.force_login(owner)
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity")
    assert "as of revision" not in client.get(f"/w/{workspace.name}/").content.decode()
    monkeypatch.setattr(dashboard_stats, "_refresh_later", lambda ws: True)
    tl.add("I work at the harbour.", segment="identity")
    body = client.get(f"/w/{workspace.name}/").content.decode()
    assert "These figures are as of revision" in body and "is being counted" in body
