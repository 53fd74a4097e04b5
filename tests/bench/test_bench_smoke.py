"""A small smoke run of `tideline bench` (the real benchmark runs outside the suite)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_bench_runs_at_200_facts_and_reports_every_figure(capsys):
    call_command("tideline", "bench", "--sizes", "200", "--writes", "5", "--queries", "5", "--pages", "3",
                 "--inbox-workspaces", "3", "--inbox-items", "30", "--json")  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    # The home inbox for a person in many workspaces, timed once.
    inbox = report["inbox"]
    assert inbox["workspaces"] == 3 and inbox["open_items"] == 30 and inbox["count"] == 3
    assert inbox["p95_ms"] >= inbox["p50_ms"] > 0
    [row] = report["results"]
    assert row["size"] == 200
    assert row["write"]["count"] == 5 and row["write"]["p50_ms"] > 0
    assert row["recall"]["warm"]["count"] == 5 and row["recall"]["index_bytes_per_fact"] > 0
    assert row["recall"]["bm25s"]["count"] == 5
    # The bm25s reference runs in its own process: its peak is reported apart from the bench's.
    assert row["recall"]["bm25s_peak_rss_mb"] > 0 and report["peak_rss_mb"] > 0
    # tantivy on Tideline's terms, beside bm25s, in its own process too (the dev extra installs it).
    tantivy = row["recall"]["tantivy"]
    assert tantivy["count"] == 5 and tantivy["max_ms"] >= tantivy["p95_ms"] >= tantivy["p50_ms"] >= tantivy["min_ms"] > 0
    assert row["recall"]["ratio_to_tantivy"] == pytest.approx(row["recall"]["warm"]["p50_ms"] / tantivy["p50_ms"])
    assert row["recall"]["tantivy_peak_rss_mb"] > 0
    assert list(row["recall"]["resident_mb"]) == ["after seeding", "before", "cold build", "restart from the snapshot",
                                                  "warm recalls", "recalls after writes"]  # fmt: skip
    assert all(mb > 0 for mb in row["recall"]["resident_mb"].values())
    # Which phase set the peak: every phase's highest resident memory, none above the process's peak.
    assert list(row["peak_mb"]) == ["seeding", "cold build", "restart from the snapshot", "warm recalls",
                                    "recalls after writes", "writes", "console pages", "letting the index go", "dream", "gc",
                                    "graph export", "recall after the dream"]  # fmt: skip
    assert all(0 < mb <= report["peak_rss_mb"] + 1 for mb in row["peak_mb"].values())
    # The snapshot is written and a restarted process recalls from it (timed apart from the build).
    assert row["recall"]["snapshot_write_s"] > 0 and row["recall"]["restart_s"] > 0
    assert set(row["maintenance"]) == {"dream_s", "dream_phases_s", "dream_phases_peak_mb", "gc_s", "graph_export_s"}
    # Where the dream's time went, phase by phase: together they are the whole run.
    phases = row["maintenance"]["dream_phases_s"]
    assert "reading facts" in phases and "planning" in phases and all(s >= 0 for s in phases.values())
    assert sum(phases.values()) <= row["maintenance"]["dream_s"]
    # …and the memory each phase took, the dream's peak being the highest of them.
    phase_peaks = row["maintenance"]["dream_phases_peak_mb"]
    assert list(phase_peaks) == list(phases) and max(phase_peaks.values()) <= row["peak_mb"]["dream"]
    # The console's pages as an owner, the review queue (governance's, found through the app registry) with them.
    assert set(row["console"]) == {"overview", "facts list", "facts list, filtered, page 3", "facts list, next page",
                                   "fact inspector", "review queue", "review queue, page 200", "review queue, search"}
    assert all(page["count"] == 3 and page["p95_ms"] >= page["p50_ms"] > 0 for page in row["console"].values())
    assert row["recall_linked"]["count"] == 5 and row["recall_linked"]["links"] >= 0
    # …and the recall right after a write on the linked memory, where the sync reads the new links.
    assert row["recall_linked"]["after_write"]["count"] == 5 and row["recall_linked"]["after_write"]["p50_ms"] > 0


def test_bench_refuses_bad_sizes(capsys):
    with pytest.raises(SystemExit):
        call_command("tideline", "bench", "--sizes", "ten", "--json")
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"


def test_bench_refuses_negative_page_counts(capsys):
    with pytest.raises(SystemExit):
        call_command("tideline", "bench", "--sizes", "200", "--pages", "-1", "--json")
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"


def test_bench_says_when_tantivy_is_not_installed(monkeypatch, capsys):
    """tantivy is optional: without it the bench says so and reports everything else."""
    from bench.memory import tantivy_reference

    monkeypatch.setattr(tantivy_reference, "reference_in_child", lambda contents, queries: None)
    call_command("tideline", "bench", "--sizes", "50", "--writes", "0", "--queries", "3", "--pages", "0",
                 "--no-maintenance")  # fmt: skip
    out = capsys.readouterr().out
    assert "tantivy not installed" in out and "bm25s   p50" in out and "recall  p50" in out


def test_bench_sets_the_cold_build_beside_tantivys_build_from_the_same_texts(capsys):
    call_command("tideline", "bench", "--sizes", "60", "--writes", "0", "--queries", "3", "--pages", "0",
                 "--no-maintenance", "--json")  # fmt: skip
    recall = json.loads(capsys.readouterr().out)["results"][0]["recall"]
    assert recall["tantivy_build_s"] > 0
    assert recall["build_ratio_to_tantivy"] == pytest.approx(recall["cold_build_s"] / recall["tantivy_build_s"])
    call_command("tideline", "bench", "--sizes", "60", "--writes", "0", "--queries", "3", "--pages", "0",
                 "--no-maintenance")  # fmt: skip
    assert "tantivy build" in capsys.readouterr().out
