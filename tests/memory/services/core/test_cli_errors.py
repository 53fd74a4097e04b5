"""The `tideline` command answers every mistake plainly: --json always gets JSON (usage errors too),
a broken deployment is one line and exit 2 (never a traceback), and nonsense options are refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.models import MemoryEvent

ROOT = Path(__file__).resolve().parents[4]
TIDELINE = Path(sys.executable).parent / "tideline"
FORMS = {"tideline": [str(TIDELINE)], "manage.py tideline": [sys.executable, str(ROOT / "manage.py"), "tideline"]}


def run(form: str, *args: str, **env: str | None) -> subprocess.CompletedProcess:
    environment = dict(os.environ)
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return subprocess.run([*FORMS[form], *args], capture_output=True, text=True, env=environment, cwd=ROOT, timeout=120)


def json_error(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout)["error"]


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


# ---------------------------------------------------------------- usage errors under --json


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("args", [
    ["--json"], ["nope", "--json"], ["recall", "--json"], ["gc", "--workspace", "w", "--undo", "x", "--json"],
    ["--json", "recall", "porto", "--workspace", "w", "--k", "many"], ["context", "q", "--workspace", "w", "--as-of", "2026-01-01T00:00Z", "--jso"],
])  # fmt: skip
def test_json_answers_usage_errors_with_json(form, args):
    error = json_error(run(form, *args))
    assert error["kind"] == "usage" and error["message"]


def test_without_json_a_usage_error_is_argparse_text():
    result = run("tideline", "gc", "--workspace", "w", "--undo", "x")
    assert result.returncode == 2 and "unrecognized arguments: --undo x" in result.stderr
    assert result.stdout == "" and result.stderr.startswith("usage: tideline ")


# ---------------------------------------------------------------- the deployment


BROKEN_SETTINGS = {
    "malformed DATABASE_URL": {"DATABASE_URL": "postgres://u@h:notaport/db"},
    "unsupported DATABASE_URL": {"DATABASE_URL": "mysql://u@h/db"},
    "malformed master key": {"TIDELINE_MASTER_KEY": "not base64!"},
    "var folder that cannot be made": {"DATABASE_URL": None, "SECRET_KEY": None, "TIDELINE_VAR_DIR": "/proc/tideline-var"},
    "not a boolean": {"DEBUG": "maybe"},
}  # fmt: skip


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("problem", list(BROKEN_SETTINGS))
def test_settings_that_cannot_load_are_one_line_and_exit_2(form, problem):
    env = BROKEN_SETTINGS[problem]
    one_line_error(run(form, "recall", "porto", "--workspace", "w", **env))
    assert json_error(run(form, "recall", "porto", "--workspace", "w", "--json", **env))["kind"] == "configuration"


@pytest.mark.parametrize("form", list(FORMS))
def test_an_unmigrated_database_says_to_migrate(form, tmp_path):
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/empty.sqlite3"}
    assert "manage.py migrate" in one_line_error(run(form, "recall", "porto", "--workspace", "w", **env))
    error = json_error(run(form, "recall", "porto", "--workspace", "w", "--json", **env))
    assert error["kind"] == "environment" and "not migrated" in error["message"]


@pytest.mark.parametrize("form", list(FORMS))
def test_a_database_in_a_missing_folder_is_one_line(form, tmp_path):
    env = {"DATABASE_URL": f"sqlite:///{tmp_path}/missing/tideline.sqlite3"}
    assert "missing/tideline.sqlite3" in one_line_error(run(form, "gc", "--workspace", "w", **env))
    assert json_error(run(form, "gc", "--workspace", "w", "--json", **env))["kind"] == "environment"


def test_an_unreachable_postgresql_is_one_line():
    env = {"DATABASE_URL": "postgres://tideline@127.0.0.1:1/tideline"}
    assert "cannot use the database" in one_line_error(run("tideline", "gc", "--workspace", "w", **env))


def test_a_key_store_folder_that_cannot_be_made_is_one_line(db, workspace, settings, capsys):
    settings.TIDELINE_KEYSTORE_DIR = Path("/proc/tideline-keystore")
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "add", "I keep a strict vegetarian diet.", "--workspace", workspace.name,
                     "--segment", "preference", "--origin", "channel:slack/general/s1", "--json")  # fmt: skip
    assert exit_.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["message"] and "\n" not in error["message"]


# ---------------------------------------------------------------- nonsense is refused


@pytest.mark.django_db
@pytest.mark.parametrize("run_id", ["", " ", "olga", "abc", "../x"])
def test_dream_undo_needs_a_run_id_and_never_runs_a_dream(workspace, capsys, run_id):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "dream", "--workspace", workspace.name, "--undo", run_id, "--json")
    assert exit_.value.code == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"
    assert not MemoryEvent.objects.filter(workspace=workspace, kind="dream_run").exists()


@pytest.mark.django_db
def test_options_of_one_subcommand_are_refused_by_another(workspace):
    for args in (["gc", "--undo", "abc"], ["contradictions", "--undo", "abc"], ["context", "q", "--as-of", "x"],
                 ["explain", "q", "--no-reinforce"], ["recall", "q", "--max-chars", "10"]):  # fmt: skip
        with pytest.raises(CommandError, match="unrecognized arguments"):
            call_command("tideline", *args, "--workspace", workspace.name)


@pytest.mark.django_db
@pytest.mark.parametrize("verb", ["recall", "context", "explain"])
@pytest.mark.parametrize("origin", ["bogus", "channel:", "channel:a/b", "channel:a//c", "Owner"])
def test_recall_refuses_a_malformed_origin(workspace, capsys, verb, origin):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", verb, "porto", "--workspace", workspace.name, "--origin", origin, "--json")
    assert exit_.value.code == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"


@pytest.mark.django_db
def test_a_well_formed_peer_nobody_wrote_as_sees_nothing(tl, workspace, capsys):
    tl.add("I live in Porto by the river.", segment="identity")
    call_command("tideline", "recall", "porto", "--workspace", workspace.name, "--origin", "channel:x/y/z", "--json")
    assert json.loads(capsys.readouterr().out)["hits"] == []


@pytest.mark.django_db
@pytest.mark.parametrize("args, offers_create", [(["gc"], False), (["recall", "q"], False), (["export"], False),
                                                 (["add", "I like tea.", "--segment", "preference"], True)])  # fmt: skip
def test_a_missing_workspace_is_named_and_create_is_offered_only_where_it_exists(capsys, args, offers_create):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", *args, "--workspace", "nope", "--json")
    assert exit_.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "not_found" and "'nope' does not exist" in error["message"]
    assert ("--create" in error["message"]) is offers_create
    assert offers_create or "tideline workspace list" in error["message"]


def test_the_top_level_help_lists_tideline_not_djangos_options():
    result = run("tideline", "--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: tideline [-h] [--version] SUBCOMMAND")
    for django_option in ("--settings", "--pythonpath", "--traceback", "--no-color", "--skip-checks", "--verbosity"):
        assert django_option not in result.stdout
    assert "recall" in result.stdout and "tideline tideline" not in result.stdout
