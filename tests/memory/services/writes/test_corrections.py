"""Correcting a fact: the same correction twice makes one fact; a superseded fact is not corrected again."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from memory.models import Fact, MemoryEvent
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import correct_fact, set_lifecycle

pytestmark = pytest.mark.django_db
OLD, NEW = "I keep a strict vegetarian diet.", "I keep a strict vegan diet."


def _successors(workspace, memory_id: str) -> list[str]:
    return [f.memory_id for f in Fact.objects.filter(workspace=workspace) if memory_id in (f.supersedes or [])]


def test_submitting_the_same_correction_twice_yields_one_fact(workspace, tl):
    old = tl.add(OLD, segment="preference")
    first = correct_fact(workspace=workspace, memory_id=old.id, content=NEW, actor="user:olga")
    again = correct_fact(workspace=workspace, memory_id=old.id, content=f"  {NEW} ", actor="user:olga")
    assert again.fact.memory_id == first.fact.memory_id and again.outcome == "unchanged"
    assert _successors(workspace, old.id) == [first.fact.memory_id]
    assert MemoryEvent.objects.filter(workspace=workspace, kind="created").count() == 2  # the old fact and one correction


def test_correcting_an_already_superseded_fact_names_its_successor(workspace, tl):
    old = tl.add(OLD, segment="preference")
    first = correct_fact(workspace=workspace, memory_id=old.id, content=NEW, actor="user:olga")
    with pytest.raises(RequestError) as caught:
        correct_fact(workspace=workspace, memory_id=old.id, content="I keep a pescatarian diet.", actor="user:olga")
    assert caught.value.kind == "conflict"
    assert f"already superseded by {first.fact.memory_id}" in caught.value.message
    assert _successors(workspace, old.id) == [first.fact.memory_id]


def test_a_fact_replaced_through_its_slot_or_supersedes_also_names_its_successor(workspace, tl):
    lisbon = tl.add("I live in Lisbon.", segment="identity", subject_key="home_city")
    porto = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    with pytest.raises(RequestError, match=f"already superseded by {porto.id}"):
        correct_fact(workspace=workspace, memory_id=lisbon.id, content="I live in Braga.", actor="user:olga")
    editor = tl.add("My favourite editor is VS Code.", segment="preference")
    neovim = tl.add("My favourite editor is Neovim.", segment="preference", supersedes=[editor.id])
    with pytest.raises(RequestError, match=f"already superseded by {neovim.id}"):
        correct_fact(workspace=workspace, memory_id=editor.id, content="My favourite editor is Helix.", actor="u")


def test_an_archived_fact_without_a_successor_must_be_restored_first(workspace, tl):
    old = tl.add(OLD, segment="preference")
    set_lifecycle(workspace=workspace, memory_ids=[old.id], lifecycle="archived", actor="u")
    with pytest.raises(RequestError, match="is archived; restore it"):
        correct_fact(workspace=workspace, memory_id=old.id, content=NEW, actor="u")
    assert Fact.objects.filter(workspace=workspace).count() == 1


def test_the_console_turns_a_double_submit_into_one_fact_and_explains_a_second_correction(client, owner, workspace, tl):
    old = tl.add(OLD, segment="preference")
    client.force_login(owner)
    url = f"/w/{workspace.name}/facts/{old.id}/correct/"
    first = client.post(url, {"content": NEW})
    assert "Correction stored" in client.get(first["Location"]).content.decode()
    second = client.post(url, {"content": NEW})
    assert first["Location"] == second["Location"] and len(_successors(workspace, old.id)) == 1
    said = client.get(second["Location"]).content.decode()
    assert "already stored; nothing changed" in said and "Correction stored" not in said
    page = client.post(url, {"content": "I eat anything."}, follow=True).content.decode()
    assert "already superseded by" in page and len(_successors(workspace, old.id)) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need a server database")
def test_two_concurrent_submissions_of_one_correction_make_one_fact(workspace, tl):
    old = tl.add(OLD, segment="preference")
    results, errors = [], []
    start = threading.Barrier(2)

    def submit():
        try:
            start.wait()
            results.append(correct_fact(workspace=workspace, memory_id=old.id, content=NEW, actor="u").fact.memory_id)
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(results)) == 1
    assert _successors(workspace, old.id) == results[:1]


def test_a_correction_that_is_not_worth_remembering_is_refused_and_replaces_nothing(workspace, tl):
    """Issue 18: "ok thanks!" once superseded a real preference from the console."""
    from memory.services.writes.policy import TidelineError

    old = tl.add(OLD, segment="preference")
    with pytest.raises(TidelineError) as caught:
        correct_fact(workspace=workspace, memory_id=old.id, content="ok thanks!", actor="user:olga")
    assert caught.value.kind == "unworthy"
    assert Fact.objects.get(memory_id=old.id).lifecycle == "active" and _successors(workspace, old.id) == []


def test_a_held_correction_says_it_is_held_and_names_the_person_who_made_it(client, owner, workspace, tl):
    peer = tl.add("The user likes green tea.", segment="preference", origin="channel:slack/general/s1")
    client.force_login(owner)
    response = client.post(f"/w/{workspace.name}/facts/{peer.id}/correct/", {"content": "The user likes black tea."})
    held = Fact.objects.get(workspace=workspace, lifecycle="held")
    assert response["Location"].endswith(f"/facts/{held.memory_id}/")
    page = client.get(response["Location"]).content.decode()
    assert "Held for review" in page and "held for review" in page and "supersedes the old fact" not in page
    assert Fact.objects.get(memory_id=peer.id).lifecycle == "active"  # nothing replaced before the verdict
    reason = MemoryEvent.objects.get(workspace=workspace, kind="held").reason
    assert "made in the console by olga" in reason and "a correction by a channel peer" not in reason
