"""Crypto-shred of one origin: tombstones, no plaintext anywhere, in this process and any other."""

from __future__ import annotations

import numpy as np
import pytest

from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, FactTerm, FactVector, Link, MemoryEvent, TermStat
from memory.services.errors import NotFoundError, RequestError
from memory.services.keys.crypto_shred import origins_with_counts, preview_shred, shred_origin
from memory.services.maintenance.graph import export_graph
from memory.services.maintenance.passes import maint_facts
from memory.services.recall import verbs as recall_service
from memory.services.recall.embedding import VECTOR_FIELD, store_vectors
from memory.services.recall.index import IndexRegistry, registry
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
SECRET = "The vault combination is 7-3-9-1 and lives behind the painting."


class FakeEmbedder:
    fingerprint = "fake-embedder:0001"

    def embed(self, texts):
        return np.ones((len(texts), 8), dtype=np.float32)


@pytest.fixture
def world(workspace):
    tl = Tideline(workspace)
    secret = tl.add(SECRET, segment="knowledge", origin=PEER, metadata={"where": "painting"})
    other = tl.add("The vault door is painted green.", segment="knowledge", origin=PEER,
                   links=[("relates", secret.id, "same vault")])  # fmt: skip
    mine = tl.add("The vault in my house holds passports.", segment="knowledge")
    store_vectors(list(Fact.objects.filter(workspace=workspace)), FakeEmbedder())
    return tl, secret, other, mine


def _hits(origin, query="vault combination painting"):
    return recall_service.recall(workspace=Fact.objects.first().workspace, query=query, origin=origin,
                                 reinforce=False, embedder=None)  # fmt: skip


def test_a_shred_leaves_tombstones_and_one_event_and_drops_postings_and_vectors(world, workspace):
    tl, secret, other, mine = world
    assert FactTerm.objects.filter(origin_key=PEER.key).exists() and TermStat.objects.filter(origin_key=PEER.key).exists()
    assert preview_shred(workspace, PEER.key).to_dict() == {
        "workspace": "acme", "origin_key": PEER.key, "facts": 2, "links": 1, "vectors": 2}  # fmt: skip
    report = shred_origin(workspace, PEER.key, actor="user:root", reason="GDPR request 12")
    assert (report.facts, report.links, report.vectors) == (2, 1, 2)
    tombstones = Fact.objects.filter(workspace=workspace, origin_key=PEER.key)
    assert tombstones.count() == 2  # rows stay, as tombstones
    assert not any(fact.is_readable for fact in tombstones)
    assert not FactTerm.objects.filter(origin_key=PEER.key).exists()
    assert not TermStat.objects.filter(origin_key=PEER.key).exists()
    assert not FactVector.objects.filter(fact__origin_key=PEER.key).exists()
    assert FactVector.objects.filter(fact__memory_id=mine.id).exists()  # other origins untouched
    event = MemoryEvent.objects.get(workspace=workspace, kind="shredded")
    assert event.revision == report.revision and event.actor == "user:root" and event.reason == "GDPR request 12"
    assert sorted(event.fact_ids) == sorted([secret.id, other.id])
    assert event.data == {"origin_key": PEER.key, "origin_label": PEER.label(), "facts": 2, "links": 1, "vectors": 2, "postings": report.postings}
    assert Fact.objects.get(memory_id=mine.id).content.startswith("The vault in my house")
    assert origins_with_counts(workspace) == [(PEER.key, PEER.label(), 2), ("owner", "owner", 1)]


def test_a_second_shred_is_refused_and_changes_nothing(world, workspace):
    shred_origin(workspace, PEER.key, actor="user:root")
    revision = workspace.__class__.objects.get(pk=workspace.pk).revision
    with pytest.raises(RequestError) as refused:
        shred_origin(workspace, PEER.key, actor="user:root")
    assert refused.value.kind == "conflict" and "already shredded" in refused.value.message
    with pytest.raises(RequestError):
        preview_shred(workspace, PEER.key)
    assert workspace.__class__.objects.get(pk=workspace.pk).revision == revision
    assert MemoryEvent.objects.filter(kind="shredded").count() == 1


@pytest.mark.parametrize("origin", ["channel:slack/nobody/none", "", "owner%00"])
def test_an_origin_without_facts_is_refused(workspace, origin):
    Tideline(workspace).add("The kettle is blue.", segment="knowledge")
    with pytest.raises((NotFoundError, RequestError)) as refused:
        shred_origin(workspace, origin, actor="user:root")
    assert refused.value.message
    assert not MemoryEvent.objects.filter(kind="shredded").exists()
    assert sealing.keyring.exists(workspace.pk, "owner")


