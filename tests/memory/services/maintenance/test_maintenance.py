"""Decay GC through the service, the CLI and the scheduled task (BEHAVIOURS H70–71)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule
from django_q.tasks import result as q_result

from memory import tasks
from memory.models import Fact, FactTerm, MemoryEvent, Workspace
from memory.services.maintenance.passes import run_gc
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
    [task_id] = tasks.run_gc_everywhere()  # queued as its own task (run in place in sync mode)
    assert q_result(task_id)["counts"] == {"archived": 1, "pruned": 1, "kept": 3}


def test_a_dry_run_says_what_it_would_do_and_lists_the_facts(workspace, aged, capsys):
    """Issue 18: future tense, every planned change in --json, and the facts' own words in text."""
    call_command("tideline", "gc", "--workspace", workspace.name, "--dry-run", "--json")
    planned = json.loads(capsys.readouterr().out)["planned"]
    assert sorted((p["action"], p["memory_id"]) for p in planned) == sorted(
        [("archive", aged["stale_long"]), ("prune", aged["stale_context"])])
    assert all(p["reason"] for p in planned)
    call_command("tideline", "gc", "--workspace", workspace.name, "--dry-run")
    text = capsys.readouterr().out
    assert "would archive 1, prune 1" in text and "nothing changed" in text
    assert aged["stale_long"] in text and Fact.objects.get(memory_id=aged["stale_long"]).content[:30] in text
    assert _lifecycle(aged["stale_long"]) == "active"
    call_command("tideline", "gc", "--workspace", workspace.name, "--json")
    assert "planned" not in json.loads(capsys.readouterr().out)  # a real run reports what it did


def test_schedules_are_declared_idempotently():
    call_command("setup_schedules")
    call_command("setup_schedules")
    assert Schedule.objects.filter(func="memory.tasks.run_gc_everywhere").count() == 1


def test_the_dream_confirms_a_thrice_asserted_belief_and_can_be_undone(workspace):
    """H72 through the service, then undo restores every field and removes what it added."""
    from memory.services.maintenance.passes import run_dream, undo_dream

    tl = Tideline(workspace)
    fact = tl.add("I prefer tea in the morning.", segment="preference", subject_key="morning_drink")
    for _ in range(2):
        tl.add("I prefer tea in the morning", segment="preference", subject_key="morning_drink")
    once = tl.add("I like jazz while I code.", segment="preference", subject_key="music")
    report = run_dream(workspace)
    row = Fact.objects.get(memory_id=fact.id)
    assert (row.status, row.confidence) == ("confirmed", 0.9)
    assert Fact.objects.get(memory_id=once.id).status is None
    assert MemoryEvent.objects.filter(workspace=workspace, kind="confirmed", fact_ids=[fact.id]).exists()
    assert undo_dream(workspace, report.counts["run"]) >= 1
    row.refresh_from_db()
    assert (row.status, row.confidence) == (None, None)


def test_undoing_a_dream_twice_changes_nothing_the_second_time_and_says_so(workspace, capsys):
    """Issue 18: an undo of an already-undone run neither reports changes again nor writes events."""
    import json

    from django.core.management import call_command

    from memory.services.maintenance.passes import run_dream, undo_dream

    tl = Tideline(workspace)
    for _ in range(3):
        tl.add("I prefer tea in the morning.", segment="preference", subject_key="morning_drink")
    run = run_dream(workspace).counts["run"]
    call_command("tideline", "dream", "--workspace", workspace.name, "--undo", run, "--json")
    first = json.loads(capsys.readouterr().out)
    assert first["changes"] >= 1 and first["already_undone"] is False
    events, revision = MemoryEvent.objects.filter(workspace=workspace).count(), Workspace.objects.get(pk=workspace.pk).revision
    call_command("tideline", "dream", "--workspace", workspace.name, "--undo", run, "--json")
    again = json.loads(capsys.readouterr().out)
    assert again["changes"] == 0 and again["already_undone"] is True
    assert undo_dream(workspace, run) is None
    assert MemoryEvent.objects.filter(workspace=workspace).count() == events
    assert Workspace.objects.get(pk=workspace.pk).revision == revision
    call_command("tideline", "dream", "--workspace", workspace.name, "--undo", run)
    assert "already undone" in capsys.readouterr().out


def test_the_dream_consolidates_near_identical_facts_and_undo_restores_the_merged_one(workspace):
    """H74 shape: the same belief under two subject keys merges; undo brings the merged fact back."""
    from memory.models import Link
    from memory.services.maintenance.passes import run_dream, undo_dream

    tl = Tideline(workspace)
    a = tl.add("I love listening to jazz", segment="preference", subject_key="music_taste")
    b = tl.add("I love listening to jazz", segment="preference", subject_key="favourite_genre")
    report = run_dream(workspace)
    assert report.counts["consolidated"] == 1
    lifecycles = {Fact.objects.get(memory_id=i).lifecycle for i in (a.id, b.id)}
    assert lifecycles == {"active", "archived"}
    added = Link.objects.filter(workspace=workspace).count()
    undo_dream(workspace, report.counts["run"])
    assert {Fact.objects.get(memory_id=i).lifecycle for i in (a.id, b.id)} == {"active"}
    assert Link.objects.filter(workspace=workspace).count() < added or added == 0


