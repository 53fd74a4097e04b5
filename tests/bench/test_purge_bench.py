"""A tiny run of the purge benchmark, so it keeps working (the real run is 10,000 facts)."""

from __future__ import annotations

import pytest

from bench.governance import purge

pytestmark = pytest.mark.django_db


def test_purge_bench_runs_small_cascades_half_the_derived_facts_and_empties_recall():
    result = purge.run(100, 10, quiet=True)
    assert result["facts"] == 100 + result["cascaded"] and result["cascaded"] == 4  # owner facts 2, 4, 6, 8
    assert result["links"] == 20 and result["review_items_closed"] == 10
    assert result["hits_after"] == 0 and result["preview_seconds"] >= 0