def test_a_warm_index_in_another_registry_drops_the_shredded_origin(world, workspace, monkeypatch):
    """Two registries stand for two processes: both warm, the shred runs through neither, and the
    other one, which still holds the destroyed key in its cache, serves no plaintext and no hit."""
    second = IndexRegistry()
    assert [h.content for h in _hits(PEER)][:1] == [SECRET]  # the process-wide registry is warm
    monkeypatch.setattr(recall_service, "registry", second)
    assert [h.content for h in _hits(PEER)][:1] == [SECRET]  # and so is the second one
    index = second.get(workspace, PEER)
    assert SECRET in {row.content for row in index.rows.values()}
    stale = sealing.keyring.data_key(workspace.pk, PEER.key, create=False)

    shred_origin(workspace, PEER.key, actor="user:root")
    # The other process's key cache still holds the key for a second or two: put it back.
    now = __import__("time").monotonic()
    sealing.keyring._cache[(workspace.pk, PEER.key)] = {str(sealing.settings.TIDELINE_KEYSTORE_DIR): (stale, now)}

    assert _hits(PEER) == [] and _hits(PEER, "vault door green") == []
    assert index.rows == {} and index.cols is None and index.vectors == {} and index.learned == {}
    assert recall_service.context(workspace=workspace, query="vault", origin=PEER, embedder=None) is None
    assert recall_service.explain(workspace=workspace, query="vault", origin=PEER, embedder=None) == []
    monkeypatch.setattr(recall_service, "registry", registry)
    assert _hits(PEER) == []
    assert [h.id for h in _hits("owner", "vault passports")] == [world[3].id]  # the owner's recall is intact


def test_a_key_destroyed_without_an_event_empties_a_warm_index_on_its_next_use(world, workspace):
    assert _hits(PEER)
    index = registry.get(workspace, PEER)
    sealing.keyring.destroy(workspace.pk, PEER.key)  # no event: the revision does not move
    assert _hits(PEER) == []
    assert index.rows == {} and index.cols is None


def test_a_restored_dump_from_before_the_shred_reads_nothing_of_that_origin(world, workspace, client, personas):
    """Every sealed value of the origin as it was before the shred (a database dump), put back after
    it, with the key store as the shred left it: nothing opens, the console says shredded."""
    tl, secret, other, mine = world
    dump = {
        "facts": list(Fact.objects.filter(origin_key=PEER.key).values("pk", "sealed_content", "sealed_metadata")),
        "vectors": list(FactVector.objects.filter(fact__origin_key=PEER.key).values()),
        "reasons": list(Link.objects.filter(from_fact__origin_key=PEER.key).values_list("sealed_reason", flat=True)),
    }
    assert dump["facts"] and dump["vectors"] and all(dump["reasons"])
    shred_origin(workspace, PEER.key, actor="user:root")
    for row in dump["facts"]:  # restore the rows from the dump
        Fact.objects.filter(pk=row["pk"]).update(sealed_content=row["sealed_content"], sealed_metadata=row["sealed_metadata"])
    FactVector.objects.bulk_create([FactVector(**row) for row in dump["vectors"]])
    sealing.keyring.forget_cache()
    for row in dump["facts"]:
        for field, sealed in (("content", row["sealed_content"]), ("metadata", row["sealed_metadata"])):
            if sealed is None:
                continue
            with pytest.raises(sealing.KeyDestroyedError):
                sealing.unseal(workspace.pk, PEER.key, field, sealed)
    for row in dump["vectors"]:
        with pytest.raises(sealing.KeyDestroyedError):
            sealing.unseal(workspace.pk, PEER.key, VECTOR_FIELD, row["sealed_vector"])
    for sealed in dump["reasons"]:
        with pytest.raises(sealing.KeyDestroyedError):
            sealing.unseal(workspace.pk, PEER.key, "link_reason", sealed)
    assert _hits(PEER) == []
    assert {f["memoryId"] for f in tl.export()} == {mine.id}
    assert all(r.content is not None for r in maint_facts(workspace))  # no crash, tombstones skipped
    client.force_login(personas.admin)
    page = client.get(f"/w/{workspace.name}/facts/{secret.id}/")
    assert page.status_code == 200 and b"shredded" in page.content and b"vault combination" not in page.content
    listing = client.get(f"/w/{workspace.name}/facts/")
    assert listing.status_code == 200 and b"vault combination" not in listing.content


def test_exports_and_the_graph_skip_a_shredded_origin(world, workspace):
    tl, secret, other, mine = world
    shred_origin(workspace, PEER.key, actor="user:root")
    assert [record["memoryId"] for record in tl.export()] == [mine.id]
    assert list(tl.export(origin=PEER)) == []
    assert {f.memory_id for f in maint_facts(workspace, lifecycles=None)} == {mine.id}
    graph = export_graph(workspace)
    assert {node.id for node in graph.nodes} == {mine.id}
    assert all(mine.id in (edge.source, edge.target) for edge in graph.edges)
