"""Recall's use counts, written in batches off the request (memory/services/recall/reinforcement.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.engine.facts import records as R
from memory.models import Fact, Workspace
from memory.services.recall import reinforcement
from memory.services.recall.index import IndexRegistry, registry

pytestmark = pytest.mark.django_db


@pytest.fixture
def batched(settings):
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60  # long enough that only an explicit flush writes
    reinforcement.flush()
    yield
    reinforcement.pending.take()


def _count(fact_id: str) -> int:
    return Fact.objects.get(memory_id=fact_id).access_count


def test_uses_wait_for_the_batch_then_add_up(tl, batched):
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    other = tl.add("My sister lives in Lisbon near the river.", segment="relationship")
    for _ in range(3):
        assert [h.id for h in tl.recall("vegetarian diet")] == [fact.id]
    tl.recall("sister Lisbon")
    assert _count(fact.id) == 0  # nothing written by the recalls themselves
    # The process's own index counted every use at once, so its ranking already reflects them.
    assert reinforcement.flush() == 2
    assert _count(fact.id) == 3 and _count(other.id) == 1
    assert reinforcement.flush() == 0  # written once, not again


def test_a_batch_the_database_refuses_is_kept_and_written_later(tl, batched, monkeypatch):
    """A locked or unreachable database (SQLite's "database table is locked", a PostgreSQL restart)
    loses no use: the batch stays pending, counted with the uses that follow, and is written next time."""
    from django.db import OperationalError

    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.recall("vegetarian diet")
    real_write = reinforcement._write

    def locked(workspace_id, uses):
        raise OperationalError("database table is locked")

    monkeypatch.setattr(reinforcement, "_write", locked)
    with pytest.raises(OperationalError):
        reinforcement.flush()
    assert _count(fact.id) == 0 and reinforcement.pending.counts(fact_workspace(fact)) == {fact_pk(fact): 1}
    tl.recall("vegetarian diet")  # another use meanwhile: counted with the kept one
    monkeypatch.setattr(reinforcement, "_write", real_write)
    assert reinforcement.flush() == 1
    assert _count(fact.id) == 2 and not reinforcement.pending.uses


def fact_workspace(fact) -> int:
    return Fact.objects.get(memory_id=fact.id).workspace_id


def fact_pk(fact) -> int:
    return Fact.objects.get(memory_id=fact.id).pk


def test_a_batch_never_moves_a_last_use_back(tl, batched):
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    later = timezone.now() + timedelta(hours=1)
    Fact.objects.filter(memory_id=fact.id).update(last_accessed_at=later)  # another process, meanwhile
    tl.recall("vegetarian diet")
    reinforcement.flush()
    row = Fact.objects.get(memory_id=fact.id)
    assert row.access_count == 1 and row.last_accessed_at == later


def test_the_batch_is_written_by_its_timer(tl, settings, transactional_db):
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 0.2
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.recall("vegetarian diet")
    tl.recall("vegetarian diet")
    deadline = time.monotonic() + 60  # returns as soon as the timer wrote; the bound only stops a hang
    while _count(fact.id) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _count(fact.id) == 2 and not reinforcement.pending.uses


def test_a_command_writes_its_uses_before_it_exits(transactional_db, tl):
    """One-shot processes (the CLI) keep the default interval: their pending uses go at exit."""
    from django.conf import settings as django_settings

    database = django_settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3") and str(database["NAME"]).startswith(("file:memory", ":memory:")):
        pytest.skip("an in-memory SQLite test database is not visible to another process")
    script = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'tideline_site.settings'; django.setup()\n"
        "from memory.services.recall import reinforcement\n"
        "from memory.models import Fact\n"
        "from django.utils import timezone\n"
        "pk = Fact.objects.get(memory_id='{id}').pk\n"
        "reinforcement.record(Fact.objects.get(pk=pk).workspace_id, [pk, pk], timezone.now())\n"
        "assert reinforcement.pending.uses\n"
    )
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    env = {"TIDELINE_REINFORCE_FLUSH_SECONDS": "30"}
    _run_with_test_database(script.format(id=fact.id), env)
    assert _count(fact.id) == 2


OWNER = R.Origin("owner")


def _uses_in_index(index, fact_id: str) -> tuple[int, int]:
    i = index.cols.row_index[fact_id]
    return int(index.cols.access_count[i]), int(index.cols.last_accessed_at[i])


def _another_process_writes(fact_id: str, uses: int, moment) -> None:
    """What another process's batch does: the same write, none of it in this process's pending uses."""
    row = Fact.objects.get(memory_id=fact_id)
    reinforcement._write(row.workspace_id, {row.pk: [uses, moment]})


def test_uses_another_process_wrote_reach_this_index_without_a_rebuild(tl, workspace, batched):
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("My sister lives in Lisbon near the river.", segment="relationship")
    index = registry.get(workspace, OWNER)
    columns = index.cols
    version = Workspace.objects.get(pk=workspace.pk).uses_version
    later = timezone.now() + timedelta(minutes=5)

    _another_process_writes(fact.id, 4, later)

    assert Workspace.objects.get(pk=workspace.pk).uses_version == version + 1
    assert registry.get(workspace, OWNER) is index and index.cols is columns  # patched, not rebuilt
    assert _uses_in_index(index, fact.id) == (4, int(later.timestamp() * 1000))
    # Exactly what a process starting now builds from the database.
    fresh = IndexRegistry().get(workspace, OWNER)
    assert _uses_in_index(fresh, fact.id) == _uses_in_index(index, fact.id)
    assert index.rows[fact.id] == fresh.rows[fact.id]


def test_this_process_keeps_its_own_unwritten_uses_when_another_writes(tl, workspace, batched):
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    for _ in range(2):
        assert [h.id for h in tl.recall("vegetarian diet")] == [fact.id]
    index = registry.get(workspace, OWNER)
    own_last = _uses_in_index(index, fact.id)[1]
    earlier = timezone.now() - timedelta(hours=1)

    _another_process_writes(fact.id, 1, earlier)

    registry.get(workspace, OWNER)
    # The other process's use, plus this one's two not yet written; its last use is not moved back.
    assert _uses_in_index(index, fact.id) == (3, own_last)
    assert reinforcement.flush() == 1
    registry.get(workspace, OWNER)
    assert _uses_in_index(index, fact.id)[0] == 3 == _count(fact.id)


def test_a_used_fact_in_another_origin_is_left_alone(tl, workspace, batched):
    peer = R.parse_origin("channel:slack/C1/U1")
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    index = registry.get(workspace, peer)
    version = index.uses_seen
    _another_process_writes(fact.id, 2, timezone.now())
    assert registry.get(workspace, peer).uses_seen == version + 1  # looked, found nothing of its own
    assert fact.id not in index.rows


def test_uses_from_a_real_second_process_reach_this_index(transactional_db, tl, workspace):
    database = __import__("django.conf", fromlist=["settings"]).settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3") and str(database["NAME"]).startswith(("file:memory", ":memory:")):
        pytest.skip("an in-memory SQLite test database is not visible to another process")
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    index = registry.get(workspace, OWNER)
    columns = index.cols
    script = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'tideline_site.settings'; django.setup()\n"
        "from memory.tideline import Tideline\n"
        "from memory.models import Workspace\n"
        "tl = Tideline(Workspace.objects.get(pk={pk}), actor='other')\n"
        "assert [h.id for h in tl.recall('vegetarian diet')] == ['{id}']\n"
        "assert [h.id for h in tl.recall('strict vegetarian')] == ['{id}']\n"
    )
    _run_with_test_database(script.format(pk=workspace.pk, id=fact.id), {"TIDELINE_REINFORCE_FLUSH_SECONDS": "30"})
    assert registry.get(workspace, OWNER).cols is columns
    assert _uses_in_index(index, fact.id)[0] == 2 == _count(fact.id)


def _run_with_test_database(script: str, extra_env: dict[str, str]) -> None:
    import os

    from django.db import connection

    env = {**os.environ, **extra_env}
    settings_dict = connection.settings_dict
    if connection.vendor == "postgresql":
        env["DATABASE_URL"] = (f"postgres://{settings_dict['USER']}@{settings_dict['HOST'] or '127.0.0.1'}:"
                               f"{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}")  # fmt: skip
    else:
        env["DATABASE_URL"] = f"sqlite:///{settings_dict['NAME']}"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


