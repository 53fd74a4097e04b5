"""`tideline purge` (governance/cli/purge.py): dry run, typed confirmation, --yes, --json, refusals."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from memory.engine.facts import records as R
from memory.management.commands.tideline import subcommands
from memory.models import Fact, MemoryEvent, Workspace
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
OLD = datetime(2025, 3, 1, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def facts(workspace):
    tl = Tideline(workspace)
    out = {
        "password": tl.add("The deploy password is hunter2.", segment="knowledge", origin=PEER, now=OLD).id,
        "box": tl.add("The staging box is called kestrel.", segment="knowledge", origin=PEER).id,
        "tea": tl.add("I like green tea.", segment="preference").id,
    }
    summary = tl.add("Deploy notes: the password and the staging box.", segment="knowledge", origin=PEER).id
    Fact.objects.filter(memory_id=summary).update(source_pointers=[out["password"]])
    out["summary"] = summary
    return out


class Tty(io.StringIO):
    def isatty(self):
        return True


def _run(capsys, *args):
    call_command("tideline", "purge", *args)
    return capsys.readouterr().out


def _refused(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "purge", *args)
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    return json.loads(captured.out)["error"] if "--json" in args else captured.err


def _left(workspace):
    return set(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True))


def _revision():
    return Workspace.objects.get(name="acme").revision


def test_registered_by_governance():
    assert subcommands()["purge"].__name__ == "governance.cli.purge"


def test_dry_run_lists_what_goes_with_the_cascade_and_changes_nothing(facts, workspace, capsys):
    revision = _revision()
    out = json.loads(_run(capsys, "--workspace", "acme", "--fact", facts["password"], "--hard", "--dry-run", "--json"))
    assert out["dry_run"] is True and out["facts"] == 2 and out["cascaded"] == 1 and out["hard"] is True
    assert [(r["memory_id"], r["cascade"]) for r in out["fact_rows"]] == [(facts["password"], False),
                                                                          (facts["summary"], True)]  # fmt: skip
    assert "hunter2" not in json.dumps(out)  # --json never prints content
    human = _run(capsys, "--workspace", "acme", "--fact", facts["password"], "--hard", "--dry-run")
    assert "2 fact(s)" in human and "(cascade)" in human and "dry run: nothing was changed" in human
    assert _revision() == revision and len(_left(workspace)) == 4


def test_yes_purges_hard_and_leaves_one_receipt(facts, workspace, capsys):
    out = json.loads(_run(capsys, "--workspace", "acme", "--origin", PEER.label(), "--before", "2026-01-01",
                          "--hard", "--yes", "--json", "--reason", "erasure 7"))  # fmt: skip
    assert out["facts"] == 2 and out["cascaded"] == 1 and out["hard"] is True
    assert _left(workspace) == {facts["box"], facts["tea"]}
    event = MemoryEvent.objects.get(kind="purged")
    assert event.actor == "cli:purge" and event.reason == "erasure 7" and event.revision == out["revision"]


def test_without_hard_it_retracts(facts, workspace, capsys):
    out = _run(capsys, "--workspace", "acme", "--fact", facts["tea"], "--yes")
    assert "retracted 1 fact(s)" in out
    tea = Fact.objects.get(memory_id=facts["tea"])
    assert (tea.lifecycle, tea.status) == ("archived", "retracted") and len(_left(workspace)) == 4


def test_typing_the_count_or_the_workspace_goes_ahead_and_a_mismatch_changes_nothing(facts, workspace, capsys,
                                                                                    monkeypatch):  # fmt: skip
    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("builtins.input", lambda prompt="": "3")
    revision = _revision()
    assert "did not match" in _refused(capsys, "--workspace", "acme", "--fact", facts["password"], "--hard")
    assert _revision() == revision and len(_left(workspace)) == 4
    monkeypatch.setattr("builtins.input", lambda prompt="": " 2 ")
    assert "purged 2 fact(s)" in _run(capsys, "--workspace", "acme", "--fact", facts["password"], "--hard")
    monkeypatch.setattr("builtins.input", lambda prompt="": "acme")
    assert "retracted 1" in _run(capsys, "--workspace", "acme", "--query", "green tea", "--max", "1")


def test_without_a_terminal_and_without_yes_it_refuses(facts, workspace, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    assert "no terminal" in _refused(capsys, "--workspace", "acme", "--fact", facts["tea"])
    assert _refused(capsys, "--workspace", "acme", "--fact", facts["tea"], "--json")["kind"] == "confirmation_required"
    assert Fact.objects.get(memory_id=facts["tea"]).lifecycle == "active"


@pytest.mark.parametrize("args, words", [
    (("--fact", "mem_never_was"), "nothing matches"),
    (("--origin", "channel:x/y/z"), "no facts from origin"),
    (("--before", "yesterday-ish"), "is not a date"),
    (("--after", "2026-02-30"), "is not a date"),
    (("--segment", "gossip"), "unknown segment"),
    (("--origin", PEER.label(), "--segment", "preference"), "nothing matches"),
    (("--after", "2026-05-01", "--before", "2026-01-01"), "date range is empty"),
    ((), "say what to purge"),
])  # fmt: skip
def test_bad_input_is_a_clear_refusal_that_changes_nothing(facts, workspace, capsys, args, words):
    revision = _revision()
    assert words in _refused(capsys, "--workspace", "acme", *args, "--hard", "--yes")
    assert words in _refused(capsys, "--workspace", "acme", *args, "--yes", "--json")["message"]
    assert _revision() == revision and len(_left(workspace)) == 4


def test_as_a_member_who_is_not_an_admin_is_refused(facts, workspace, personas, capsys):
    # olga owns acme, ada is its admin
    args = ("--workspace", "acme", "--fact", facts["tea"], "--hard", "--yes")
    assert _refused(capsys, *args, "--as", "olga", "--json")["kind"] == "forbidden"
    _run(capsys, *args, "--as", "ada")
    assert MemoryEvent.objects.get(kind="purged").actor == "user:ada"


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a second process needs a server database")
def test_a_purge_by_another_process_leaves_this_process_warm_index_without_the_facts(workspace):
    """Two real processes: this one's recall index is warm when another runs `tideline purge --hard`."""
    from memory.services.recall.index import registry

    registry.clear()
    tl = Tideline(workspace)
    secret = tl.add("The deploy password is hunter2.", segment="knowledge").id
    tl.add("The deploy window is on Tuesdays.", segment="knowledge")
    assert secret in [h.id for h in tl.recall("deploy password", reinforce=False)]
    db = connection.settings_dict
    env = {**os.environ, "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
           "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", "purge", "--workspace", workspace.name,
                           "--fact", secret, "--hard", "--yes", "--json"], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["facts"] == 1
    hits = [h.id for h in tl.recall("deploy password", reinforce=False)]
    assert secret not in hits and hits  # the other fact is still found
    assert secret not in registry.get(workspace, R.parse_origin("owner")).rows
