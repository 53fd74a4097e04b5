"""`tideline shred` (governance/cli/shred.py): dry run, typed confirmation, --yes, refusals."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from memory import sealing
from memory.engine.facts import records as R
from memory.management.commands.tideline import subcommands
from memory.models import Fact, MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def peer_facts(workspace):
    tl = Tideline(workspace)
    tl.add("The deploy password is hunter2.", segment="knowledge", origin=PEER)
    tl.add("The staging box is called kestrel.", segment="knowledge", origin=PEER)
    tl.add("I like green tea.", segment="preference")
    return workspace


class Tty(io.StringIO):
    def isatty(self):
        return True


def _run(capsys, *args):
    call_command("tideline", "shred", *args)
    return capsys.readouterr().out


def _refused(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "shred", *args)
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    return json.loads(captured.out)["error"] if "--json" in args else captured.err


def _shredded(workspace) -> bool:
    return not sealing.keyring.exists(workspace.pk, PEER.key)


def test_registered_by_governance():
    assert subcommands()["shred"].__name__ == "governance.cli.shred"


def test_dry_run_previews_and_changes_nothing(peer_facts, capsys):
    out = json.loads(_run(capsys, "--workspace", "acme", "--origin", PEER.key, "--dry-run", "--json"))
    assert out == {"dry_run": True, "workspace": "acme", "origin_key": PEER.key, "label": PEER.label(), "facts": 2,
                   "links": 0, "vectors": 0, "open_review_items": 0}  # fmt: skip
    by_label = json.loads(_run(capsys, "--workspace", "acme", "--origin", PEER.label(), "--dry-run", "--json"))
    assert by_label == out
    assert "2 fact(s) become unreadable" in _run(capsys, "--workspace", "acme", "--origin", PEER.key, "--dry-run")
    assert not _shredded(peer_facts) and not MemoryEvent.objects.filter(kind="shredded").exists()


def test_without_a_terminal_and_without_yes_it_refuses(peer_facts, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(PEER.key + "\n"))
    assert "no terminal" in _refused(capsys, "--workspace", "acme", "--origin", PEER.key)
    assert _refused(capsys, "--workspace", "acme", "--origin", PEER.key, "--json")["kind"] == "confirmation_required"
    assert not _shredded(peer_facts)


def test_a_typed_confirmation_that_does_not_match_changes_nothing(peer_facts, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("builtins.input", lambda prompt="": "owner")
    assert "did not match" in _refused(capsys, "--workspace", "acme", "--origin", PEER.key)
    assert not _shredded(peer_facts)


def test_typing_the_count_shreds(peer_facts, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("builtins.input", lambda prompt="": " 2 ")
    out = _run(capsys, "--workspace", "acme", "--origin", PEER.key, "--reason", "asked to forget")
    assert "2 fact(s) are now unreadable" in out
    event = MemoryEvent.objects.get(kind="shredded")
    assert event.actor == "cli:shred" and event.reason == "asked to forget"


def test_yes_shreds_and_a_second_shred_is_refused(peer_facts, capsys):
    out = json.loads(_run(capsys, "--workspace", "acme", "--origin", PEER.key, "--yes", "--json"))
    assert out["facts"] == 2 and out["dry_run"] is False and _shredded(peer_facts)
    assert not any(f.is_readable for f in Fact.objects.filter(origin_key=PEER.key))
    error = _refused(capsys, "--workspace", "acme", "--origin", PEER.key, "--yes", "--json")
    assert error["kind"] == "conflict" and "already shredded" in error["message"]
    assert MemoryEvent.objects.filter(kind="shredded").count() == 1


def test_unknown_origin_and_workspace_are_clear_refusals(peer_facts, capsys):
    assert _refused(capsys, "--workspace", "acme", "--origin", "channel:x/y/z", "--yes", "--json")["kind"] == "not_found"
    assert _refused(capsys, "--workspace", "nope", "--origin", PEER.key, "--yes", "--json")["kind"] == "not_found"
    assert not _shredded(peer_facts)


def test_as_a_member_who_is_not_an_admin_is_refused(peer_facts, personas, capsys):
    # olga owns acme, ada is its admin
    assert _refused(capsys, "--workspace", "acme", "--origin", PEER.key, "--yes", "--as", "olga", "--json")["kind"] == "forbidden"
    assert not _shredded(peer_facts)
    _run(capsys, "--workspace", "acme", "--origin", PEER.key, "--yes", "--as", "ada")
    assert MemoryEvent.objects.get(kind="shredded").actor == "user:ada"


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a second process needs a server database")
def test_a_shred_by_another_process_empties_this_process_warm_index(workspace):
    """Two real processes: this one's recall index is warm (and its key cache fresh) when another
    process runs `tideline shred`; the next recall here serves no plaintext and no hit."""
    from memory.services.recall.index import registry

    registry.clear()
    tl = Tideline(workspace)
    secret = tl.add("The deploy password is hunter2.", segment="knowledge", origin=PEER)
    assert [h.id for h in tl.recall("deploy password", origin=PEER, reinforce=False)] == [secret.id]
    index = registry.get(workspace, PEER)
    db = connection.settings_dict
    env = {**os.environ, "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
           "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", "shred", "--workspace", workspace.name,
                           "--origin", PEER.key, "--yes", "--json"], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["facts"] == 1
    assert tl.recall("deploy password", origin=PEER, reinforce=False) == []
    assert index.rows == {} and index.cols is None


def test_without_an_origin_it_lists_unfinished_shreds_and_one_run_finishes_each(peer_facts, capsys):
    """A shred stopped after its intent committed (tests/governance/faults/test_shred_kill.py kills one for
    real): listed, then finished by naming its origin, without a second confirmation."""
    from memory.services.keys import crypto_shred as shredding

    assert json.loads(_run(capsys, "--workspace", "acme", "--json"))["unfinished"] == []
    shredding._begin(peer_facts, PEER.key, actor="user:gone", reason="erasure #3")
    listed = _run(capsys, "--workspace", "acme")
    assert "1 unfinished shred(s) in acme:" in listed and PEER.label() in listed and "by user:gone" in listed
    assert f"--origin '{PEER.key}'" in listed
    done = json.loads(_run(capsys, "--workspace", "acme", "--origin", PEER.key, "--json"))
    assert done["finished_unfinished"] is True and done["facts"] == 2 and done["reason"] == "erasure #3"
    assert _shredded(peer_facts) and not shredding.unfinished_shreds(peer_facts)
