"""Retract and hard purge (memory.services.lifecycle.retract_and_purge): the cascade, the links, the receipt, every process."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory.engine.facts import records as R
from memory.models import Fact, FactTerm, FactVector, Link, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import set_lifecycle
from memory.services.lifecycle.retract_and_purge import (
    plan,
    purge_facts,
    purge_in_mutation,
    receipt_matches,
    retract_facts,
)
from memory.services.maintenance.graph import export_graph
from memory.services.mutation import mutate
from memory.services.recall import verbs as recall_service
from memory.services.recall.embedding import store_vectors
from memory.services.recall.index import IndexRegistry, registry
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
SECRET = "The vault combination is 7-3-9-1 and lives behind the painting."
SUMMARY = "Summary: the vault code sits behind the painting in the hall."
BOTH = "Both notes mention the painting in the hall and the green door."


class FakeEmbedder:
    fingerprint = "fake-embedder:0001"

    def embed(self, texts):
        return np.ones((len(texts), 8), dtype=np.float32)


@pytest.fixture
def world(workspace):
    tl = Tideline(workspace, actor="user:root")
    secret = tl.add(SECRET, segment="knowledge")
    door = tl.add("The vault door is painted green.", segment="knowledge", links=[("relates", secret.id, "same vault")])
    summary = tl.add(SUMMARY, segment="knowledge")
    both = tl.add(BOTH, segment="knowledge")
    chained = tl.add("A note on the summary about the hall painting.", segment="knowledge")
    Fact.objects.filter(memory_id=summary.id).update(source_pointers=[secret.id])
    Fact.objects.filter(memory_id=both.id).update(source_pointers=[secret.id, door.id])
    Fact.objects.filter(memory_id=chained.id).update(source_pointers=[summary.id])
    store_vectors(list(Fact.objects.filter(workspace=workspace)), FakeEmbedder())
    return tl, {"secret": secret.id, "door": door.id, "summary": summary.id, "both": both.id, "chained": chained.id}


def _ids(workspace):
    return set(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True))


def test_a_hard_purge_cascades_along_provenance_and_leaves_one_content_free_receipt(world, workspace):
    tl, ids = world
    assert plan(workspace, [ids["secret"]]).purged == (ids["secret"], ids["summary"], ids["chained"])
    report = purge_facts(workspace, [ids["secret"]], actor="user:root", reason="GDPR request 12")
    assert (report.facts, report.cascaded, report.links) == (3, 2, 1) and report.hard
    assert set(report.purged_ids) == {ids["secret"], ids["summary"], ids["chained"]}
    assert _ids(workspace) == {ids["door"], ids["both"]}  # `both` still stands on the door
    assert not Link.objects.filter(workspace=workspace).exists()  # door → secret went with secret
    assert FactVector.objects.filter(workspace=workspace).count() == 2
    assert not FactTerm.objects.filter(fact__memory_id__in=report.purged_ids).exists()
    receipt = MemoryEvent.objects.get(workspace=workspace, kind="purged")
    assert receipt.revision == report.revision and receipt.actor == "user:root" and receipt.reason == "GDPR request 12"
    assert receipt.fact_ids == report.purged_ids
    assert receipt.data["facts"] == 3 and receipt.data["links"] == 1 and receipt.data["review_items_closed"] == 0
    text = json.dumps({"data": receipt.data, "ids": receipt.fact_ids, "reason": receipt.reason})
    for content in (SECRET, SUMMARY, "7-3-9-1", "painting", "vault"):
        assert content not in text
    assert receipt_matches(receipt, ids["secret"], SECRET)
    assert receipt_matches(receipt, ids["secret"]) and not receipt_matches(receipt, ids["secret"], SECRET + "!")
    assert not receipt_matches(receipt, ids["door"])


def test_progress_hears_of_every_fact_deleted(world, workspace):
    _, ids = world
    ticks = []
    report = purge_facts(workspace, [ids["secret"]], actor="user:root", progress=ticks.append)
    assert sum(ticks) == report.facts == 3


def test_without_cascade_only_the_named_facts_go(world, workspace):
    tl, ids = world
    report = tl.purge([ids["secret"]], hard=True, cascade=False, reason="just that one")
    assert report.purged_ids == [ids["secret"]] and report.facts == 1
    assert _ids(workspace) == {ids["door"], ids["summary"], ids["both"], ids["chained"]}


def test_eligible_limits_the_cascade_as_retention_needs(world, workspace):
    _, ids = world
    with mutate(workspace, actor="task:retention") as m:
        report = purge_in_mutation(m, [ids["secret"]], reason="older than 30 days", eligible={ids["chained"]})
    assert report.purged_ids == [ids["secret"]]  # the summary was not eligible, so its note stands too
    assert MemoryEvent.objects.filter(kind="purged").count() == 1


def test_unknown_ids_change_nothing(world, workspace):
    revision = Workspace.objects.get(pk=workspace.pk).revision
    with pytest.raises(RequestError) as refused:
        purge_facts(workspace, ["mem_never_was"], actor="user:root")
    assert "nothing matches" in refused.value.message
    with pytest.raises(RequestError):
        retract_facts(workspace, ["mem_never_was"], actor="user:root")
    assert Workspace.objects.get(pk=workspace.pk).revision == revision
    assert not MemoryEvent.objects.filter(kind="purged").exists()


def test_a_retraction_archives_with_the_reason_and_the_restore_brings_it_back(world, workspace):
    tl, ids = world
    report = tl.purge([ids["secret"]], reason="the owner asked")
    assert not report.hard and report.purged_ids == [ids["secret"]]
    fact = Fact.objects.get(memory_id=ids["secret"])
    assert (fact.lifecycle, fact.status) == ("archived", "retracted") and fact.archived_at is not None
    event = MemoryEvent.objects.filter(kind="archived", fact_ids=[ids["secret"]]).get()
    assert event.reason == "the owner asked" and event.actor == "user:root"
    assert ids["secret"] not in [h.id for h in tl.recall("vault combination", reinforce=False)]
    assert _ids(workspace) >= {ids["summary"], ids["chained"]}  # nothing else moved
    assert set_lifecycle(workspace=workspace, memory_ids=[ids["secret"]], lifecycle="active", actor="user:root") == 1
    assert Fact.objects.get(memory_id=ids["secret"]).status is None
    assert ids["secret"] in [h.id for h in tl.recall("vault combination painting", reinforce=False)]


def _hits(workspace, query="vault combination painting"):
    return [h.id for h in recall_service.recall(workspace=workspace, query=query, origin="owner",
                                                   reinforce=False, embedder=None)]  # fmt: skip


def test_warm_indexes_in_this_and_another_process_drop_purged_facts(world, workspace, monkeypatch):
    """Two registries stand for two processes, both warm before the purge; neither runs it."""
    _, ids = world
    second = IndexRegistry()
    assert ids["secret"] in _hits(workspace)
    graph = export_graph(workspace)
    assert ids["secret"] in {node.id for node in graph.nodes}
    monkeypatch.setattr(recall_service, "registry", second)
    assert ids["secret"] in _hits(workspace)

    purge_facts(workspace, [ids["secret"]], actor="user:root")
    gone = {ids["secret"], ids["summary"], ids["chained"]}
    assert not gone & set(_hits(workspace)) and not gone & set(_hits(workspace, "summary hall painting note"))
    assert not gone & set(second.get(workspace, R.parse_origin("owner")).rows)
    monkeypatch.setattr(recall_service, "registry", registry)
    assert not gone & set(_hits(workspace))
    graph = export_graph(workspace)
    assert not gone & {node.id for node in graph.nodes}
    assert not gone & {e.source for e in graph.edges} | {e.target for e in graph.edges}



def test_a_shredded_tombstone_can_be_purged_its_content_hash_left_empty(workspace):
    from memory.services.keys.crypto_shred import shred_origin

    peer = R.Origin("channel", "slack", "team", "s1")
    tl = Tideline(workspace)
    gone = tl.add("The deploy password is hunter2.", segment="knowledge", origin=peer).id
    derived = tl.add("Deploy notes from the team channel.", segment="knowledge").id
    Fact.objects.filter(memory_id=derived).update(source_pointers=[gone])
    shred_origin(workspace, peer.key, actor="user:root")
    # A shredded source is not live: the owner's note standing on it alone goes with it.
    report = purge_facts(workspace, [gone], actor="user:root", reason="tidy tombstones")
    assert report.purged_ids == [gone, derived]
    receipt = MemoryEvent.objects.get(kind="purged")
    assert receipt.data["hashes"][0][1] is None and receipt.data["hashes"][1][1] is not None
    assert receipt_matches(receipt, gone) and not receipt_matches(receipt, gone, "The deploy password is hunter2.")
