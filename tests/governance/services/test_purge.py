"""Purge as governance offers it (governance/services/purge.py): selection, preview, confirmation, receipt."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from governance.models import ReviewItem
from governance.services import purge
from memory.engine.facts import records as R
from memory.models import Fact, Link, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
JAN = datetime(2026, 1, 10, tzinfo=UTC)
MAR = datetime(2026, 3, 10, tzinfo=UTC)
TEXTS = {
    "address": "Olga lives at 12 Rua das Flores, Lisbon.",
    "phone": "Olga's phone number is +351 912 345 678.",
    "summary": "Contact card: Olga, Lisbon, reachable by phone.",
    "tea": "I like green tea in the morning.",
    "peer": "The release train leaves on Thursdays.",
}


@pytest.fixture
def world(workspace):
    tl = Tideline(workspace, actor="user:ada")
    ids = {
        "address": tl.add(TEXTS["address"], segment="identity", now=JAN).id,
        "phone": tl.add(TEXTS["phone"], segment="identity", now=MAR).id,
        "tea": tl.add(TEXTS["tea"], segment="preference", now=JAN).id,
        "peer": tl.add(TEXTS["peer"], segment="knowledge", origin=PEER, now=JAN).id,
    }
    ids["summary"] = tl.add(TEXTS["summary"], segment="knowledge", now=MAR,
                            links=[("derived_from", ids["address"], "built from the address"),
                                   ("relates", ids["tea"], "")]).id  # fmt: skip
    Fact.objects.filter(memory_id=ids["summary"]).update(source_pointers=[ids["phone"]])
    item = ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact_id=_pk(ids["address"]),
                                     fact_memory_id=ids["address"], other_fact_id=_pk(ids["tea"]),
                                     other_memory_id=ids["tea"], reason="they disagree")  # fmt: skip
    return ids, item


def _pk(memory_id):
    return Fact.objects.get(memory_id=memory_id).pk


def _left(workspace):
    return set(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True))


def test_selections_and_them_together(world, workspace):
    ids, _ = world
    sel = purge.Selection.parse
    assert purge.select(workspace, sel(segment="identity")) == [ids["address"], ids["phone"]]
    assert purge.select(workspace, sel(segment="identity", after="2026-02-01")) == [ids["phone"]]
    assert purge.select(workspace, sel(before="2026-02-01")) == [ids["address"], ids["tea"], ids["peer"]]
    assert purge.select(workspace, sel(origin=PEER.label())) == [ids["peer"]]
    assert purge.select(workspace, sel(origin="owner", before="2026-02-01", segment="preference")) == [ids["tea"]]
    assert purge.select(workspace, sel(facts=[f"{ids['tea']},{ids['peer']}"], origin="owner")) == [ids["tea"]]
    assert purge.select(workspace, sel(query="Olga phone number", limit=1)) == [ids["phone"]]
    assert purge.select(workspace, sel(query="release train Thursdays", origin=PEER.key)) == [ids["peer"]]


def test_preview_lists_every_fact_link_and_item_with_the_cascade_marked(world, workspace):
    ids, item = world
    seen = purge.preview(workspace, purge.Selection.parse(segment="identity"), hard=True)
    assert (seen.facts, seen.cascaded, seen.links, seen.open_review_items) == (3, 1, 2, 1)
    assert [(r["memory_id"], r["cascade"]) for r in seen.fact_rows] == [
        (ids["address"], False), (ids["phone"], False), (ids["summary"], True)]  # fmt: skip
    assert seen.fact_rows[0]["content"] == TEXTS["address"] and seen.fact_rows[0]["origin"] == "owner"
    assert {(r["from"], r["kind"], r["to"]) for r in seen.link_rows} == {
        (ids["summary"], "derived_from", ids["address"]), (ids["summary"], "relates", ids["tea"])}  # fmt: skip
    assert [r["id"] for r in seen.item_rows] == [item.pk]
    soft = purge.preview(workspace, purge.Selection.parse(segment="identity"))
    assert (soft.facts, soft.cascaded, soft.links, soft.open_review_items) == (2, 0, 0, 0)


def test_preview_pages(world, workspace):
    tl = Tideline(workspace)
    for i in range(7):
        tl.add(f"Bulk note number {i} about warehouse shelf {i * 13}.", segment="context")
    sel = purge.Selection.parse(segment="context")
    first = purge.preview(workspace, sel, hard=True, per_page=3)
    last = purge.preview(workspace, sel, hard=True, per_page=3, page=99)
    assert first.facts == 7 and first.pages["facts"] == {"page": 1, "pages": 3, "per_page": 3, "total": 7}
    assert len(first.fact_rows) == 3 and len(last.fact_rows) == 1 and last.pages["facts"]["page"] == 3
    assert purge.preview(workspace, sel, hard=True, per_page=3, page="x").pages["facts"]["page"] == 1


def test_a_hard_purge_removes_facts_links_items_and_leaves_a_content_free_receipt(world, workspace):
    ids, item = world
    sel = purge.Selection.parse(segment="identity")
    report = purge.apply(workspace, sel, hard=True, typed="3", actor="user:ada", reason="erasure request 9")
    assert (report.facts, report.cascaded, report.links, report.review_items_closed) == (3, 1, 2, 1)
    assert _left(workspace) == {ids["tea"], ids["peer"]}
    assert not Link.objects.filter(workspace=workspace).exists()
    item.refresh_from_db()
    assert item.status == "closed" and "purged" in item.details["closed_reason"]
    receipt = MemoryEvent.objects.get(kind="purged")
    assert receipt.actor == "user:ada" and receipt.reason == "erasure request 9"
    assert receipt.data["facts"] == 3 and receipt.data["links"] == 2 and receipt.data["review_items_closed"] == 1
    assert len(receipt.data["hashes"]) == 3 and sorted(receipt.fact_ids) == sorted(report.purged_ids)
    everything = json.dumps({"data": receipt.data, "fact_ids": receipt.fact_ids, "reason": receipt.reason})
    for text in (TEXTS["address"], TEXTS["phone"], TEXTS["summary"], "Rua das Flores", "912 345", "Olga"):
        assert text not in everything
    assert purge.receipts(workspace)[0]["facts"] == 3


def test_a_confirmation_that_does_not_match_changes_nothing(world, workspace):
    sel = purge.Selection.parse(segment="identity")
    revision = Workspace.objects.get(pk=workspace.pk).revision
    for typed in ("2", "", "globex", "3 facts"):  # 2 is the count without the cascade
        with pytest.raises(RequestError) as refused:
            purge.apply(workspace, sel, hard=True, typed=typed, actor="user:ada")
        assert refused.value.kind == "confirmation" and "(3)" in refused.value.message
    assert Workspace.objects.get(pk=workspace.pk).revision == revision and len(_left(workspace)) == 5
    assert purge.apply(workspace, sel, hard=True, typed="acme", actor="user:ada").facts == 3


def test_retract_is_soft_and_a_second_retract_finds_nothing(world, workspace):
    ids, item = world
    sel = purge.Selection.parse(facts=[ids["address"]])
    report = purge.apply(workspace, sel, hard=False, typed="1", actor="user:ada", reason="asked")
    assert not report.hard and report.facts == 1 and len(_left(workspace)) == 5
    assert Fact.objects.get(memory_id=ids["address"]).status == "retracted"
    assert Link.objects.filter(to_fact__memory_id=ids["address"]).exists()  # links stay for a restore
    with pytest.raises(RequestError) as refused:
        purge.preview(workspace, sel)
    assert "nothing matches" in refused.value.message


def test_empty_selections_are_refused(world, workspace):
    with pytest.raises(RequestError) as refused:
        purge.preview(workspace, purge.Selection.parse(segment="project"))
    assert "nothing matches" in refused.value.message and refused.value.kind == "not_found"
    with pytest.raises(RequestError):
        purge.Selection.parse()


def test_a_retraction_closes_the_open_review_items_of_its_facts(world, workspace):
    ids, item = world
    from memory.services.lifecycle.retract_and_purge import retract_facts

    retract_facts(workspace, [ids["tea"]], actor="user:ada", reason="wrong person")
    item.refresh_from_db()
    assert item.status == "closed" and "retracted (wrong person)" in item.details["closed_reason"]
    closing = MemoryEvent.objects.filter(workspace=workspace, kind="reviewed", data__review_action="closed")
    assert list(closing.values_list("fact_ids", flat=True)) == [[ids["tea"]]]
