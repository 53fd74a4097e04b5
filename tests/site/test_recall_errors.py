"""When recall cannot answer (an index that failed to build), the console and the CLI say so clearly:
an error message, never a 500 and never an empty "nothing relevant"."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from memory.engine.recall.candidates import FactColumns

pytestmark = pytest.mark.django_db


@pytest.fixture
def broken_index(tl, monkeypatch):
    tl.add("I keep a strict vegetarian diet.", segment="preference")

    def fail(*args, **kwargs):
        raise RuntimeError("index build fault")

    monkeypatch.setattr(FactColumns, "from_rows", fail)


@pytest.mark.parametrize("htmx", [False, True])
def test_the_playground_shows_the_error_instead_of_a_500(client, owner, workspace, broken_index, htmx):
    client.force_login(owner)
    url = reverse("memory:recall-playground", args=[workspace.name])
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get(url, {"q": "vegetarian diet", "origin": "owner", "k": 8, "clearance": "PII",
                                "max_chars": 1200}, headers=headers)  # fmt: skip
    body = response.content.decode()
    assert response.status_code == 200
    assert "Recall failed: the recall index of this origin could not be built" in body
    assert "Nothing relevant" not in body


def test_the_facts_search_shows_the_error_instead_of_no_match(client, owner, workspace, broken_index):
    client.force_login(owner)
    response = client.get(reverse("memory:fact-list", args=[workspace.name]), {"q": "vegetarian diet"})
    body = response.content.decode()
    assert response.status_code == 200
    assert "Search failed: the recall index of this origin could not be built" in body
    assert "No facts match" not in body


def test_cli_recall_prints_the_error_and_exits_2(workspace, broken_index, capsys):
    with pytest.raises(SystemExit) as exited:
        call_command("tideline", "recall", "vegetarian diet", "--workspace", workspace.name)
    assert exited.value.code == 2
    assert "error: the recall index of this origin could not be built (RuntimeError)" in capsys.readouterr().err


def test_cli_recall_json_answers_an_error_object(workspace, broken_index, capsys):
    with pytest.raises(SystemExit) as exited:
        call_command("tideline", "recall", "vegetarian diet", "--workspace", workspace.name, "--json")
    assert exited.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "index_unavailable" and error["details"] == {"cause": "RuntimeError"}
