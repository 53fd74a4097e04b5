"""The purge page (/w/<ws>/purge/): admins only, a paginated preview with the cascade marked, a typed
confirmation that changes nothing when it does not match, a receipt named on success."""

from __future__ import annotations

import pytest

from governance.models import ReviewItem
from memory.models import Fact, Link, MemoryEvent, Workspace
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
ADDRESS = "Olga lives at 12 Rua das Flores, Lisbon."


@pytest.fixture
def world(workspace, personas):
    tl = Tideline(workspace)
    address = tl.add(ADDRESS, segment="identity").id
    card = tl.add("Contact card for Olga in Lisbon.", segment="knowledge", links=[("derived_from", address, "")]).id
    tea = tl.add("I like green tea.", segment="preference").id
    ReviewItem.objects.create(workspace=workspace, kind="contradiction", reason="two cities",
                              fact=Fact.objects.get(memory_id=address), fact_memory_id=address,
                              other_fact=Fact.objects.get(memory_id=tea), other_memory_id=tea)  # fmt: skip
    return workspace, personas, {"address": address, "card": card, "tea": tea}


def _url(workspace):
    return f"/w/{workspace.name}/purge/"


def _revision(workspace):
    return Workspace.objects.get(pk=workspace.pk).revision


@pytest.mark.parametrize("role, status", [("owner", 403), ("approver", 403), ("outsider", 404), ("admin", 200)])
def test_who_may_see_and_post(client, world, role, status):
    workspace, users, ids = world
    client.force_login(users[role])
    assert client.get(_url(workspace)).status_code == status
    assert client.get(_url(workspace), {"facts": ids["tea"], "mode": "hard"}).status_code == status
    revision = _revision(workspace)
    response = client.post(_url(workspace), {"facts": ids["tea"], "mode": "hard", "confirm": "1"})
    assert response.status_code == (302 if role == "admin" else status)
    assert (_revision(workspace) == revision) is (role != "admin")


def test_anonymous_goes_to_the_login_page(client, world):
    response = client.get(_url(world[0]))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_preview_lists_facts_links_and_items_with_the_cascade_marked(client, world):
    workspace, users, ids = world
    client.force_login(users["admin"])
    page = client.get(_url(workspace)).content.decode()
    assert "Choose the facts" in page and 'name="confirm"' not in page and "No hard purge yet" in page
    page = client.get(_url(workspace), {"segment": "identity", "mode": "hard"}).content.decode()
    assert 'id="purge-count">2<' in page and "of which 1 only because it derives" in page
    assert ids["address"] in page and ids["card"] in page and 'class="purge-cascade"' in page
    assert "Rua das Flores" in page  # the admin's own view of what goes
    assert "Links (1)" in page and "Open review items (1)" in page and 'name="confirm"' in page
    soft = client.get(_url(workspace), {"segment": "identity"}).content.decode()
    assert 'id="purge-count">1<' in soft and "Links (" not in soft
    empty = client.get(_url(workspace), {"segment": "project"}).content.decode()
    assert "nothing matches" in empty and 'name="confirm"' not in empty


def test_the_preview_pages_through_every_fact(client, world):
    workspace, users, _ = world
    tl = Tideline(workspace)
    made = [tl.add(f"Bulk note {i} on warehouse shelf {i * 7}.", segment="context").id for i in range(55)]
    client.force_login(users["admin"])
    first = client.get(_url(workspace), {"segment": "context", "mode": "hard"}).content.decode()
    assert "page 1 of 2 (55 in all)" in first and made[0] in first and made[54] not in first
    assert 'rel="next"' in first
    second = client.get(_url(workspace), {"segment": "context", "mode": "hard", "page": "2"}).content.decode()
    assert made[54] in second and made[0] not in second and 'rel="prev"' in second


def test_a_wrong_confirmation_keeps_the_page_and_changes_nothing_then_the_count_purges(client, world):
    workspace, users, ids = world
    client.force_login(users["admin"])
    revision = _revision(workspace)
    form = {"segment": "identity", "mode": "hard", "reason": "erasure #7"}
    wrong = client.post(_url(workspace), {**form, "confirm": "1"})
    text = wrong.content.decode()
    assert wrong.status_code == 400 and "did not match" in text and 'name="confirm"' in text
    assert 'value="erasure #7"' in text and _revision(workspace) == revision
    assert Fact.objects.filter(workspace=workspace).count() == 3
    done = client.post(_url(workspace), {**form, "confirm": "2"}, follow=True)
    event = MemoryEvent.objects.get(kind="purged")
    text = done.content.decode()
    assert f"Receipt: the purged event at revision {event.revision}" in text
    assert "Past purges" in text and "erasure #7" in text and "user:ada" in text
    assert "Rua das Flores" not in text  # the receipt table shows no content
    assert set(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True)) == {ids["tea"]}
    assert not Link.objects.filter(workspace=workspace).exists()
    assert ReviewItem.objects.get().status == "closed"


def test_a_retraction_from_the_page(client, world):
    workspace, users, ids = world
    client.force_login(users["admin"])
    done = client.post(_url(workspace), {"facts": ids["tea"], "mode": "retract", "confirm": "acme"}, follow=True)
    assert "Retracted 1 fact" in done.content.decode()
    assert Fact.objects.get(memory_id=ids["tea"]).status == "retracted"


@pytest.mark.parametrize("role", ["owner", "approver", "admin"])
def test_the_navigation_links_the_page_for_admins_only(client, world, role):
    workspace, users, _ = world
    client.force_login(users[role])
    page = client.get(f"/w/{workspace.name}/proposals/").content.decode()
    assert (f'href="/w/{workspace.name}/purge/"' in page) is (role == "admin")


def test_the_memory_graph_page_drops_purged_facts_though_it_was_cached(client, world):
    workspace, users, ids = world
    client.force_login(users["admin"])
    assert ids["card"] in client.get(f"/w/{workspace.name}/graph/").content.decode()  # drawn and cached
    client.post(_url(workspace), {"facts": ids["address"], "mode": "hard", "confirm": "2"})
    graph = client.get(f"/w/{workspace.name}/graph/").content.decode()
    assert ids["card"] not in graph and ids["address"] not in graph and "1 active facts" in graph
