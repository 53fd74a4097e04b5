"""A wrong key store or master key is refused before it can do damage, and nothing is lost by it."""

from __future__ import annotations

import base64
import json
import threading

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection, connections

from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, KeyStoreBinding
from memory.services.keys import binding as key_binding
from memory.tideline import Tideline
from tests.keystores import use_key_store

PEER = "channel:slack/team/s1"
OTHER_MASTER_KEY = base64.b64encode(b"another master key, 32 bytes ok!").decode()


def _key_files(directory) -> list:
    return sorted(directory.glob("*.key"))


@pytest.fixture
def right(settings, tmp_path):
    """A private key store holding the keys of two origins with facts (owner and a peer)."""
    store = tmp_path / "right"
    use_key_store(settings, keystore=store)
    return store


@pytest.fixture
def written(right, workspace):
    tl = Tideline(workspace)
    tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("The peer likes short replies.", segment="preference", origin=PEER)
    return tl


def test_the_first_write_binds_the_database_to_the_key_store_and_master_key(right, written):
    binding = KeyStoreBinding.objects.get()
    assert binding.keystore_id == (right / key_binding.ID_FILE).read_text().strip()
    assert oct((right / key_binding.ID_FILE).stat().st_mode & 0o777) == "0o600"
    assert binding.master_fingerprint == key_binding.master_fingerprint()
    assert base64.b64decode(key_binding.settings.TIDELINE_MASTER_KEY).hex() not in binding.master_fingerprint


def test_an_empty_key_store_refuses_writes_and_recall_and_the_right_one_still_reads_everything(
    settings, tmp_path, right, written, workspace
):
    keys_before = _key_files(right)
    empty = tmp_path / "empty"
    empty.mkdir()
    use_key_store(settings, keystore=empty)
    with pytest.raises(sealing.KeyStoreMismatchError, match="not the key store"):
        written.add("I cycle to work.", segment="preference")
    with pytest.raises(sealing.KeyStoreMismatchError):
        written.add("The peer is in Lisbon.", segment="preference", origin=PEER)
    with pytest.raises(sealing.KeyStoreMismatchError):  # never a quiet empty answer
        written.recall("vegetarian diet")
    with pytest.raises(sealing.KeyStoreMismatchError):
        written.recall("short replies", origin=PEER)
    assert _key_files(empty) == [] and Fact.objects.count() == 2

    use_key_store(settings, keystore=right)  # nothing was damaged: every fact reads on the right key store
    assert _key_files(right) == keys_before
    assert [hit.content for hit in written.recall("vegetarian diet")] == ["I keep a strict vegetarian diet."]
    assert [hit.content for hit in written.recall("short replies", origin=PEER)] == ["The peer likes short replies."]
    assert sorted(record["content"] for record in written.export()) == [
        "I keep a strict vegetarian diet.", "The peer likes short replies."
    ]  # fmt: skip
    written.add("I cycle to work.", segment="preference")


def test_a_wrong_master_key_refuses_a_write_to_a_new_origin_without_making_a_key(settings, right, written):
    keys_before = _key_files(right)
    use_key_store(settings, master_key=OTHER_MASTER_KEY)
    with pytest.raises(sealing.KeyStoreMismatchError, match="TIDELINE_MASTER_KEY"):
        written.add("A brand new channel says hello.", segment="preference", origin="channel:mail/inbox/s9")
    assert _key_files(right) == keys_before
    with pytest.raises(sealing.KeyStoreMismatchError):
        written.recall("vegetarian diet")


def test_the_cli_reports_the_mismatch_as_json_with_exit_code_2(settings, tmp_path, right, written, capsys):
    use_key_store(settings, keystore=tmp_path / "elsewhere")
    for args in (["add", "I cycle to work.", "--segment", "preference"], ["recall", "vegetarian"]):
        with pytest.raises(SystemExit) as exit_:
            call_command("tideline", *args, "--workspace", written.workspace.name, "--json")
        assert exit_.value.code == 2
        error = json.loads(capsys.readouterr().out)["error"]
        assert error["kind"] == "key_store_mismatch" and "TIDELINE_KEYSTORE_DIR" in error["message"]
    assert not (tmp_path / "elsewhere").exists() or _key_files(tmp_path / "elsewhere") == []


def test_manage_py_check_reports_the_mismatch(settings, tmp_path, right, written):
    call_command("check")  # the right configuration passes
    use_key_store(settings, keystore=tmp_path / "elsewhere")
    with pytest.raises(SystemCheckError, match="tideline.E002"):
        call_command("check")
    use_key_store(settings, keystore=right, master_key=OTHER_MASTER_KEY)
    with pytest.raises(SystemCheckError, match="TIDELINE_MASTER_KEY"):
        call_command("check")


def test_serve_refuses_to_start_with_one_line_and_exit_2(settings, tmp_path, right, written, capsys, monkeypatch):
    from memory.cli import serve

    def no_server(*args, **kwargs):
        raise AssertionError("serve started a server on a mismatched key store")

    monkeypatch.setattr(serve.subprocess, "Popen", no_server)
    use_key_store(settings, keystore=tmp_path / "elsewhere")
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "serve")
    assert exit_.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: TIDELINE_KEYSTORE_DIR=")


