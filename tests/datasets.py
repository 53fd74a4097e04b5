"""Where the suite finds its research data.

The original engine's gold sets are small and MIT-licensed: a copy lives in the repository
(`tests/data/tideline-gold/`, provenance in its README) so `make test` passes on any clone. The
LoCoMo dev conversations are research data that is never shipped: tests that need them skip, with
the reason, when `../shared/data/locomo-dev` is not beside the checkout; CI (`.ci/run`) refuses to
run without it, so there they never skip silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GOLD_DIR = REPO / "tests/data/tideline-gold"
LOCOMO_DIR = REPO.parent / "shared/data/locomo-dev"

requires_locomo = pytest.mark.skipif(
    not any(LOCOMO_DIR.glob("*.json")),
    reason=f"LoCoMo dev conversations not found at {LOCOMO_DIR} (research data, not in the repository)",
)
