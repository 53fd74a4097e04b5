"""A tiny run of the review queue benchmark, so it keeps working (the real run is 100,000 facts)."""

from __future__ import annotations

import pytest

from bench.governance import queue
from governance.models import ReviewItem

pytestmark = pytest.mark.django_db


def test_queue_bench_runs_small_and_reports_every_figure():
    result = queue.run(200, 20, repeat=2, verdict_count=2, quiet=True)

    assert result["facts"] == 200 and sum(result["open_by_kind"].values()) == 20
    assert set(result["pages"]) == set(queue.PAGE_CASES)
    assert all(row["n"] == 2 and row["p95_ms"] > 0 for row in result["pages"].values())
    assert {label: row["n"] for label, row in result["verdicts"].items()} == {
        "decide (supersede)": 2,
        "undo": 2,
    }
    assert {"dream", "contradiction pass"} <= set(result["nightly"])
    assert result["nightly"]["contradiction pass"]["counts"]["opened"] >= 1
    # Every verdict was undone: the seeded open items are all still open, plus what the pass opened.
    workspace = result["workspace"]
    opened = result["nightly"]["contradiction pass"]["counts"]["opened"]
    assert ReviewItem.objects.filter(workspace__name=workspace, status="open").count() == 20 + opened


def test_queue_bench_refuses_sizes_it_cannot_seed(capsys):
    with pytest.raises(SystemExit):
        queue.main(["--facts", "100", "--items", "80"])
    assert "--items" in capsys.readouterr().err
