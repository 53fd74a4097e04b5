"""The demo workspace is realistic, complete and deterministic, and loading it is idempotent."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from memory.engine import records as R
from memory.models import Fact, Link, Membership
from memory.services.demo import DEMO_USERS, build_demo_records, load_demo

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    return load_demo()


def test_the_demo_has_a_few_hundred_facts_over_every_segment_and_tier(demo):
    facts = Fact.objects.filter(workspace=demo.workspace)
    assert 240 <= facts.count() <= 600
    assert set(facts.values_list("segment", flat=True)) == set(R.SEGMENTS)
    assert set(facts.values_list("tier", flat=True)) == set(R.TIERS)


def test_the_demo_has_an_owner_and_two_channel_peers(demo):
    origins = set(Fact.objects.filter(workspace=demo.workspace).values_list("origin_key", flat=True))
    assert "owner" in origins and len([o for o in origins if o.startswith("channel:")]) == 2


def test_the_demo_has_trusted_and_untrusted_sources_and_archived_facts(demo):
    facts = Fact.objects.filter(workspace=demo.workspace)
    sources = set(facts.values_list("source_type", flat=True))
    assert sources & R.UNTRUSTED_SOURCE_TYPES and sources - R.UNTRUSTED_SOURCE_TYPES
    assert facts.filter(lifecycle="archived").count() >= 10


def test_the_demo_has_links_of_every_kind(demo):
    kinds = set(Link.objects.filter(workspace=demo.workspace).values_list("kind", flat=True))
    # `supersedes` edges are read from each record's `supersedes` list, as in the original.
    assert kinds | {"supersedes"} == set(R.LINK_KINDS)
    assert Fact.objects.filter(workspace=demo.workspace).exclude(supersedes=[]).exists()


def test_superseded_slot_values_are_archived_and_closed(demo):
    slot = Fact.objects.filter(workspace=demo.workspace, subject_key="standup_time").order_by("created_at")
    assert [f.lifecycle for f in slot] == ["archived", "archived", "active"]
    assert all(f.valid_to is not None for f in slot[:2])
    current = slot.last()
    assert current.outbound_links.filter(kind="transition").exists()
    assert current.outbound_links.filter(kind="contradicts").exists()


def test_the_demo_has_active_contradictions(demo):
    contradicting = Link.objects.filter(workspace=demo.workspace, kind="contradicts", from_fact__lifecycle="active",
                                        to_fact__lifecycle="active")  # fmt: skip
    assert contradicting.count() >= 3


def test_demo_users_exist_for_each_role(demo):
    User = get_user_model()
    for username, role in DEMO_USERS:
        user = User.objects.get(username=username)
        assert user.check_password("tideline-demo")
        assert Membership.objects.filter(user=user, workspace=demo.workspace, role=role).exists()


def test_loading_twice_changes_nothing(demo):
    revision = demo.workspace.revision
    again = load_demo()
    again.workspace.refresh_from_db()
    assert not again.created and again.workspace.revision == revision
    assert Fact.objects.filter(workspace=demo.workspace).count() == len(build_demo_records(0))


def test_the_demo_is_deterministic():
    assert build_demo_records(1_800_000_000_000) == build_demo_records(1_800_000_000_000)