def test_dream_results_are_identical_on_two_runs_over_the_same_data(workspace):
    from memory.services.maintenance.passes import run_dream

    tl = Tideline(workspace)
    for text in ("I prefer tea.", "I prefer green tea.", "The routing service runs on Go.", "Lisbon is sunny."):
        tl.add(text, segment="knowledge")
    first = run_dream(workspace, dry_run=True).to_dict()
    second = run_dream(workspace, dry_run=True).to_dict()
    assert first == second


def test_graph_export_of_the_demo_opens_in_networkx_with_the_same_counts(tmp_path, capsys):
    import networkx as nx

    from memory.services.demo import load_demo

    load_demo()
    path = tmp_path / "demo.graphml"
    call_command("tideline", "export", "--workspace", "demo", "--format", "graphml", "--output", str(path), "--json")
    summary = json.loads(capsys.readouterr().out)
    graph = nx.read_graphml(path)
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (summary["nodes"], summary["edges"])
    assert summary["nodes"] > 200 and summary["edges"] > 20 and summary["clusters"] >= 1
    call_command("tideline", "export", "--workspace", "demo", "--format", "graph-json")
    exported = json.loads(capsys.readouterr().out)
    assert {"nodes", "edges", "clusters", "stats"} <= set(exported)


def test_undo_only_accepts_a_real_dream_run_id_and_never_replays_other_actors_events(workspace):
    """An actor such as `user:0123456789ab` ends like a run id; undo must not treat its events as a run."""
    from memory.services.errors import NotFoundError, RequestError
    from memory.services.maintenance.passes import undo_dream

    Tideline(workspace, actor="user:0123456789ab").add("I prefer tea in the morning.", segment="preference")
    for bogus in ("", "ab", "0123456789AB", "../0123456789ab"):
        with pytest.raises(RequestError, match="not a dream run id"):
            undo_dream(workspace, bogus)
    with pytest.raises(NotFoundError):
        undo_dream(workspace, "0123456789ab")
    assert Fact.objects.get(workspace=workspace).lifecycle == "active"


def test_gc_and_the_dream_report_their_progress_phase_by_phase(workspace, aged, monkeypatch, caplog):
    """Long passes at a million facts: each phase is reported, and the writing counts up to its total
    (the CLI shows it as a bar, the worker logs it)."""
    from memory.services.maintenance import passes as maintenance

    monkeypatch.setattr(maintenance, "BATCH", 1)  # one change per batch: every step is reported
    heard = []
    run_gc(workspace, progress=lambda phase, done, total: heard.append((phase, done, total)))
    assert [h[0] for h in heard[:2]] == ["reading facts", "planning"]
    applying = [(done, total) for phase, done, total in heard if phase == "applying changes"]
    assert applying == [(0, 2), (1, 2), (2, 2)]  # two changes (an archive, a prune), then done
    caplog.set_level("INFO", logger="memory.services.maintenance.passes")
    Tideline(workspace).add("I prefer tea in the morning.", segment="preference", subject_key="drink")
    report = tasks.run_dream(workspace.pk)
    logged = [r.getMessage() for r in caplog.records if r.name == "memory.services.maintenance.passes"]
    assert f"dream of {workspace.name}: reading facts" in logged and f"dream of {workspace.name}: planning" in logged
    assert report["counts"]["run"]
    # Planning reports each search: a million facts spend minutes there.
    searches = [m for m in logged if m.startswith(f"dream of {workspace.name}: finding ")]
    assert any("finding duplicates" in m for m in searches) and any("finding related facts 1 of 1" in m for m in searches)


def test_undoing_a_dream_restores_groups_larger_than_one_statement_can_carry(workspace, monkeypatch):
    """Undo writes every restored fact at once, grouped by the values it restores: at a million facts
    one group (the evicted facts, all back to active) was 650,000 ids, past PostgreSQL's 65,535
    parameters per statement. The groups go in chunks (made tiny here)."""
    from memory.services.maintenance import passes as maintenance
    from memory.services.maintenance.passes import run_dream, undo_dream

    tl = Tideline(workspace)
    from django.db import connection

    for k in range(25):  # one belief under 25 subject keys: 24 merge into one
        tl.add("I keep a jar of coffee beans on the shelf", segment="preference", subject_key=f"pantry_{k}")
    before = {f.memory_id: (f.lifecycle, f.valid_to) for f in Fact.objects.filter(workspace=workspace)}
    report = run_dream(workspace)
    assert report.counts["consolidated"] == 24
    monkeypatch.setattr(maintenance, "_IN_CHUNK", 2)
    monkeypatch.setattr(maintenance, "REINDEX_BATCH", 5)
    sizes = []

    def measure(execute, sql, params, many, context):
        if sql.startswith("UPDATE") and "memory_fact" in sql:
            sizes.append(len(params or ()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(measure):
        undo_dream(workspace, report.counts["run"])
    assert sizes and max(sizes) < 20  # 2 ids and the restored values, never all 24 ids at once
    # every fact back in the active set is in the near-duplicate index again (five at a time here)
    active = Fact.objects.filter(workspace=workspace, lifecycle="active")
    assert active.count() == 25 and not active.filter(terms__isnull=True).exists()
    assert {f.memory_id: (f.lifecycle, f.valid_to) for f in Fact.objects.filter(workspace=workspace)} == before
