"""Rotating the master key: every data key re-wrapped, nothing unreadable, resumable, refused when unsafe."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.management import call_command

from memory import sealing
from memory.models import KeyStoreBinding
from memory.services.errors import RequestError
from memory.services.keys import binding as key_binding
from memory.services.keys import rotation as key_rotation
from memory.tideline import Tideline
from tests.keystores import use_key_store

PEER = "channel:slack/team/s1"
NEW_RAW = b"a brand-new master key: 32 bytes"
NEW_KEY = base64.b64encode(NEW_RAW).decode()


@pytest.fixture
def store(settings, tmp_path):
    use_key_store(settings, keystore=tmp_path / "keys")
    return tmp_path / "keys"


@pytest.fixture
def written(store, workspace):
    tl = Tideline(workspace)
    tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("The peer likes short replies.", segment="preference", origin=PEER)
    return tl


def _contents(workspace) -> set[str]:
    return {f.content for f in workspace.facts.all()}


def test_after_a_rotation_everything_reads_under_the_new_key_and_nothing_under_the_old(settings, written, workspace):
    before = _contents(workspace)
    report = key_rotation.rotate_master(NEW_RAW)
    assert report.rewrapped == 2 and report.already_rotated == 0 and report.retired == []

    old_key = settings.TIDELINE_MASTER_KEY
    use_key_store(settings, master_key=NEW_KEY)
    assert key_binding.problem() is None
    assert _contents(workspace) == before
    assert [h.content for h in written.recall("vegetarian diet")][:1] == ["I keep a strict vegetarian diet."]
    written.add("I cycle to work.", segment="preference")  # writes carry on under the new key

    use_key_store(settings, master_key=old_key)
    assert "TIDELINE_MASTER_KEY" in key_binding.problem()
    with pytest.raises(sealing.KeyStoreMismatchError):
        written.add("Another fact under the old key.", segment="knowledge")


def test_a_rotation_cut_short_is_finished_by_running_it_again(written, store, workspace):
    first = sorted(store.glob("*.key"))[0]
    ws, origin = key_rotation._origins_by_file()[first.name]
    raw = sealing.unwrap_key_file(sealing._master_key(), first, ws, origin)
    first.write_text(sealing.wrapped_key_file(NEW_RAW, raw, ws, origin))  # as if the run died after one file

    report = key_rotation.rotate_master(NEW_RAW)
    assert (report.rewrapped, report.already_rotated) == (1, 1)
    assert KeyStoreBinding.objects.get().master_fingerprint != key_binding.master_fingerprint()


def test_a_key_file_no_fact_uses_is_retired_not_left_unopenable(written, store, workspace):
    stray = store / sealing.key_file_name(workspace.id, "owner-of-nothing")
    stray.write_text((sorted(store.glob("*.key"))[0]).read_text())
    report = key_rotation.rotate_master(NEW_RAW)
    assert report.retired == [stray.name]
    assert not stray.exists() and (store / key_rotation.RETIRED_DIR / stray.name).exists()


def test_rotation_refuses_the_same_key_a_malformed_key_and_a_mismatched_configuration(settings, written, tmp_path):
    with pytest.raises(RequestError, match="the one in use"):
        key_rotation.rotate_master(base64.b64decode(settings.TIDELINE_MASTER_KEY))
    for bad in ("not base64!", base64.b64encode(b"short").decode()):
        with pytest.raises(RequestError, match="32 random bytes") as refused:
            key_rotation.parse_master_key(bad)
        assert bad not in refused.value.message
    use_key_store(settings, keystore=tmp_path / "elsewhere")
    with pytest.raises(sealing.KeyStoreMismatchError):
        key_rotation.rotate_master(NEW_RAW)


def test_keys_status_reports_the_binding_and_the_key_files(written, capsys):
    call_command("tideline", "keys", "status", "--json")
    status = json.loads(capsys.readouterr().out)
    assert status["bound"] is True and status["problem"] is None
    assert status["key_files"] == 2 and status["origins_with_facts"] == 2
    assert status["origins_without_key"] == 0 and status["unused_key_files"] == 0


def test_rotate_master_on_the_command_line_asks_for_yes_and_reads_the_key_from_a_file(written, tmp_path, capsys):
    key_file = tmp_path / "new.key"
    key_file.write_text(NEW_KEY + "\n")
    with pytest.raises(SystemExit) as refused:
        call_command("tideline", "keys", "rotate-master", "--new-key-file", str(key_file), "--json")
    assert refused.value.code == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "confirmation_required"
    assert KeyStoreBinding.objects.get().master_fingerprint == key_binding.master_fingerprint()

    call_command("tideline", "keys", "rotate-master", "--new-key-file", str(key_file), "--yes", "--json")
    done = json.loads(capsys.readouterr().out)
    assert done["rewrapped"] == 2 and "TIDELINE_MASTER_KEY" in done["next"]
