"""The home page is an inbox (governance/services/inbox.py, tideline_site/home.py): what waits for the
signed-in person, workspace by workspace, by the roles they hold, never their own work to approve."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from governance.models import GoldSet, ImportJob, Proposal, ReviewItem
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