def test_a_database_from_before_the_binding_is_bound_only_on_its_own_key_store(settings, tmp_path, right, written):
    master_key = settings.TIDELINE_MASTER_KEY
    KeyStoreBinding.objects.all().delete()  # as it was before the binding existed
    (right / key_binding.ID_FILE).unlink()
    empty = tmp_path / "empty"
    use_key_store(settings, keystore=empty)
    with pytest.raises(SystemCheckError, match="none of their data keys"):
        call_command("check")
    with pytest.raises(sealing.KeyStoreMismatchError):
        written.add("I cycle to work.", segment="preference")
    assert not KeyStoreBinding.objects.exists() and not empty.exists()
    use_key_store(settings, keystore=right, master_key=OTHER_MASTER_KEY)
    with pytest.raises(sealing.KeyStoreMismatchError, match="does not open"):
        written.add("I cycle to work.", segment="preference")
    assert not KeyStoreBinding.objects.exists()
    use_key_store(settings, keystore=right, master_key=master_key)
    written.add("I cycle to work.", segment="preference")
    assert KeyStoreBinding.objects.get().keystore_id == (right / key_binding.ID_FILE).read_text().strip()


def test_a_key_is_never_made_for_an_origin_that_still_has_sealed_facts(settings, right, written, workspace):
    peer = R.parse_origin(PEER)
    assert sealing.keyring.destroy(workspace.pk, peer.key)  # crypto-shred
    use_key_store(settings)
    with pytest.raises(sealing.KeyMissingError, match="has sealed facts"):
        written.add("The peer is in Lisbon.", segment="preference", origin=PEER)
    assert not sealing.keyring.exists(workspace.pk, peer.key)
    assert written.recall("short replies", origin=PEER) == []  # a shred hides its facts, as intended
    Fact.objects.filter(workspace=workspace, origin_key=peer.key).delete()  # the shredded facts are purged
    written.add("The peer is in Lisbon.", segment="preference", origin=PEER)
    assert [hit.content for hit in written.recall("Lisbon", origin=PEER)] == ["The peer is in Lisbon."]


def test_processes_making_a_key_store_id_at_once_agree_on_one(tmp_path):
    ids: list[str] = []
    threads = [threading.Thread(target=lambda: ids.append(key_binding.ensure_keystore_id(tmp_path))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == 8 and len(set(ids)) == 1 and [p.name for p in tmp_path.iterdir()] == [key_binding.ID_FILE]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent binders need a server database")
def test_concurrent_first_writes_bind_once(settings, tmp_path, workspace):
    use_key_store(settings, keystore=tmp_path / "store")
    start, errors = threading.Barrier(8), []

    def first_write(index: int) -> None:
        try:
            start.wait()
            Tideline(workspace).add(f"Writer {index} notes the routing service is up.", segment="project",
                                    origin=f"channel:w{index}/c/s")  # fmt: skip
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first_write, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert KeyStoreBinding.objects.get().keystore_id == key_binding.read_keystore_id(tmp_path / "store")
    assert len(_key_files(tmp_path / "store")) == 8


@pytest.mark.parametrize("value", ["not base64 at all!", base64.b64encode(b"x" * 31).decode(),
                                   base64.b64encode(b"x" * 33).decode(), "", "   "])  # fmt: skip
def test_a_malformed_master_key_is_refused_at_startup(value):
    from django.core.exceptions import ImproperlyConfigured

    from tideline_site.settings import master_key_from

    with pytest.raises(ImproperlyConfigured, match="TIDELINE_MASTER_KEY"):
        master_key_from(value)
    assert master_key_from(f" {OTHER_MASTER_KEY}\n") == OTHER_MASTER_KEY


def test_the_cli_says_so_in_one_line_and_exits_2(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "TIDELINE_MASTER_KEY": base64.b64encode(b"too short").decode(), "DATABASE_URL": "",
           "TIDELINE_VAR_DIR": str(tmp_path)}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "tideline_site.cli", "recall", "tea", "--workspace", "w"],
                            cwd=Path(__file__).resolve().parents[4], env=env, capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: TIDELINE_MASTER_KEY decodes to 9 bytes; it must be base64 of exactly 32 random bytes "
        "(make one with: openssl rand -base64 32)"
    ]


def test_the_console_shows_an_error_page_not_a_500(settings, tmp_path, right, written, client, owner, workspace):
    from django.urls import reverse

    fact = Fact.objects.get(origin_key="owner")
    client.force_login(owner)
    use_key_store(settings, keystore=tmp_path / "elsewhere")
    response = client.get(reverse("memory:fact-detail", args=[workspace.name, fact.memory_id]))
    assert response.status_code == 503
    body = response.content.decode()
    assert "key store or master key does not match" in body and str(tmp_path) not in body
    # The playground reports a failed recall in place (never as "no results").
    response = client.get(reverse("memory:recall-playground", args=[workspace.name]), {"q": "vegetarian", "k": 8,
                          "clearance": "PII", "max_chars": 1200, "origin": "owner"})  # fmt: skip
    assert response.status_code == 200 and "not the key store" in response.content.decode()
    use_key_store(settings, keystore=right)
    assert client.get(reverse("memory:fact-detail", args=[workspace.name, fact.memory_id])).status_code == 200
