"""Contradiction candidates become review items once (governance/services/contradictions.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from governance.models import ReviewItem
from governance.services.contradictions import find_contradictions
from memory.models import MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


def _plant(workspace):
    tl = Tideline(workspace)
    old = tl.add("I live in Hyderabad", segment="identity")
    new = tl.add("I live in Bangalore now", segment="identity")
    tl.add("I like filter coffee.", segment="preference")
    return old, new


def test_contradictions_open_review_items_once(workspace):
    """H77 through the service: the newer fact is `a`; a second run opens nothing new."""
    old, new = _plant(workspace)
    assert find_contradictions(workspace).counts["opened"] == 1
    item = ReviewItem.objects.get(workspace=workspace, kind="contradiction")
    assert (item.fact.memory_id, item.other_fact.memory_id) == (new.id, old.id)
    assert set(item.details) == {"score", "signal", "trust_mismatch"} and 0 < item.details["score"] <= 1
    assert "hyderabad" in item.reason.lower() and "bangalore" in item.reason.lower()  # names what diverges
    assert find_contradictions(workspace).counts["opened"] == 0


def test_compatible_facts_that_share_words_open_nothing(workspace):
    """The old token rule opened pairs like these: two different tasks can both be true."""
    tl = Tideline(workspace)
    tl.add("I owe Priya a reply about the driver app API.", segment="context")
    tl.add("I owe Priya a reply about the routing service.", segment="context")
    tl.add("I like tea in the morning.", segment="preference")
    tl.add("I like coffee in the afternoon.", segment="preference")
    assert find_contradictions(workspace).counts == {"found": 0, "opened": 0}


def test_pairs_opened_before_do_not_use_up_a_runs_cap(workspace):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    assert find_contradictions(workspace, limit=1).counts["opened"] == 1
    tl.add("My flight to Oslo leaves on Tuesday.", segment="context")
    tl.add("My flight to Oslo leaves on Friday.", segment="context")
    assert find_contradictions(workspace, limit=1).counts["opened"] == 1
    assert ReviewItem.objects.filter(workspace=workspace, kind="contradiction").count() == 2


def test_each_opened_item_has_its_event(workspace):
    old, new = _plant(workspace)
    find_contradictions(workspace, actor="reviewer-bot")
    [event] = MemoryEvent.objects.filter(workspace=workspace, kind="reviewed", actor="reviewer-bot")
    assert event.fact_ids == [new.id, old.id] and event.data["review_item"] == ReviewItem.objects.get().pk
    assert event.data["review_action"] == "opened"


def test_the_workspace_daily_cap_counts_every_run_of_the_day(workspace):
    tl = Tideline(workspace)
    workspace.review_daily_cap = 1
    workspace.save()
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    assert find_contradictions(workspace).counts["opened"] == 1
    tl.add("My flight to Oslo leaves on Tuesday.", segment="context")
    tl.add("My flight to Oslo leaves on Friday.", segment="context")
    assert find_contradictions(workspace).counts == {"found": 2, "opened": 0}  # today's cap is used up
    ReviewItem.objects.update(created_at=timezone.now() - timedelta(days=1))  # as if opened yesterday
    assert find_contradictions(workspace).counts["opened"] == 1


def test_a_dismissed_pair_is_never_reopened(workspace):
    _plant(workspace)
    find_contradictions(workspace)
    ReviewItem.objects.update(status="dismissed")
    assert find_contradictions(workspace).counts == {"found": 1, "opened": 0}


def test_a_dry_run_counts_and_changes_nothing(workspace):
    _plant(workspace)
    workspace.refresh_from_db()
    revision = workspace.revision
    report = find_contradictions(workspace, dry_run=True)
    workspace.refresh_from_db()
    assert report.counts == {"found": 1, "opened": 0} and report.dry_run
    assert workspace.revision == revision and not ReviewItem.objects.exists()
