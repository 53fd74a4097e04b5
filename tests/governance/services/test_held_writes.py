"""Held writes reach the review queue through memory's `write_held` signal (memory never imports governance)."""

from __future__ import annotations

import pytest

from governance.models import ReviewItem
from memory.models import Fact, MemoryEvent
from memory.signals import write_held

pytestmark = pytest.mark.django_db


def _hold(tl):
    owner = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    tool = tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    return owner, tool


def test_an_untrusted_slot_write_opens_one_quarantine_item_the_write_names(tl, workspace):
    """C26 and Decision 5: the item pairs the held fact with the trusted value holding the slot."""
    owner, tool = _hold(tl)
    item = ReviewItem.objects.get(pk=tool.review_item_id)
    assert (item.kind, item.fact.memory_id, item.other_fact.memory_id, item.status) == ("quarantine", tool.id, owner.id, "open")
    # The held fact is kept outside the slot the trusted value holds, so it carries no subject key.
    assert item.details == {"subject_key": None, "source_type": "tool_output", "rules": ["slot_protection"],
                            "replaces": [owner.id], "author": "test"}
    assert ReviewItem.objects.filter(workspace=workspace).count() == 1
    held = MemoryEvent.objects.get(workspace=workspace, kind="held")
    assert held.data["review_item"] == item.pk and held.fact_ids == [tool.id] and held.data["hold"] == "quarantine"
    assert tool.outcome == "held" and Fact.objects.get(memory_id=tool.id).lifecycle == "held"


def test_a_trusted_write_opens_no_item(tl, workspace):
    tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    result = tl.add("I live in Madrid now.", segment="identity", subject_key="home_city")
    assert result.review_item_id is None and not ReviewItem.objects.exists()


def test_the_item_is_part_of_the_writes_transaction(tl, workspace):
    """A receiver that fails takes the held write down with it: never a hold without its item."""

    def broken(sender, **kwargs):
        raise RuntimeError("queue unavailable")

    write_held.connect(broken, dispatch_uid="test-broken-receiver")
    try:
        tl.add("I live in Porto.", segment="identity", subject_key="home_city")
        revision = Fact.objects.get().workspace.revision
        with pytest.raises(RuntimeError):
            tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    finally:
        write_held.disconnect(dispatch_uid="test-broken-receiver")
    workspace.refresh_from_db()
    assert Fact.objects.count() == 1 and not ReviewItem.objects.exists() and workspace.revision == revision
