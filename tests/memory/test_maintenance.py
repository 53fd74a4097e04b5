"""Decay GC through the service, the CLI and the scheduled task (BEHAVIOURS H70–71)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule

from memory import tasks
from memory.models import Fact, FactTerm, MemoryEvent
from memory.services.maintenance import run_gc
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


@pytest.fixture
def aged(workspace):
    tl = Tideline(workspace)
    year_ago = timezone.now() - timedelta(days=365)
    ids = {
        "stale_context": tl.add("I am reviewing the routing service today.", segment="context", now=year_ago).id,
        "fresh_context": tl.add("I am pairing with Tomas on billing today.", segment="context").id,
        "stale_long": tl.add("The billing pipeline publishes to Kafka.", segment="project", now=year_ago).id,
        "old_identity": tl.add("I was born in Lagos.", segment="identity", now=year_ago - timedelta(days=635)).id,
        "confirmed": tl.add("I keep a strict vegetarian diet.", segment="context", now=year_ago).id,
    }
    Fact.objects.filter(memory_id=ids["confirmed"]).update(status="confirmed")
    return ids


def _lifecycle(memory_id):
    return Fact.objects.get(memory_id=memory_id).lifecycle


def test_gc_prunes_stale_short_facts_archives_stale_long_ones_and_spares_the_immune(workspace, aged):
    """H70, H71."""
    report = run_gc(workspace)
    assert report.counts == {"archived": 1, "pruned": 1, "kept": 3}
    assert _lifecycle(aged["stale_context"]) == "pruned" and _lifecycle(aged["stale_long"]) == "archived"
    assert {_lifecycle(aged[k]) for k in ("fresh_context", "old_identity", "confirmed")} == {"active"}
    assert not FactTerm.objects.filter(fact__memory_id=aged["stale_context"]).exists()  # out of the dedup index
    events = MemoryEvent.objects.filter(workspace=workspace, kind__in=["archived", "pruned", "gc_run"])
    assert sorted(events.values_list("kind", flat=True)) == ["archived", "gc_run", "pruned"]
    assert run_gc(workspace).changes == 0  # idempotent


def test_a_dry_run_changes_nothing(workspace, aged):
    revision = workspace.revision
    assert run_gc(workspace, dry_run=True).counts["pruned"] == 1
    workspace.refresh_from_db()
    assert workspace.revision == revision and _lifecycle(aged["stale_context"]) == "active"


def test_gc_via_the_cli_and_the_scheduled_task(workspace, aged, capsys):
    call_command("tideline", "gc", "--workspace", workspace.name, "--dry-run", "--json")
    assert json.loads(capsys.readouterr().out)["counts"]["archived"] == 1
    [result] = tasks.run_gc_everywhere()
    assert result["counts"] == {"archived": 1, "pruned": 1, "kept": 3}


def test_schedules_are_declared_idempotently():
    call_command("setup_schedules")
    call_command("setup_schedules")
    assert Schedule.objects.filter(func="memory.tasks.run_gc_everywhere").count() == 1
