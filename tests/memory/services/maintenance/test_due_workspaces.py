"""The scheduled passes visit what changed or what time made due, and skip the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from governance import tasks as governance_tasks
from governance.models import ReviewItem
from memory import tasks
from memory.models import Fact, MemoryEvent, PassMark
from memory.services.maintenance import due
from memory.services.maintenance.passes import run_dream, run_gc
from memory.tideline import Tideline
from memory.timestamps import to_ms


def _names(pairs):
    return [name for _, name in pairs]


def test_a_second_gc_skips_every_workspace_nothing_touched(workspace, other_workspace):
    Tideline(workspace).add("The staging database listens on port 5433.", segment="knowledge")
    Tideline(other_workspace).add("Deploys happen on Thursdays.", segment="knowledge")
    assert len(tasks.run_gc_everywhere()) == 2
    assert tasks.run_gc_everywhere() == []  # nothing written, nothing decayed to a threshold yet
    Tideline(other_workspace).add("The release train leaves at noon.", segment="knowledge")
    assert _names(due.due_workspaces(due.GC)) == [other_workspace.name]
    assert len(tasks.run_gc_everywhere()) == 1
    assert due.due_workspaces(due.GC) == []


def test_a_workspace_is_due_again_when_a_fact_decays_to_the_threshold(workspace):
    tl = Tideline(workspace)
    chat = tl.add("We chatted about the ferry timetable.", segment="context")
    report = run_gc(workspace)
    assert report.counts["archived"] == 0 and report.next_due_ms is not None
    mark = PassMark.objects.get(workspace=workspace, name=due.GC)
    assert mark.due_at is not None and mark.due_at > timezone.now() + timedelta(days=1)
    assert due.due_workspaces(due.GC, now=mark.due_at - timedelta(seconds=1)) == []
    assert _names(due.due_workspaces(due.GC, now=mark.due_at)) == [workspace.name]
    # At that time the pass does find the work the mark promised.
    assert run_gc(workspace, now=mark.due_at).counts["archived"] == 1
    assert Fact.objects.get(memory_id=chat.id).lifecycle == "archived"


def test_a_change_by_someone_else_while_a_pass_runs_keeps_the_workspace_due(workspace, monkeypatch):
    tl = Tideline(workspace)
    tl.add("The on-call rota changes on Mondays.", segment="knowledge")
    from memory.services.maintenance import passes

    real = passes.maint_facts

    def read_then_someone_writes(*args, **kwargs):
        facts = real(*args, **kwargs)
        Tideline(workspace).add("The on-call phone is in the top drawer.", segment="knowledge")  # lands after the read
        return facts

    monkeypatch.setattr(passes, "maint_facts", read_then_someone_writes)
    run_gc(workspace)
    monkeypatch.setattr(passes, "maint_facts", real)
    assert _names(due.due_workspaces(due.GC)) == [workspace.name]  # the new fact was not seen
    run_gc(workspace)
    assert due.due_workspaces(due.GC) == []  # its own gc_run event does not make it due


def test_a_failed_pass_leaves_the_workspace_due(workspace, monkeypatch):
    Tideline(workspace).add("Backups run at 02:00 UTC.", segment="knowledge")
    from memory.services.maintenance import passes

    monkeypatch.setattr(passes, "apply_changes", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("disk full")))
    with pytest.raises(RuntimeError, match="disk full"):
        run_gc(workspace)
    assert _names(due.due_workspaces(due.GC)) == [workspace.name]


def test_the_nightly_pass_skips_unchanged_workspaces_and_a_dream_mark_is_its_own(workspace, other_workspace):
    Tideline(workspace).add("I prefer tea in the morning.", segment="preference")
    Tideline(other_workspace).add("I prefer coffee.", segment="preference")
    assert len(governance_tasks.run_nightly_everywhere()) == 2
    runs = MemoryEvent.objects.filter(kind="dream_run").count()
    assert governance_tasks.run_nightly_everywhere() == []
    assert MemoryEvent.objects.filter(kind="dream_run").count() == runs
    # The night's dream left its own mark too; a dream run by hand that changes nothing wakes nobody.
    assert due.due_workspaces(due.DREAM) == []
    run_dream(workspace)
    assert due.due_workspaces(due.DREAM) == [] and due.due_workspaces(due.NIGHTLY) == []


def test_a_night_that_the_review_cap_cut_short_is_due_the_next_night(workspace):
    workspace.review_daily_cap = 1
    workspace.save(update_fields=["review_daily_cap"])
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    tl.add("My flight to Oslo leaves on Tuesday.", segment="context")
    tl.add("My flight to Oslo leaves on Friday.", segment="context")
    governance_tasks.run_nightly(workspace.pk)
    assert ReviewItem.objects.filter(workspace=workspace).count() == 1  # one pair waits for tomorrow
    mark = PassMark.objects.get(workspace=workspace, name=due.NIGHTLY)
    assert mark.due_at is not None and to_ms(mark.due_at) == 0
    assert _names(due.due_workspaces(due.NIGHTLY)) == [workspace.name]
    # A night that opens everything it found is done until something changes.
    workspace.review_daily_cap = 50
    workspace.save(update_fields=["review_daily_cap"])
    governance_tasks.run_nightly(workspace.pk)
    assert ReviewItem.objects.filter(workspace=workspace).count() == 2
    assert due.due_workspaces(due.NIGHTLY) == []


def test_passes_that_change_nothing_do_not_wake_each_other(workspace, other_workspace):
    """Each pass writes a run event even when it finds nothing: the night's dream_run must not make
    the next hour's GC due, nor the GC's gc_run the next night, or every workspace runs every day."""
    Tideline(workspace).add("The printer on the third floor needs toner.", segment="knowledge")
    Tideline(other_workspace).add("The lift is serviced on Fridays.", segment="knowledge")
    assert len(tasks.run_gc_everywhere()) == 2
    assert len(governance_tasks.run_nightly_everywhere()) == 2  # its dream_run events come after the GC
    assert tasks.run_gc_everywhere() == []
    assert governance_tasks.run_nightly_everywhere() == []
    # A real change still counts, whoever makes it.
    Tideline(workspace).add("The printer toner is in the supply room.", segment="knowledge")
    assert _names(due.due_workspaces(due.GC)) == _names(due.due_workspaces(due.NIGHTLY)) == [workspace.name]
