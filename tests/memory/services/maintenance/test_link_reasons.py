"""Link reasons are content: sealed under the source fact's origin, gone with a crypto-shred."""

from __future__ import annotations

import json

import pytest
from cryptography.exceptions import InvalidTag
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from memory import sealing
from memory.engine.facts import records as R
from memory.models import REASON_UNREADABLE, Link
from memory.services.writes.interchange import export_facts, import_facts
from tests.factories import make_fact
from tests.memory.services.keys.test_sealing import _database_bytes

PEER = R.Origin("channel", "slack", "team", "s1")
PEER_BY = {"kind": "channel", "channelId": "slack", "conversationId": "team", "sessionKey": "s1"}
REASON = "Reason-9c2e: vegetarian vs a meat sandwich"
OTHER_REASON = "Reason-4b7d: the owner's own words, ünïcödé included"


def _record(memory_id, content, *, origin=None, links=()):
    record = {"memoryId": memory_id, "content": content, "segment": "preference", "tier": "long",
              "importance": 0.7, "decayRate": 0.02, "accessCount": 0, "lastAccessedAt": 1750000000000,
              "createdAt": 1750000000000, "lifecycle": "active", "links": list(links)}  # fmt: skip
    if origin:
        record["createdBy"] = origin
        record["sourceType"] = "channel_message"
    return record


RECORDS = [
    _record("mem_veg", "The peer is vegetarian", origin=PEER_BY,
            links=[{"kind": "contradicts", "target": "mem_sandwich", "reason": REASON}]),
    _record("mem_sandwich", "The peer ordered a ham sandwich", origin=PEER_BY),
    # A link from the owner's fact to the peer's: sealed under the owner's origin, its source.
    _record("mem_owner", "I cook vegetarian dinners for guests",
            links=[{"kind": "relates", "target": "mem_veg", "reason": OTHER_REASON},
                   {"kind": "relates", "target": "mem_sandwich"}]),
]  # fmt: skip


def _import(workspace):
    report = import_facts(workspace=workspace, lines=[json.dumps(r) for r in RECORDS], actor="test")
    assert (report.imported, report.links, report.refused) == (3, 3, [])


def _reason(memory_id, kind="contradicts"):
    return Link.objects.get(from_fact__memory_id=memory_id, kind=kind, to_fact__isnull=False).reason


@pytest.mark.django_db
def test_a_crypto_shred_leaves_the_origins_link_reasons_unreadable(workspace):
    _import(workspace)
    assert _reason("mem_veg") == REASON
    assert sealing.keyring.destroy(workspace.pk, PEER.key)
    sealing.keyring.forget_cache()
    assert _reason("mem_veg") == REASON_UNREADABLE
    # The owner's link into the shredded origin keeps its own (owner-sealed) words.
    assert (
        Link.objects.get(from_fact__memory_id="mem_owner", to_fact__memory_id="mem_veg").reason
        == OTHER_REASON
    )


@pytest.mark.django_db(transaction=True)
def test_no_link_reason_is_stored_in_the_clear(workspace, tmp_path):
    _import(workspace)
    raw = _database_bytes(tmp_path)
    assert b"mem_veg" in raw  # the rows really are in this image / dump
    for needle in ("Reason-9c2e", "meat sandwich", "Reason-4b7d"):
        for encoding in ("utf-8", "utf-16-le"):
            assert needle.encode(encoding) not in raw
        assert needle.encode().hex().encode() not in raw.lower()  # bytea hex in pg_dump


@pytest.mark.django_db
def test_import_then_export_round_trips_reasons(workspace):
    _import(workspace)
    exported = {record["memoryId"]: record for record in export_facts(workspace=workspace)}
    assert exported["mem_veg"]["links"] == RECORDS[0]["links"]
    assert exported["mem_owner"]["links"] == RECORDS[2]["links"]  # a link without reason stays without
    assert not exported["mem_sandwich"].get("links")


@pytest.mark.django_db
def test_links_written_through_the_write_path_are_sealed(tl, workspace):
    target = tl.add("I like spicy food.", segment="preference")
    fact = tl.add("I avoid anything with chili in it.", segment="preference",
                  links=[("contradicts", target.id, REASON), ("relates", target.id)])  # fmt: skip
    stored = {link.kind: link for link in Link.objects.filter(from_fact__memory_id=fact.id)}
    assert stored["contradicts"].reason == REASON and stored["relates"].reason == ""
    assert REASON.encode() not in bytes(stored["contradicts"].sealed_reason)
    assert stored["relates"].sealed_reason is None  # nothing to seal, no AES op spent


@pytest.mark.django_db
def test_the_fact_page_shows_link_reasons(client, owner, workspace):
    _import(workspace)
    client.force_login(owner)
    page = client.get(reverse("memory:fact-detail", args=[workspace.name, "mem_veg"])).content.decode()
    assert "vegetarian vs a meat sandwich" in page


@pytest.mark.django_db
def test_a_reason_sealed_under_one_origin_does_not_open_under_another(workspace):
    source = make_fact(workspace, "I am the source.")
    target = make_fact(workspace, "I am the target.", origin=PEER)
    link = Link.objects.create(
        workspace=workspace, from_fact=source, to_fact=target, kind="relates", reason=REASON
    )
    with pytest.raises(InvalidTag):  # bound to the source's origin: not usable under another key
        sealing.unseal(workspace.pk, PEER.key, "link_reason", link.sealed_reason)
    assert Link.objects.get(pk=link.pk).reason == REASON


@pytest.mark.django_db(transaction=True)
def test_the_migration_seals_existing_plaintext_reasons(workspace):
    # The facts are made with today's model first; going back to 0006 keeps their rows.
    source, target = make_fact(workspace, "I am the source."), make_fact(workspace, "I am the target.")
    shredded = make_fact(workspace, "The peer's fact.", origin=PEER)
    executor = MigrationExecutor(connection)
    executor.migrate([("memory", "0006_keystore_binding")])
    old = executor.loader.project_state([("memory", "0006_keystore_binding")]).apps
    OldFact, OldLink = old.get_model("memory", "Fact"), old.get_model("memory", "Link")  # noqa: N806
    OldLink.objects.create(workspace_id=workspace.pk, from_fact=OldFact.objects.get(pk=source.pk),
                           to_fact=OldFact.objects.get(pk=target.pk), kind="relates", reason=REASON)  # fmt: skip
    OldLink.objects.create(workspace_id=workspace.pk, from_fact=OldFact.objects.get(pk=shredded.pk),
                           to_fact=OldFact.objects.get(pk=target.pk), kind="relates", reason=OTHER_REASON)  # fmt: skip
    sealing.keyring.destroy(workspace.pk, PEER.key)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert Link.objects.get(from_fact=source).reason == REASON
    assert Link.objects.get(from_fact=shredded).sealed_reason is None  # died with its key
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM memory_link")
        assert not any(isinstance(v, str) and "Reason-" in v for row in cursor.fetchall() for v in row)


@pytest.mark.django_db
def test_the_event_log_refuses_truncate(workspace):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no TRUNCATE")
    from django.db import transaction
    from django.db.utils import IntegrityError

    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # TRUNCATE waits for no deferred FK checks
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE memory_memoryevent")
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE memory_workspace CASCADE")  # reaching the log through a cascade
    assert workspace.events.exists()  # nothing went, and the connection is still usable
