"""Recall's use counts, written in batches off the request (memory/services/reinforcement.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import Fact
from memory.services import reinforcement

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
        "from memory.services import reinforcement\n"
        "from memory.models import Fact\n"
        "from django.utils import timezone\n"
        "pk = Fact.objects.get(memory_id='{id}').pk\n"
        "reinforcement.record([pk, pk], timezone.now())\n"
        "assert reinforcement.pending.uses\n"
    )
    fact = tl.add("I keep a strict vegetarian diet.", segment="preference")
    env = {"TIDELINE_REINFORCE_FLUSH_SECONDS": "30"}
    _run_with_test_database(script.format(id=fact.id), env)
    assert _count(fact.id) == 2


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


