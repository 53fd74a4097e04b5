"""A dream stopped after some of its batches committed is undone by its run id.

The run is recorded (a `dream_run` event, status "started") before its first batch, so `tideline
dream --undo RUN` finds it and reverts whatever committed; the overview shows it as not finished.
With a real `kill -9` on PostgreSQL, and in-process (a failure after the first batches) on both.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from memory.models import Fact, MemoryEvent, Workspace
from memory.selectors import maintenance_runs
from memory.services.maintenance import passes as maintenance
from memory.tideline import Tideline
from tests.processes import kill_when_marked

ROOT = Path(__file__).resolve().parents[4]
PAIRS = 8  # each pair of equal beliefs under two subject keys merges: two changes

# Dream over workspace `w` in batches of 4 changes; stop for good once the first batch committed.
STALL = """
import django, pathlib, sys, time; django.setup()
from memory.models import Workspace
from memory.services.maintenance import passes as maintenance
maintenance.BATCH = 4
marker = pathlib.Path(sys.argv[1])
def progress(phase, done, total):
    if phase == "applying changes" and done >= maintenance.BATCH:
        written = marker.with_name(marker.name + ".part")
        written.write_text(str(done))
        written.replace(marker)
        time.sleep(600)
maintenance.run_dream(Workspace.objects.get(name="w"), actor="cli:dream", progress=progress)
"""


def _seed(workspace: Workspace) -> list[str]:
    tl = Tideline(workspace)
    ids = []
    for k in range(PAIRS):
        for key in ("first", "second"):
            ids.append(tl.add(f"I keep spare key number {k} under flowerpot {k}", segment="preference",
                              subject_key=f"{key}_{k}").id)  # fmt: skip
    return ids


def _lifecycles(ids: list[str]) -> dict[str, str]:
    return dict(Fact.objects.filter(memory_id__in=ids).values_list("memory_id", "lifecycle"))


def _started_run(workspace: Workspace) -> str:
    started = MemoryEvent.objects.get(workspace=workspace, kind="dream_run", data__status="started")
    assert not MemoryEvent.objects.filter(workspace=workspace, kind="dream_run", data__status="finished").exists()
    return started.data["run"]


def _undo_and_check(workspace: Workspace, ids: list[str], capsys) -> None:
    run = _started_run(workspace)
    shown = maintenance_runs(workspace)
    assert shown[0]["label"] == "Dream (started, not finished)" and "consolidated 8" in shown[0]["counts"]
    call_command("tideline", "dream", "--workspace", workspace.name, "--undo", run, "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["changes"] >= 4 and report["already_undone"] is False and report["run_finished"] is False
    assert set(_lifecycles(ids).values()) == {"active"}


@pytest.mark.django_db
def test_a_dream_that_fails_after_its_first_batches_is_undone_by_its_run_id(workspace, monkeypatch, capsys):
    ids = _seed(workspace)
    monkeypatch.setattr(maintenance, "BATCH", 4)

    def fail(*args, **kwargs):
        raise RuntimeError("the process died here")

    monkeypatch.setattr(maintenance, "_add_links", fail)  # after every batch of changes committed
    with pytest.raises(RuntimeError):
        maintenance.run_dream(workspace)
    assert list(_lifecycles(ids).values()).count("archived") == PAIRS
    _undo_and_check(workspace, ids, capsys)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs against the PostgreSQL test database")
def test_kill_9_after_the_first_batch_then_undo_by_run_id_on_postgresql(tmp_path, capsys):
    from memory.services.workspaces import create_workspace

    workspace = create_workspace("w")
    ids = _seed(workspace)
    db = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tideline_site.settings",
           "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
           "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR)}  # fmt: skip
    marker = tmp_path / "first-batch"
    err = kill_when_marked(STALL, marker, env=env)
    assert marker.exists(), err[-2000:]
    archived = list(_lifecycles(ids).values()).count("archived")
    assert 0 < archived < PAIRS  # some batches committed, not all
    _undo_and_check(workspace, ids, capsys)
