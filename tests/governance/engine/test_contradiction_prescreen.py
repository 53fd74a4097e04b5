"""The array prescreen in front of the detector's per-pair test only saves time: same candidates."""

from __future__ import annotations

from bench.governance.contradictions import load_pairs
from governance.engine import contradiction_rules as rules
from governance.engine.contradiction_rules import ClaimRecord, find_candidates


def _records() -> list[ClaimRecord]:
    """Every sentence of the labelled set as a fact of one origin, some sharing a subject key."""
    records = []
    for n, pair in enumerate(load_pairs()):
        for side in ("a", "b"):
            subject = pair.get(f"{side}_subject", "") or (f"slot_{n % 7}" if n % 5 == 0 else "")
            records.append(ClaimRecord(id=f"mem_{n:04d}_{side}", content=pair[side], subject_key=subject,
                                      created_ms=len(records)))  # fmt: skip
    return records


def test_the_prescreen_keeps_every_pair_the_exact_test_keeps(monkeypatch):
    records = _records()
    monkeypatch.setattr(rules, "PRESCREEN_MIN_PAIRS", 10**9)
    exact = find_candidates(records).candidates
    monkeypatch.setattr(rules, "PRESCREEN_MIN_PAIRS", 0)
    monkeypatch.setattr(rules, "PRESCREEN_WIDTH", 6)  # some facts too long to screen: they must pass
    screened = find_candidates(records).candidates
    assert screened == exact and len(exact) > 50
