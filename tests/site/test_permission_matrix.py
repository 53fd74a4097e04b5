"""Every console URL × every persona: anonymous ⇒ 302 to login; member of another workspace ⇒ 404;
owner, approver and admin ⇒ 200 on the reading pages (mutating screens come with their issues)."""

from __future__ import annotations

import json

import pytest

from governance.models import GoldSet, Proposal, ReviewItem, SettingsSearch
from governance.services import gold, proposals
from memory.models import Fact
from memory.services.lifecycle.curation import fact_states
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
URLS = ["/w/{ws}/", "/w/{ws}/facts/", "/w/{ws}/facts/{fact}/", "/w/{ws}/facts/{fact}/panel/", "/w/{ws}/graph/", "/w/{ws}/recall/?q=porto",
        "/w/{ws}/events/", "/w/{ws}/exports/events/?format=csv", "/w/{ws}/review/", "/w/{ws}/review/?q=porto&kind=contradiction",
        "/w/{ws}/review/{item}/", "/w/{ws}/review/settings/", "/w/{ws}/shred/", "/w/{ws}/shred/?origin=owner",
        "/w/{ws}/retention/", "/w/{ws}/retention/?preview=1&edit=1", "/w/{ws}/purge/",
        "/w/{ws}/purge/?segment=identity&mode=hard", "/w/{ws}/members/", "/w/{ws}/exports/",
        "/w/{ws}/exports/facts/?format=jsonl", "/w/{ws}/exports/facts/?format=json&segment=identity",
        "/w/{ws}/exports/graph/?format=graphml", "/w/{ws}/exports/import/", "/w/{ws}/proposals/",
        "/w/{ws}/proposals/?status=pending", "/w/{ws}/proposals/{proposal}/", "/w/{ws}/proposals/searches/{search}/",
        "/w/{ws}/gold/", "/w/{ws}/gold/{gold}/",
        "/w/{ws}/gold/score/?set={gold}&k=8",
        "/w/{ws}/tokens/", "/w/{ws}/webhooks/"]  # fmt: skip
# The outsider holds every role, but in another workspace (tests/personas.py).
PERSONAS = ["anonymous", "outsider", "owner", "approver", "admin"]
EXPECTED = {"anonymous": 302, "outsider": 404, "owner": 200, "approver": 200, "admin": 200}
# Admin-only pages: owners and approvers are refused (403), even the preview (docs/SECURITY.md).
ADMIN_ONLY = ("/w/{ws}/shred/", "/w/{ws}/purge/", "/w/{ws}/exports/", "/w/{ws}/tokens/", "/w/{ws}/webhooks/")


@pytest.fixture
def world(workspace, personas):
    memory = Tideline(workspace)
    fact = memory.add("I live in Porto.", segment="identity")
    other = memory.add("I live in Lisbon.", segment="identity")
    item = ReviewItem.objects.create(workspace=workspace, kind="contradiction", reason="two cities",
                                     fact=Fact.objects.get(memory_id=fact.id), other_fact=Fact.objects.get(memory_id=other.id))
    gold.scaffold(workspace, size=2, actor="setup")
    proposals.propose_tuning(workspace, {"ngram_floor": 0.5}, rationale="a test", actor="setup")
    SettingsSearch.objects.create(workspace=workspace, requested_by_name="setup", status="running", done=1, total=4)
    memory.feedback(fact.id, "up", query="Where do I live?")  # a gold-case candidate on the gold page
    return workspace, fact, personas, item


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("url", URLS)
def test_permission_matrix(client, world, persona, url):
    workspace, fact, users, item = world
    if persona in users:
        client.force_login(users[persona])
    response = client.get(url.format(ws=workspace.name, fact=fact.id, item=item.pk,
                                      proposal=Proposal.objects.get().pk, gold=GoldSet.objects.get().pk,
                                      search=SettingsSearch.objects.get().pk))
    admin_only = url.startswith(ADMIN_ONLY) and persona in ("owner", "approver")
    assert response.status_code == (403 if admin_only else EXPECTED[persona])
    if persona == "anonymous":
        assert response["Location"].startswith("/login/")


def test_an_unknown_workspace_is_404_for_everyone_signed_in(client, world):
    _, _, users, _ = world
    client.force_login(users["owner"])
    assert client.get("/w/nope/").status_code == 404


# Mutating review screens: who may POST (the others get 403, and nothing changes).
POSTS = {"/w/{ws}/review/settings/": {"admin"}, "/w/{ws}/review/bulk/": {"owner", "admin"}}


@pytest.mark.parametrize("persona", ["owner", "approver", "admin"])
def test_only_admins_change_review_settings(client, world, persona):
    workspace, _, users, _ = world
    client.force_login(users[persona])
    response = client.post(f"/w/{workspace.name}/review/settings/", {"hold_confined_writes": "on"})
    workspace.refresh_from_db()
    allowed = persona in POSTS["/w/{ws}/review/settings/"]
    assert response.status_code == (302 if allowed else 403)
    assert workspace.hold_confined_writes is allowed
    # an unchecked box turns a setting off: the admin's save above turned promotions off
    assert workspace.hold_durable_promotions is (not allowed)


@pytest.mark.parametrize("persona", PERSONAS)
def test_bulk_verdicts_by_persona(client, world, persona):
    """A confirmed bulk verdict on the contradiction: deciders 302 back to the list with it decided;
    an approver 403; another workspace's member 404; anonymous to the login page; nothing changes but
    for the deciders."""
    workspace, _, users, item = world
    if persona in users:
        client.force_login(users[persona])
    seen = json.dumps(fact_states(workspace, [item.fact.memory_id, item.other_fact.memory_id]))
    url = f"/w/{workspace.name}/review/bulk/"
    response = client.post(url, {"ids": [item.pk], "verdict": "dismiss", "confirm": "yes", "seen": seen})
    allowed = persona in POSTS["/w/{ws}/review/bulk/"]
    assert response.status_code == {"anonymous": 302, "outsider": 404}.get(persona, 302 if allowed else 403)
    if persona == "anonymous":
        assert response["Location"].startswith("/login/")
    item.refresh_from_db()
    assert item.status == ("dismissed" if allowed else "open")



@pytest.mark.parametrize("persona", ["owner", "approver", "admin"])
def test_the_navigation_shows_admin_pages_to_admins_only(client, world, persona):
    workspace, _, users, _ = world
    client.force_login(users[persona])
    base = f"/w/{workspace.name}"
    # Every page shows the four sections; a section's pages show on its own pages.
    facts = client.get(f"{base}/facts/").content.decode()
    for section_start in ("/", "/review/", "/proposals/", "/members/"):
        assert f'href="{base}{section_start}"' in facts
    governance = client.get(f"{base}/proposals/").content.decode()
    assert (f'href="{base}/shred/"' in governance) is (persona == "admin")
    assert (f'href="{base}/purge/"' in governance) is (persona == "admin")
    assert (f'href="{base}/exports/"' in governance) is (persona == "admin")
    settings = client.get(f"{base}/members/").content.decode()
    assert (f'href="{base}/tokens/"' in settings) is (persona == "admin")
    assert (f'href="{base}/webhooks/"' in settings) is (persona == "admin")
    # Every member reads the retention policies and the members list, so every member is shown them.
    assert f'href="{base}/retention/"' in governance and f'href="{base}/members/"' in settings
