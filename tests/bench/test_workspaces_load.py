"""The many-workspaces bench: its shape, and one small run end to end over real HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.governance import workspaces_load as bench

ROOT = Path(__file__).resolve().parents[2]


def test_sizes_are_heavy_tailed_and_add_up():
    sizes = bench.sizes(10_000, 2_000_000, 50_000)
    assert len(sizes) == 10_000 and min(sizes) >= 20 and max(sizes) == 50_000
    assert abs(sum(sizes) - 2_000_000) / 2_000_000 < 0.02
    assert sizes.count(50_000) == 5  # one in 2,000
    assert 40 <= float(np.median(sizes)) <= 300  # most a few dozen to a few hundred facts


def test_zipf_popularity_sends_most_requests_to_few_workspaces():
    probabilities, holder = bench.popularity(10_000, 1.1)
    assert probabilities.sum() == pytest.approx(1.0)
    assert probabilities[:100].sum() > 0.6 and probabilities[0] > probabilities[1] > probabilities[-1] > 0
    assert sorted(holder.tolist()) == list(range(10_000))  # every workspace holds one rank


def test_a_small_run_seeds_serves_checks_isolation_and_skips_unchanged_workspaces(tmp_path):
    """The whole bench as a person runs it, on a scratch SQLite database of its own: seeding processes,
    two web processes and the load all share it."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'many.sqlite3'}", "TIDELINE_VAR_DIR": str(tmp_path),
           "DJANGO_SETTINGS_MODULE": "tideline_site.settings"}  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    done = subprocess.run([sys.executable, "-m", "bench.governance.workspaces_load", "--workspaces", "6", "--facts", "600",
                           "--largest", "200", "--seeders", "1", "--rate", "20", "--seconds", "2", "--writers", "2",
                           "--write-seconds", "1", "--passes", "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["workspaces"] == 6 and report["facts"] >= 6 * 20
    assert len(report["cold_1000_ms"]) == bench.COLD_COUNT
    recall = report["recall"]
    assert recall["errors"] == 0 and recall["ok"] == recall["sent"] == 40
    assert report["recall_after_start"]["ok"] == 40 and report["recall_after_start"]["isolation_violations"] == 0
    assert recall["isolation_checked"] > 0 and recall["isolation_violations"] == 0
    assert report["writes"]["created"] > 0 and report["writes"]["lost"] == 0
    assert all(0 < mb < 2048 for mb in report["peak_rss_mb"])
    builds = report["recall_after_start_index_builds"]
    # after the restart every workspace's index came back: built from the database, or restored from the
    # snapshot the seed's import left for the one origin large enough to have one
    assert builds["database"]["count"] + builds.get("snapshot", {}).get("count", 0) >= 6
    assert builds["database"]["seconds"] > 0
    for console in (report["recall_console"], report["writes"]["console"]):  # the person in the console meanwhile
        assert set(console["statuses"]) == {"200"}
        assert console["inbox"]["n"] >= 1 and console["dashboard"]["n"] >= 1 and console["inbox"]["p95_ms"] > 0
    passes = report["passes"]
    assert passes["gc_first"]["visited"] == 6 + bench.COLD_COUNT
    assert passes["gc_again"]["visited"] == 0 and passes["nightly_first"]["visited"] == 6 + bench.COLD_COUNT

    # what those workspaces' indexes take in resident memory (bench.memory.index_memory), on the same seed
    measured = subprocess.run([sys.executable, "-m", "bench.memory.index_memory", "--reuse", report["prefix"],
                               "--count", "4", "--smallest", "20", "--largest", "200", "--json"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert measured.returncode == 0, measured.stderr[-3000:]
    memory = json.loads(measured.stdout)
    assert memory["source"] == "database" and memory["indexes"] == 4 and memory["facts"] >= 4 * 20
    assert memory["estimate_mb"] > 0 and memory["resident_growth_mb"] >= 0
