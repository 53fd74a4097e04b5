"""A real `kill -9` in the middle of a hard purge: nothing half-done survives, and the re-run does it all.

The purging process is stopped after its rows, links and postings are deleted and its receipt is
queued, before the transaction commits: the database must read exactly as before (facts, links,
open review items, revision, no receipt). Running the purge again then gives what the preview said.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.processes import kill_when_marked

ROOT = Path(__file__).resolve().parents[3]
FACTS = 400

SEED = """
import django, json; django.setup()
from governance.models import ReviewItem
from memory.models import Fact
from memory.services.writes.interchange import import_facts
from memory.services.workspaces import create_workspace
ws = create_workspace("w")
peer = {"kind": "channel", "channelId": "slack", "conversationId": "team", "sessionKey": "s1"}
lines = []
for k in range(%(n)d):
    line = {"memoryId": f"mem_{k:05d}", "content": f"Fact number {k} about topic {k %% 37}.", "segment": "knowledge",
            "createdAt": 1750000000000 + k, "lifecycle": "active", "createdBy": peer if k %% 2 else {"kind": "owner"},
            "links": [{"kind": "relates", "target": f"mem_{(k + 1) %% %(n)d:05d}"}]}
    if k %% 2 == 0 and k %% 4:
        line["sourcePointers"] = [f"mem_{k + 1:05d}"]
    lines.append(json.dumps(line))
assert not import_facts(workspace=ws, lines=lines, actor="test").refused
a, b = Fact.objects.get(memory_id="mem_00001"), Fact.objects.get(memory_id="mem_00002")
ReviewItem.objects.create(workspace=ws, kind="contradiction", reason="r", fact=a, fact_memory_id=a.memory_id,
                          other_fact=b, other_memory_id=b.memory_id)
"""

STATE = """
import django, json; django.setup()
from governance.models import ReviewItem
from memory.models import Fact, FactTerm, Link, MemoryEvent, Workspace
ws = Workspace.objects.get(name="w")
print(json.dumps({"revision": ws.revision, "facts": Fact.objects.filter(workspace=ws).count(),
                  "links": Link.objects.filter(workspace=ws).count(),
                  "postings": FactTerm.objects.filter(workspace=ws).count(),
                  "open_items": ReviewItem.objects.filter(workspace=ws, status="open").count(),
                  "purged_events": MemoryEvent.objects.filter(workspace=ws, kind="purged").count(),
                  "events": MemoryEvent.objects.filter(workspace=ws).count()}))
"""

# Purge the peer's facts, and stop for good right after the deletions, inside the transaction.
STALL = """
import django, pathlib, sys, time; django.setup()
from memory.services.lifecycle import deletion
from memory.services.lifecycle import retract_and_purge as purging
from governance.services import purge
original = deletion.delete_facts
def stalled(*args, **kwargs):
    done = original(*args, **kwargs)
    written = pathlib.Path(sys.argv[1] + ".part")  # whole or absent: the test polls for the marker
    written.write_text(str(len(done)))
    written.replace(sys.argv[1])
    time.sleep(600)
purging.delete_facts = stalled
from memory.models import Workspace
ws = Workspace.objects.get(name="w")
selection = purge.Selection.parse(origin="channel:slack/team/s1")
purge.apply(ws, selection, hard=True, typed="w", actor="test", reason="killed")
"""


def _py(env: dict, code: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _cli(env: dict, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", "purge", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _state(env: dict) -> dict:
    return json.loads(_py(env, STATE).stdout)


def _kill_midway_then_rerun(env: dict, tmp_path: Path) -> None:
    env = {**env, "DJANGO_SETTINGS_MODULE": "tideline_site.settings"}
    _py(env, SEED % {"n": FACTS})
    before = _state(env)
    plan = _cli(env, "--workspace", "w", "--origin", "channel:slack/team/s1", "--hard", "--dry-run", "--json")
    assert plan["facts"] == FACTS // 2 + FACTS // 4 and plan["cascaded"] == FACTS // 4
    marker = tmp_path / "deleted"
    kill_when_marked(STALL, marker, env=env)
    assert marker.exists() and int(marker.read_text()) == plan["facts"], "the purge never reached its deletions"
    assert _state(env) == before  # nothing of the killed purge is left: not a row, not an event

    report = _cli(env, "--workspace", "w", "--origin", "channel:slack/team/s1", "--hard", "--yes", "--json")
    assert (report["facts"], report["cascaded"], report["links"]) == (plan["facts"], plan["cascaded"], plan["links"])
    after = _state(env)
    assert after["facts"] == FACTS - plan["facts"] and after["links"] == before["links"] - plan["links"]
    assert after["purged_events"] == 1 and after["open_items"] == 0 and after["revision"] == before["revision"] + 1
    assert 0 < after["postings"] < before["postings"]


def test_kill_9_mid_purge_then_rerun_on_sqlite(tmp_path):
    database = tmp_path / "tideline.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore")}
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    _kill_midway_then_rerun(env, tmp_path)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs against the PostgreSQL test database")
def test_kill_9_mid_purge_then_rerun_on_postgresql(tmp_path):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
    }
    _kill_midway_then_rerun(env, tmp_path)
