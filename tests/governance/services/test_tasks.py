"""Governance's scheduled work: the nightly dream-then-contradictions pass, declared once."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django_q.models import Schedule

from governance import tasks
from governance.models import ReviewItem
from governance.schedules import allowed_task_functions
from memory.models import MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
NIGHTLY = "dream and contradictions (nightly at 03:00 UTC, every workspace)"


def _plant(workspace):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")


def test_the_nightly_pass_dreams_then_opens_contradictions_once(workspace):
    _plant(workspace)
    first = tasks.run_nightly(workspace.pk)
    assert [r["kind"] for r in first] == ["dream", "contradictions"]
    assert first[1]["counts"]["opened"] == 1
    runs = MemoryEvent.objects.filter(workspace=workspace, kind__in=["dream_run", "reviewed"]).order_by("revision")
    assert [(e.kind, e.actor) for e in runs][-1] == ("reviewed", "task:contradictions")
    assert tasks.run_nightly(workspace.pk)[1]["counts"]["opened"] == 0
    assert ReviewItem.objects.filter(workspace=workspace).count() == 1


def test_the_nightly_schedule_queues_each_workspace_as_its_own_long_task(workspace, other_workspace, monkeypatch):
    """A million-fact workspace's dream takes about ten minutes: one task per workspace, each with the
    maintenance timeout, and the broker must not hand a task out again while it can still run."""
    from django.conf import settings
    from django_q import tasks as q_tasks

    queued = []
    monkeypatch.setattr(q_tasks, "async_task", lambda func, *args, **options: queued.append((func, args, options)) or "id")
    assert tasks.run_nightly_everywhere() == ["id", "id"]
    assert [(func, args) for func, args, _ in queued] == [("governance.tasks.run_nightly", (workspace.pk,)),
                                                         ("governance.tasks.run_nightly", (other_workspace.pk,))]  # fmt: skip
    assert all(options["timeout"] == settings.TIDELINE_MAINTENANCE_TIMEOUT >= 3600 for _, _, options in queued)
    assert settings.Q_CLUSTER["retry"] > settings.TIDELINE_MAINTENANCE_TIMEOUT
    assert "nightly: " + workspace.name in [options["task_name"] for _, _, options in queued]


def test_in_sync_mode_the_nightly_schedule_runs_every_workspace_in_turn(workspace, other_workspace):
    _plant(workspace)
    _plant(other_workspace)
    assert len(tasks.run_nightly_everywhere()) == 2
    for each in (workspace, other_workspace):
        assert MemoryEvent.objects.filter(workspace=each, kind="dream_run", actor__startswith="task:dream").exists()
        assert ReviewItem.objects.filter(workspace=each).count() == 1


def test_contradictions_everywhere_covers_every_workspace(workspace, other_workspace):
    _plant(workspace)
    _plant(other_workspace)
    reports = tasks.find_contradictions_everywhere()
    assert sorted(r["workspace"] for r in reports) == sorted([workspace.name, other_workspace.name])
    assert all(r["counts"]["opened"] == 1 for r in reports)


def test_governance_tasks_are_allowed_schedule_functions():
    assert {"governance.tasks.run_nightly_everywhere", "governance.tasks.find_contradictions_everywhere"} <= allowed_task_functions()
    # The queueing helper is no task: a schedule naming it could queue any function at all.
    assert not any(name.endswith("queue_for_each_workspace") for name in allowed_task_functions())


def test_setup_schedules_runs_the_nightly_pass_from_governance_and_upgrades_an_old_schedule():
    # An install from before the governance app scheduled the dream alone under the same name.
    Schedule.objects.create(name=NIGHTLY, func="memory.tasks.run_dream_everywhere", schedule_type=Schedule.DAILY)
    call_command("setup_schedules")
    call_command("setup_schedules")
    nightly = Schedule.objects.get(name=NIGHTLY)
    assert (nightly.func, nightly.schedule_type) == ("governance.tasks.run_nightly_everywhere", Schedule.DAILY)
    from governance.management.commands.setup_schedules import SCHEDULES

    assert Schedule.objects.count() == len(SCHEDULES) == 7


def test_retention_runs_nightly_through_an_allowed_task_and_takes_nothing_twice(workspace):
    from datetime import timedelta

    from django.utils import timezone

    from governance.services import retention

    tl = Tideline(workspace)
    old = tl.add("We talked about the ferry timetable on Tuesday.", segment="context",
                 now=timezone.now() - timedelta(days=40))
    retention.create(workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    call_command("setup_schedules")
    nightly = Schedule.objects.get(func="governance.tasks.apply_retention_all")
    assert nightly.schedule_type == Schedule.DAILY and nightly.func in allowed_task_functions()
    assert [r["archived"] for r in tasks.apply_retention_all()] == [1]
    assert [r["archived"] for r in tasks.apply_retention_all()] == [0]
    run = MemoryEvent.objects.filter(kind="retention_run").order_by("revision").first()
    assert run.actor == "task:retention" and old.id in MemoryEvent.objects.get(kind="archived").fact_ids


def test_telemetry_proposals_are_made_nightly_through_an_allowed_task_and_not_twice(workspace):
    from governance.models import Proposal

    tl = Tideline(workspace)
    fact = tl.add("The meeting room is on the third floor.", segment="knowledge")
    for _ in range(3):
        tl.feedback(fact.id, "down")
    call_command("setup_schedules")
    nightly = Schedule.objects.get(func="governance.tasks.propose_from_telemetry_everywhere")
    assert nightly.schedule_type == Schedule.DAILY and nightly.func in allowed_task_functions()
    first = tasks.propose_from_telemetry_everywhere()
    assert [len(r["proposed"]) for r in first] == [1]
    assert [len(r["proposed"]) for r in tasks.propose_from_telemetry_everywhere()] == [0]
    made = Proposal.objects.get()
    assert made.fact_ids == [fact.id] and made.author_name == "telemetry" and made.status == "pending"
