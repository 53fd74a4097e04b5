"""Two processes writing and recalling one workspace stay coherent through the revision counter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memory.services.recall.index import registry
from memory.tideline import Tideline

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a second process needs a server database"),
]
ROOT = Path(__file__).resolve().parents[4]


def _other_process(*args: str) -> dict:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
    }
    result = subprocess.run([sys.executable, "-m", "tideline_site.cli", *args, "--json"], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_fact_written_by_another_process_is_recalled_by_a_warm_index(workspace):
    registry.clear()
    tl = Tideline(workspace)
    first = tl.add("The billing pipeline runs nightly at two.", segment="project")
    assert [h.id for h in tl.recall("billing pipeline", reinforce=False)] == [first.id]  # index is warm now
    other = _other_process("add", "The billing pipeline exports invoices to S3.", "--workspace", workspace.name,
                           "--segment", "project")  # fmt: skip
    assert {h.id for h in tl.recall("billing pipeline", reinforce=False)} == {first.id, other["id"]}


def test_a_fact_written_here_is_recalled_by_another_process_and_archiving_reaches_it(workspace):
    tl = Tideline(workspace)
    old = tl.add("I live in Lisbon.", segment="identity", subject_key="home_city")
    seen = _other_process("recall", "where do I live", "--workspace", workspace.name, "--no-reinforce")
    assert [h["id"] for h in seen["hits"]] == [old.id]
    new = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    seen = _other_process("recall", "where do I live", "--workspace", workspace.name, "--no-reinforce")
    assert [h["id"] for h in seen["hits"]] == [new.id]
