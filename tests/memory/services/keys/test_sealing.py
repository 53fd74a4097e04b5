"""Content at rest is sealed per origin: no plaintext in the database, and shredding a key is final."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import threading

import pytest
from cryptography.exceptions import InvalidTag
from django.db import connection, connections

from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact
from memory.services.keys import binding as key_binding
from memory.services.writes.interchange import import_facts
from tests.factories import make_fact

CANARY = "Canary-7f3a: my locker code is 4417 and I hide the key under the blue mat."
PEER = R.Origin("channel", "slack", "team", "s1")


def _database_bytes(tmp_path) -> bytes:
    if connection.vendor == "sqlite":
        copy = tmp_path / "copy.sqlite3"
        target = sqlite3.connect(copy)
        connection.ensure_connection()
        connection.connection.backup(target)
        target.close()
        return copy.read_bytes()
    settings = connection.settings_dict
    dump = subprocess.run(
        ["pg_dump", "-h", settings["HOST"] or "127.0.0.1", "-p", str(settings["PORT"] or 5432),
         "-U", settings["USER"] or "postgres", "--no-owner", settings["NAME"]],
        check=True, capture_output=True,
    )  # fmt: skip
    return dump.stdout


@pytest.mark.django_db(transaction=True)
def test_the_plaintext_of_a_canary_fact_appears_nowhere_in_the_database(workspace, tmp_path):
    record = {"memoryId": "mem_canary", "content": CANARY, "segment": "knowledge", "lifecycle": "active",
              "metadata": {"note": CANARY}, "subjectKey": "locker"}  # fmt: skip
    import_facts(workspace=workspace, lines=[json.dumps(record)], actor="test")
    assert Fact.objects.get(memory_id="mem_canary").content == CANARY  # readable through the model
    raw = _database_bytes(tmp_path)
    assert b"mem_canary" in raw  # the row really is in this image / dump
    for needle in ("Canary-7f3a", "locker code", "blue mat"):
        for encoding in ("utf-8", "utf-16-le"):
            assert needle.encode(encoding) not in raw
        assert needle.encode().hex().encode() not in raw.lower()  # bytea hex in pg_dump
    plain_sha = hashlib.sha256(R.normalize_for_hash(CANARY).encode()).hexdigest()
    assert plain_sha.encode() not in raw  # the dedup hash is keyed, not a bare SHA-256


@pytest.mark.django_db
def test_destroying_an_origins_key_makes_only_its_facts_unreadable(workspace):
    owner_fact = make_fact(workspace, "I live in Porto.")
    peer_fact = make_fact(workspace, "The peer likes short replies.", origin=PEER, metadata={"a": 1})
    assert sealing.keyring.destroy(workspace.pk, PEER.key)
    sealing.keyring.forget_cache()
    fresh_peer = Fact.objects.get(pk=peer_fact.pk)
    fresh_owner = Fact.objects.get(pk=owner_fact.pk)
    assert not fresh_peer.is_readable
    with pytest.raises(sealing.KeyDestroyedError):
        fresh_peer.content  # noqa: B018
    with pytest.raises(sealing.KeyDestroyedError):
        fresh_peer.metadata  # noqa: B018
    assert fresh_owner.content == "I live in Porto."


@pytest.mark.django_db
def test_a_shred_in_one_process_reaches_another_processs_cache(workspace, monkeypatch):
    fact = make_fact(workspace, "The peer likes short replies.", origin=PEER)
    other_process = sealing.Keyring()
    assert other_process.data_key(workspace.pk, PEER.key)  # cached there
    sealing.keyring.destroy(workspace.pk, PEER.key)
    monkeypatch.setattr(sealing, "CACHE_TTL_SECONDS", 0.0)
    with pytest.raises(sealing.KeyDestroyedError):
        other_process.data_key(workspace.pk, PEER.key, create=False)
    assert fact.pk


@pytest.mark.django_db
def test_ciphertext_moved_to_another_origin_does_not_open(workspace):
    owner_fact = make_fact(workspace, "I live in Porto.")
    peer_fact = make_fact(workspace, "Something else entirely.", origin=PEER)
    with pytest.raises(InvalidTag):
        sealing.unseal(workspace.pk, PEER.key, "content", owner_fact.sealed_content)
    with pytest.raises(InvalidTag):
        sealing.unseal(workspace.pk, PEER.key, "metadata", peer_fact.sealed_content)


@pytest.mark.django_db
def test_the_same_content_hashes_differently_per_origin_but_equally_within_one(workspace):
    a = make_fact(workspace, "I like tea.")
    b = make_fact(workspace, "i  like TEA")
    c = make_fact(workspace, "I like tea.", origin=PEER)
    assert a.content_hash == b.content_hash != c.content_hash


@pytest.mark.django_db
def test_concurrent_processes_agree_on_one_data_key(tmp_path, settings, monkeypatch):
    settings.TIDELINE_KEYSTORE_DIR = tmp_path
    monkeypatch.setattr(sealing, "CACHE_TTL_SECONDS", 60.0)
    key_binding.verify(bind=True)  # bound once here; each thread still checks for sealed data
    rings = [sealing.Keyring() for _ in range(8)]
    macs: list[bytes] = []

    def make_key(ring: sealing.Keyring) -> None:
        try:
            macs.append(ring.data_key(7, "owner").mac_key)
        finally:
            connections.close_all()  # each thread checked for sealed data on its own connection

    threads = [threading.Thread(target=make_key, args=(ring,)) for ring in rings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(macs)) == 1 and len(list(tmp_path.glob("*.key"))) == 1
