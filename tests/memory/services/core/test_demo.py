"""The demo workspace is realistic, complete and deterministic, and loading it is idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from memory.engine.facts import records as R
from memory.models import Fact, Link, Membership
from memory.services.demo import DEMO_USERS, LIVE_WRITES, build_demo_records, load_demo

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
    assert Fact.objects.filter(workspace=demo.workspace).count() == len(build_demo_records(0)) + len(LIVE_WRITES)


def test_the_demo_is_deterministic():
    assert build_demo_records(1_800_000_000_000) == build_demo_records(1_800_000_000_000)


# ---------------------------------------------------------------- the published password


def test_no_demo_user_is_staff_or_superuser(demo):
    # Their password is in the README: none of them may open Django's admin.
    for username, _role in DEMO_USERS:
        user = get_user_model().objects.get(username=username)
        assert not user.is_staff and not user.is_superuser, username


def test_loading_again_demotes_a_demo_user_an_older_install_made_superuser(demo, settings, capsys):
    settings.EMBEDDED = True
    get_user_model().objects.filter(username="demo-admin").update(is_staff=True, is_superuser=True)
    call_command("tideline", "demo")
    out = capsys.readouterr().out
    admin = get_user_model().objects.get(username="demo-admin")
    assert not admin.is_staff and not admin.is_superuser
    assert "demoted demo-admin" in out and "embedded default database" in out
    assert Membership.objects.filter(user=admin, workspace=demo.workspace, role="admin").exists()


def test_the_demo_refuses_a_server_database_unless_allowed(db, settings, capsys):
    settings.EMBEDDED = False  # what DATABASE_URL=postgres://… makes it
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "demo", "--json")
    assert exit_.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "refused" and "--allow-server" in error["message"]
    assert not Fact.objects.exists() and not get_user_model().objects.filter(username="demo-owner").exists()

    call_command("tideline", "demo", "--allow-server", "--json")
    assert json.loads(capsys.readouterr().out)["created"] is True
    assert Fact.objects.filter(workspace__name="demo").count() == len(build_demo_records(0)) + len(LIVE_WRITES)


def test_if_embedded_skips_a_server_database_with_a_message_and_exit_0(db, settings, capsys):
    settings.EMBEDDED = False
    call_command("tideline", "demo", "--if-embedded")
    assert capsys.readouterr().out.startswith("skipped: DATABASE_URL names a server database")
    call_command("tideline", "demo", "--if-embedded", "--json")
    assert json.loads(capsys.readouterr().out)["skipped"] is True
    assert not Fact.objects.exists()

    settings.EMBEDDED = True
    call_command("tideline", "demo", "--if-embedded", "--json")
    assert json.loads(capsys.readouterr().out)["created"] is True


def test_make_run_loads_the_demo_only_into_the_embedded_database():
    makefile = (Path(__file__).resolve().parents[4] / "Makefile").read_text()
    demo_lines = [line.strip() for line in makefile.splitlines() if "tideline demo" in line]
    assert demo_lines == ["$(BIN)/tideline demo --if-embedded"]


def test_the_demo_queue_has_one_of_each_kind_waiting():
    """A held write, two durable promotions and the three planted contradictions, none of them recallable
    before a verdict (held) and the contradictions' facts untouched."""
    from governance.models import ReviewItem

    demo = load_demo()
    kinds = sorted(ReviewItem.objects.filter(workspace=demo.workspace, status="open").values_list("kind", flat=True))
    assert kinds == ["contradiction"] * 3 + ["promotion"] * 2 + ["quarantine"]
    held = Fact.objects.filter(workspace=demo.workspace, lifecycle="held")
    assert held.count() == 3 and not any("agent" not in f.written_by for f in held)


def test_every_demo_subject_key_is_already_normalised(demo):
    """Slot protection compares normalised keys: a demo key like `dr. helena matos_role` would never
    match what the write path stores for the same slot (`dr_helena_matos_role`)."""
    keys = set(Fact.objects.exclude(subject_key=None).values_list("subject_key", flat=True))
    assert keys and {k for k in keys if R.normalize_subject_key(k) != k} == set()
