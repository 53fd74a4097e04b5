"""The home page is an inbox (governance/services/inbox.py, tideline_site/home.py): what waits for the
signed-in person, workspace by workspace, by the roles they hold, never their own work to approve."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from governance.models import GoldSet, ImportJob, Proposal, ReviewItem, SettingsSearch
from governance.services import inbox, proposals
from memory.engine.facts import records as R
from memory.models import Fact, Membership
from memory.tideline import Tideline
from tests.personas import client_for

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")


@pytest.fixture
def work(workspace, personas):
    cache.clear()
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city", source_type="tool_output")
    tl.add("The customer's legal name is Ana Ribeiro.", segment="identity", origin=PEER)  # a durable promotion
    first, second = Fact.objects.filter(origin_key="owner").order_by("pk")[:2]
    ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact=first, other_fact=second, reason="x")
    proposals.propose_tuning(workspace, {"ngram_floor": 0.5}, rationale="typos", user=personas.owner, actor="olga")
    GoldSet.objects.create(workspace=workspace, name="made by olga", kind="live", source="scaffold", created_by="olga")
    ImportJob.objects.create(workspace=workspace, created_by="user:ada", status="failed", file_name="f.jsonl", path="/tmp/gone.jsonl")
    return workspace


def _what(user) -> list[str]:
    return [item.what for item in inbox.waiting_for(user)]


def test_each_role_sees_what_waits_for_it(work, personas):
    assert _what(personas.owner) == ["1 contradiction to decide", "1 held write to decide"]
    assert _what(personas.approver) == ["1 durable promotion to approve", "1 proposal awaiting a decision",
                                        "1 gold set to approve"]  # fmt: skip
    assert _what(personas.admin) == ["1 contradiction to decide", "1 held write to decide", "1 durable promotion to approve",
                                     "1 proposal awaiting a decision", "1 gold set to approve", "1 import failed"]  # fmt: skip
    assert _what(personas.outsider) == [] and _what(personas.stranger) == []


def test_never_ones_own_work_to_approve(work, personas):
    Membership.objects.create(user=personas.owner, workspace=work, role="approver")
    mine = _what(personas.owner)
    assert "1 proposal awaiting a decision" not in mine and "1 gold set to approve" not in mine
    assert "1 durable promotion to approve" in mine  # a peer wrote it, not olga


def test_an_approved_proposal_waits_for_anyone_to_apply_it(work, personas):
    Proposal.objects.update(status="approved")
    assert "1 approved proposal to apply" in _what(personas.owner)


def test_every_kind_is_counted_by_workspace_in_one_query(work, other_workspace, personas, django_assert_num_queries):
    from datetime import timedelta

    from django.utils import timezone

    Membership.objects.create(user=personas.admin, workspace=other_workspace, role="owner")
    for text in ("I live in Lisbon.", "I work in Braga.", "I was born in Faro."):
        Tideline(other_workspace).add(text, segment="identity")
    a, b, c = Fact.objects.filter(workspace=other_workspace).order_by("pk")
    for fact, other in ((a, b), (a, c)):
        ReviewItem.objects.create(workspace=other_workspace, kind="contradiction", fact=fact, other_fact=other, reason="x")
    Proposal.objects.filter(workspace=work).update(evaluation=Proposal.Evaluation.FAILED)
    SettingsSearch.objects.create(workspace=work, requested_by_name="olga", status="failed")
    old = SettingsSearch.objects.create(workspace=work, requested_by_name="olga", status="failed")
    SettingsSearch.objects.filter(pk=old.pk).update(created_at=timezone.now() - inbox.FAILED_WINDOW - timedelta(days=1))
    roles = inbox.memberships(personas.admin)
    with django_assert_num_queries(1):
        waiting = inbox.waiting_for(personas.admin, roles=roles)
    assert [(item.workspace, item.what, item.role) for item in waiting] == [
        ("acme", "1 contradiction to decide", "owner"), ("acme", "1 held write to decide", "owner"),
        ("acme", "1 durable promotion to approve", "approver"), ("acme", "1 proposal awaiting a decision", "approver"),
        ("acme", "1 gold set to approve", "approver"), ("acme", "1 proposal evaluation failed", "owner"),
        ("acme", "1 settings search failed", "owner"), ("acme", "1 import failed", "admin"),
        ("globex", "2 contradictions to decide", "owner")]  # fmt: skip
    assert inbox.total_waiting(personas.admin, known=waiting) == 10


def test_the_home_page_lists_the_work_and_the_top_bar_counts_it(work, personas):
    page = client_for(personas.approver).get("/").content.decode()
    inbox_html = page.split('id="inbox"')[1].split("</section>")[0]
    assert f'href="/w/{work.name}/review/?kind=promotion"' in inbox_html and "1 durable promotion to approve" in inbox_html
    assert f'href="/w/{work.name}/proposals/?status=pending"' in inbox_html
    assert 'id="nav-inbox">Inbox <span class="badge" title="things waiting for you">3</span>' in page
    empty = client_for(personas.stranger).get("/").content.decode()
    assert "not a member of any workspace" in empty


def test_the_switcher_works_without_javascript(work, personas):
    client = client_for(personas.owner)
    assert client.get(f"/?workspace={work.name}")["Location"] == f"/w/{work.name}/"
    assert client.get("/?workspace=globex").status_code == 200  # not theirs: the home page, nothing said


def test_other_pages_fetch_the_count_after_they_load(work, personas):
    client = client_for(personas.approver)
    page = client.get(f"/w/{work.name}/facts/").content.decode()
    assert 'hx-get="/inbox/count/"' in page
    assert client.get("/inbox/count/").content.decode() == '<span class="badge" title="things waiting for you">3</span>'
    assert client_for(personas.stranger).get("/inbox/count/").content.decode() == "<span></span>"
    from django.test import Client

    assert Client().get("/inbox/count/").status_code == 302
