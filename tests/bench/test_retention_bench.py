"""A tiny run of the retention benchmark, so it keeps working (the real run is 100,000 facts)."""

from __future__ import annotations

import pytest

from bench.governance import retention

pytestmark = pytest.mark.django_db


def test_retention_bench_runs_small_and_takes_the_old_half_once():
    result = retention.run(200, 180, "archive", quiet=True)
    assert result["taken"] == result["preview_takes"] == result["examined"]
    assert 90 <= result["taken"] <= 112  # facts span 400 days: those older than 180 days
    assert result["second_run_taken"] == 0 and result["run_seconds"] >= 0
