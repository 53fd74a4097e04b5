"""Backups that restore: the drill (write, back up, change, shred, restore, check) on the database the
suite runs on, PostgreSQL (pg_dump, psql) or SQLite (the online backup API), and every refusal."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db import connection

from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, MemoryEvent
from memory.services import backups
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import shred_origin
from memory.services.writes.interchange import export_facts
from memory.tideline import Tideline
from tests.governance.cli.test_proposals_cli import tideline
from tests.keystores import use_key_store

pytestmark = pytest.mark.django_db(transaction=True)  # pg_dump and psql see only what is committed
PEER = R.Origin("channel", "slack", "team", "s1")


@pytest.fixture
def store(settings, tmp_path):
    use_key_store(settings, keystore=tmp_path / "keys")
    return tmp_path / "keys"


@pytest.fixture
def written(store, workspace):
    tl = Tideline(workspace)
    tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("My sister Ana lives in Porto.", segment="relationship")
    tl.add("The peer's launch is on Friday.", segment="project", origin=PEER)
    tl.add("The peer likes short replies.", segment="preference", origin=PEER)
    return tl


def _export(workspace) -> list[dict]:
    return list(export_facts(workspace=workspace))


def _events() -> list[tuple]:
    return list(MemoryEvent.objects.order_by("pk").values_list("pk", "revision", "kind", "fact_ids"))


def test_the_drill_a_restore_brings_back_the_backup_and_never_a_shredded_origin(written, workspace, store, tmp_path):
    exported, events = _export(workspace), _events()
    report = backups.backup(tmp_path / "backup", keystore_to=tmp_path / "key-copy")
    assert report.facts == 4 and report.key_files == 2 and report.vendor == connection.vendor
    manifest = json.loads((tmp_path / "backup" / "manifest.json").read_text())
    assert manifest["key_store"]["copied_to"] == str(tmp_path / "key-copy")
    assert sorted(p.name for p in (tmp_path / "backup").iterdir()) == sorted(["manifest.json", report.database_file])

    written.add("I moved to Lisbon last spring.", segment="identity")  # changed after the backup
    shred_origin(workspace, PEER.key, actor="admin", reason="asked to forget")

    restored = backups.restore(tmp_path / "backup")
    assert (restored.facts, restored.events) == (4, len(events))
    assert _events() == events
    after = _export(workspace)
    # Exports equal the backup's, but for the origin shredded since: its facts are unreadable still.
    assert after == [record for record in exported if record["createdBy"].get("kind") != "channel"]
    assert not any("Lisbon" in record["content"] for record in after)
    peer_fact = Fact.objects.filter(origin_key=PEER.key).first()
    with pytest.raises(sealing.KeyDestroyedError):
        sealing.keyring.data_key(workspace.pk, PEER.key, create=False)
    assert peer_fact is not None  # its row came back with the database: a tombstone nothing opens
    with pytest.raises(sealing.KeyMissingError):  # and the origin can never be given a second key
        Tideline(workspace).add("The peer writes again.", segment="knowledge", origin=PEER)
    assert [hit.content for hit in Tideline(workspace).recall("vegetarian diet")][:1] == ["I keep a strict vegetarian diet."]

    # A key-store copy from before the shred fills in only what is missing, never a destroyed key.
    again = backups.restore(tmp_path / "backup", keystore_from=tmp_path / "key-copy")
    assert again.keys_restored == 0 and again.key_store_problem is None
    assert _export(workspace) == after


def test_a_lost_key_store_comes_back_from_its_copy_without_the_keys_the_restored_log_shredded(
    written, workspace, store, tmp_path
):
    shred_origin(workspace, PEER.key, actor="admin")
    old_copy = tmp_path / "old-keys"
    old_copy.mkdir()
    backups.backup(tmp_path / "backup", keystore_to=tmp_path / "key-copy")
    for name in (p.name for p in (tmp_path / "key-copy").iterdir() if p.suffix != ".shredded"):
        (old_copy / name).write_bytes((tmp_path / "key-copy" / name).read_bytes())
    # An older copy that still holds the peer's key (taken before the shred): reconstructed here.
    peer_key = sealing.key_file_name(workspace.pk, PEER.key)
    (old_copy / peer_key).write_text("not a key any more, but a file the restore must not keep")
    for path in store.iterdir():
        path.unlink()  # the key store is lost

    restored = backups.restore(tmp_path / "backup", keystore_from=old_copy)
    assert restored.shredded_keys_destroyed == 1 and restored.key_store_problem is None
    assert not (store / peer_key).exists() and (store / peer_key).with_suffix(".shredded").exists()
    assert {record["content"] for record in _export(workspace)} == {
        "I keep a strict vegetarian diet.", "My sister Ana lives in Porto."}  # fmt: skip


def test_a_backup_of_an_older_schema_is_migrated_forward_on_restore(written, workspace, tmp_path):
    from django.db.migrations.loader import MigrationLoader

    names = sorted(name for app, name in MigrationLoader(None, ignore_no_migrations=True).disk_migrations
                   if app == "governance")  # fmt: skip
    call_command("migrate", "governance", names[-2], verbosity=0)  # as if made before the newest migration
    try:
        backups.backup(tmp_path / "backup")
    finally:
        call_command("migrate", verbosity=0)
    restored = backups.restore(tmp_path / "backup")
    assert restored.migrations_applied == 1
    assert len(_export(workspace)) == 4


def test_a_damaged_or_foreign_backup_is_refused_and_nothing_changes(written, workspace, tmp_path):
    report = backups.backup(tmp_path / "backup")
    written.add("Written after the backup.", segment="knowledge")
    dump = tmp_path / "backup" / report.database_file
    manifest_path = tmp_path / "backup" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())

    with open(dump, "r+b") as handle:  # one byte flipped: the checksum says so
        handle.seek(dump.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(RequestError, match="does not match its manifest"):
        backups.restore(tmp_path / "backup")

    # A truncated dump whose manifest was rewritten to match: unreadable, refused in one transaction.
    dump.write_bytes(dump.read_bytes()[: dump.stat().st_size // 3])
    manifest.update(bytes=dump.stat().st_size, sha256=backups._sha256(dump))
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(RequestError, match="nothing was"):
        backups.restore(tmp_path / "backup")

    manifest["migrations"] = {**manifest["migrations"], "memory": [*manifest["migrations"]["memory"], "0099_future"]}
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(RequestError, match="newer Tideline"):
        backups.restore(tmp_path / "backup")
    with pytest.raises(RequestError, match="not a Tideline backup"):
        backups.restore(tmp_path)
    assert len(_export(workspace)) == 5  # the database was never touched


def test_the_key_store_copy_is_never_put_with_the_dump_unless_asked(written, tmp_path):
    with pytest.raises(RequestError, match="must not be kept with the database dump"):
        backups.backup(tmp_path / "backup", keystore_to=tmp_path / "backup" / "keys")
    assert not (tmp_path / "backup").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "old.txt").write_text("x")
    with pytest.raises(RequestError, match="not an empty folder"):
        backups.backup(tmp_path / "full")
    report = backups.backup(tmp_path / "backup", keystore_to=tmp_path / "backup" / "keys", keystore_beside=True)
    assert report.key_files == 2


def test_the_commands_back_up_and_restore_and_ask_before_replacing(written, workspace, tmp_path, capsys):
    code, made = tideline(capsys, "backup", "--output", str(tmp_path / "b"))
    assert code == 0 and made["facts"] == 4 and made["keystore_copy"] is None
    written.add("Written after the backup.", segment="knowledge")

    code, refused = tideline(capsys, "restore", str(tmp_path / "b"))  # not a terminal, no --yes
    assert code == 2 and refused["error"]["kind"] == "confirmation_required"
    assert len(_export(workspace)) == 5

    code, done = tideline(capsys, "restore", str(tmp_path / "b"), "--yes")
    assert code == 0 and done["facts"] == 4 and done["key_store_problem"] is None
    assert len(_export(workspace)) == 4

