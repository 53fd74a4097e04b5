"""`tideline contradictions` is registered by the governance app and answers as it always has."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from governance.models import ReviewItem
from memory.management.commands.tideline import subcommands
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


@pytest.fixture
def planted(workspace):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    return workspace


def test_the_subcommand_comes_from_the_governance_cli_package():
    assert subcommands()["contradictions"].__name__ == "governance.cli.contradictions"
    assert subcommands()["dream"].__name__ == "memory.cli.maintaining"


def test_json_report_then_nothing_new(planted, capsys):
    call_command("tideline", "contradictions", "--workspace", planted.name, "--json")
    first = json.loads(capsys.readouterr().out)
    assert first == {"kind": "contradictions", "workspace": planted.name, "dry_run": False,
                     "counts": {"found": 1, "opened": 1}, "changes": 0, "links_added": 0}  # fmt: skip
    assert ReviewItem.objects.get().status == "open"
    call_command("tideline", "contradictions", "--workspace", planted.name)
    assert capsys.readouterr().out == f"contradictions on {planted.name}: found 1, opened 0\n"


def test_dry_run_says_so_and_opens_nothing(planted, capsys):
    call_command("tideline", "contradictions", "--workspace", planted.name, "--dry-run")
    assert capsys.readouterr().out == f"contradictions on {planted.name} (dry run): found 1, opened 0\n"
    assert not ReviewItem.objects.exists()


def test_unknown_workspace_is_a_json_error_with_exit_2(db, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "contradictions", "--workspace", "nowhere", "--json")
    assert exit_.value.code == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "not_found"


def test_dream_options_are_refused(planted):
    with pytest.raises(CommandError, match="unrecognized arguments"):
        call_command("tideline", "contradictions", "--workspace", planted.name, "--undo", "0123456789ab")
