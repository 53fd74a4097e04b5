"""`tideline retention` (governance/cli/retention.py): policies added and edited from the command
line, a preview, and a run that asks for the typed count unless --yes (and refuses without a terminal)."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from governance.models import RetentionPolicy
from memory.engine.facts import records as R
from memory.management.commands.tideline import subcommands
from memory.models import Fact, MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
OLD = timezone.now() - timedelta(days=40)


@pytest.fixture
def old_facts(workspace):
    tl = Tideline(workspace)
    tl.add("We talked about the ferry timetable on Tuesday.", segment="context", now=OLD)
    tl.add("The ferry leaves at nine from pier four.", segment="context", origin=PEER, now=OLD)
    tl.add("I prefer the ferry over the bus.", segment="preference", now=OLD)
    return workspace


class Tty(io.StringIO):
    def isatty(self):
        return True


def _run(capsys, *args):
    call_command("tideline", "retention", *args)
    return capsys.readouterr().out


def _json(capsys, *args):
    return json.loads(_run(capsys, *args, "--json"))


def _refused(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "retention", *args, "--json")
    assert exit_.value.code == 2
    return json.loads(capsys.readouterr().out)["error"]


def _add_chat(capsys, *extra):
    return _json(capsys, "add", "--workspace", "acme", "--name", "chat", "--segments", "context", "--older-than", "30d", *extra)


def test_registered_by_governance():
    assert subcommands()["retention"].__name__ == "governance.cli.retention"


def test_add_list_edit_disable_remove(old_facts, capsys):
    created = _add_chat(capsys)["created"][0]
    assert (created["name"], created["version"], created["scope"]) == ("chat", 1, "facts of any origin, segment context")
    listed = _json(capsys, "list", "--workspace", "acme")["policies"]
    assert [(p["name"], p["version"], p["enabled"]) for p in listed] == [("chat", 1, True)]
    edited = _json(capsys, "edit", "--workspace", "acme", "--policy", "chat", "--older-than", "7d", "--origin-kind",
                   "owner", "--no-keep-confirmed")  # fmt: skip
    assert (edited["version"], edited["max_age_seconds"], edited["origin_kind"], edited["keep_confirmed"]) == (
        2, 7 * 86400, "owner", False)  # fmt: skip
    assert _json(capsys, "disable", "--workspace", "acme", "--policy", "chat")["enabled"] is False
    assert "older than 7 days" in _run(capsys, "list", "--workspace", "acme")
    assert _json(capsys, "remove", "--workspace", "acme", "--policy", "chat")["name"] == "chat"
    changes = MemoryEvent.objects.filter(kind="settings_changed").order_by("revision")
    assert [(e.data["change"], e.actor) for e in changes] == [("created", "cli:retention"), ("edited", "cli:retention"),
                                                              ("disabled", "cli:retention"), ("deleted", "cli:retention")]


def test_bad_input_is_refused_and_changes_nothing(old_facts, capsys):
    error = _refused(capsys, "add", "--workspace", "acme", "--name", "all", "--older-than", "30d")
    assert error["kind"] == "validation" and "no scope would expire every fact" in error["message"]
    assert "more than zero" in _refused(capsys, "add", "--workspace", "acme", "--name", "x", "--tiers", "short",
                                        "--older-than=-3d")["message"]  # fmt: skip
    assert _refused(capsys, "edit", "--workspace", "acme", "--policy", "nope", "--older-than", "1d")["kind"] == "not_found"
    assert not RetentionPolicy.objects.exists()
    every = _json(capsys, "add", "--workspace", "acme", "--name", "all", "--older-than", "5y", "--every-fact")
    assert every["created"][0]["scope"] == "every fact"


def test_the_ladder_preset(old_facts, capsys):
    made = _json(capsys, "add", "--workspace", "acme", "--preset", "ladder")["created"]
    assert [(p["tiers"], p["max_age_seconds"]) for p in made] == [(["short"], 30 * 86400), (["long"], 365 * 86400)]
    by_class = _json(capsys, "add", "--workspace", "acme", "--preset", "ladder", "--by", "classifications",
                     "--ladder", "PII=1 hour,INTERNAL=never", "--name", "classes")["created"]  # fmt: skip
    assert [(p["name"], p["classifications"]) for p in by_class] == [("classes: classification PII · 1 hour", ["PII"])]
    assert _refused(capsys, "add", "--workspace", "acme", "--preset", "ladder", "--ladder", "short=2 days")["kind"] == "validation"


def test_preview_then_apply_with_yes_takes_them_once(old_facts, capsys):
    _add_chat(capsys)
    (preview,) = _json(capsys, "preview", "--workspace", "acme")["previews"]
    assert preview["takes"] == 2 and len(preview["facts"]) == 2
    assert "would archive 2 fact(s) now" in _run(capsys, "preview", "--workspace", "acme", "--policy", "chat")
    (run,) = _json(capsys, "apply", "--workspace", "acme", "--yes")["runs"]
    assert (run["archived"], run["version"], run["actor"]) == (2, 1, "cli:retention")
    assert _json(capsys, "apply", "--workspace", "acme", "--yes")["runs"][0]["archived"] == 0
    assert Fact.objects.filter(lifecycle="archived").count() == 2


def test_apply_without_yes_and_without_a_terminal_refuses(old_facts, capsys, monkeypatch):
    _add_chat(capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n"))
    assert _refused(capsys, "apply", "--workspace", "acme")["kind"] == "confirmation_required"
    assert not Fact.objects.filter(lifecycle="archived").exists()


def test_apply_asks_for_the_typed_count(old_facts, capsys, monkeypatch):
    _add_chat(capsys)
    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("builtins.input", lambda prompt="": "3")
    with pytest.raises(SystemExit):
        call_command("tideline", "retention", "apply", "--workspace", "acme")
    assert "did not match" in capsys.readouterr().err and not Fact.objects.filter(lifecycle="archived").exists()
    monkeypatch.setattr("builtins.input", lambda prompt="": " 2 ")
    out = _run(capsys, "apply", "--workspace", "acme", "--policy", "chat")
    assert "would archive 2 fact(s) now" in out and "2 archived" in out


def test_changes_and_runs_as_a_member_need_an_admin(old_facts, personas, capsys):
    # olga owns acme, ada is its admin
    assert _refused(capsys, "add", "--workspace", "acme", "--name", "c", "--tiers", "short", "--older-than", "1d",
                    "--as", "olga")["kind"] == "forbidden"  # fmt: skip
    _add_chat(capsys, "--as", "ada")
    assert _json(capsys, "list", "--workspace", "acme", "--as", "olga")["policies"][0]["updated_by"] == "user:ada"
    assert _refused(capsys, "apply", "--workspace", "acme", "--yes", "--as", "olga")["kind"] == "forbidden"
    assert _json(capsys, "apply", "--workspace", "acme", "--yes", "--as", "ada")["runs"][0]["actor"] == "user:ada"


def test_a_purge_policy_from_the_command_line_leaves_a_receipt(old_facts, capsys):
    _add_chat(capsys, "--action-taken", "purge", "--origin-kind", "channel")
    (run,) = _json(capsys, "apply", "--workspace", "acme", "--yes")["runs"]
    assert (run["action"], run["purged"], run["archived"]) == ("purge", 1, 0)
    assert not Fact.objects.filter(origin_key=PEER.key).exists() and Fact.objects.filter(origin_key="owner").count() == 2
    assert MemoryEvent.objects.get(kind="purged").actor == "cli:retention"
