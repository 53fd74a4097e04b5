"""The fused lane scores only the rows that can reach the top (fusion._scored): the rows it keeps, and
every number about them, must equal a full pass over every eligible row."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.facts.records import Origin
from memory.engine.recall import fusion
from memory.engine.recall.core import FactColumns, FactRow
from memory.engine.recall.fusion import _Scored, _scored, recall_fused

NOW = 1_750_000_000_000
DAY = 86_400_000
SOURCES = ["owner_message", "web_page", "tool_result", "agent_inference", None, "legacy-kind"]


def full_pass(cols, rows, blended, limit):
    """The rule without pruning: score every row, keep those at or above the max(4·limit, 64)-th score."""
    every = _Scored.of(cols, np.arange(rows.size), rows, blended, NOW)
    keep = max(4 * limit, 64)
    if rows.size <= keep:
        return every
    edge = np.partition(every.score, rows.size - keep)[rows.size - keep]
    return every.select(np.flatnonzero(every.score >= edge))


facts = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.1, 0.5, 0.8, 1.0]),  # importance (few values: many ties)
        st.sampled_from([0, 0, 0, 1, 5, 30, 400]),  # days since last access (mostly fresh: a tight bound)
        st.integers(0, 30),  # access count
        st.booleans(),  # permanent tier
        st.sampled_from([None, 0.0, 0.3, 0.9, 1.0, 1.5]),  # confidence
        st.sampled_from(SOURCES),
        st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0.0, 1.0),  # the row's blend (ties, and not)
    ),
    min_size=1,
    max_size=600,
)


@settings(max_examples=150, deadline=None)
@given(facts | facts.filter(lambda rows: len(rows) > 130), st.integers(1, 40))
def test_pruned_scoring_keeps_exactly_the_rows_a_full_pass_keeps(rows, limit):
    cols = FactColumns.from_rows([
        FactRow(f"m{i}", f"fact {i}", created_at=NOW - 500 * DAY, importance=imp, last_accessed_at=NOW - days * DAY,
                access_count=uses, tier="permanent" if permanent else "context", confidence=conf, source_type=src)
        for i, (imp, days, uses, permanent, conf, src, _) in enumerate(rows)
    ])  # fmt: skip
    eligible = np.arange(len(rows))
    blended = np.array([row[6] for row in rows])
    with pytest.MonkeyPatch.context() as patch:  # a small first batch: pruning on a few hundred rows
        patch.setattr(fusion, "FIRST_BATCH", 1)
        pruned = _scored(cols, eligible, blended, NOW, limit, 1.0)
    full = full_pass(cols, eligible, blended, limit)
    assert pruned.rows.tolist() == full.rows.tolist()
    assert pruned.at.tolist() == full.at.tolist()
    for name in ("score", "effective", "modulator", "weight", "conf", "trust"):
        assert getattr(pruned, name).tolist() == getattr(full, name).tolist(), name


def test_rows_with_a_high_blend_but_low_trust_do_not_hide_better_rows_below_them():
    """A thousand rows blend best but carry half confidence (score 0.5); a thousand blend a little
    lower at full trust (score ≈ 0.6). The first batch holds all the former and only some of the
    latter: scoring must go on until no row left out could beat the edge."""
    weak = [FactRow(f"w{i}", "x", created_at=NOW, importance=1.0, confidence=0.5, source_type="owner_message")
            for i in range(1000)]  # fmt: skip
    strong = [FactRow(f"s{i}", "x", created_at=NOW, importance=1.0, source_type="owner_message") for i in range(1000)]
    cols = FactColumns.from_rows(weak + strong)
    blended = np.concatenate([np.ones(1000), 0.6 - 1e-5 * np.arange(1000)])
    pruned = _scored(cols, np.arange(2000), blended, NOW, 10, 1.0)
    full = full_pass(cols, np.arange(2000), blended, 10)
    assert pruned.rows.tolist() == full.rows.tolist() == list(range(1000, 1064))


def test_a_query_matching_most_facts_returns_what_scoring_them_all_returns(monkeypatch):
    """End to end: a common word makes thousands of facts eligible; the hits and every component
    equal those of a lane that scores every one of them."""
    rng = np.random.default_rng(5)
    words = ["coffee", "garden", "river", "piano", "bicycle", "lantern", "market", "harbour"]
    rows = [
        FactRow(f"m{i}", f"the {words[i % 8]} near the {words[(i * 3) % 8]} {words[i % 7]} {i}", created_at=NOW - int(rng.integers(0, 3)) * DAY,
                importance=float(rng.choice([0.3, 0.5, 0.8])), access_count=int(rng.integers(0, 5)),
                source_type=str(rng.choice(["owner_message", "web_page", "agent_inference"])))
        for i in range(3000)
    ]  # fmt: skip
    cols = FactColumns.from_rows(rows)
    pruned = recall_fused(cols, "the coffee garden", NOW, Origin.owner(), limit=10)
    monkeypatch.setattr(fusion, "_scored", lambda c, r, b, now, limit, lam: full_pass(c, r, b, limit))
    unpruned = recall_fused(cols, "the coffee garden", NOW, Origin.owner(), limit=10)
    assert len(pruned) == 10
    assert [(h.memory_id, h.score, h.components) for h in pruned] == [
        (h.memory_id, h.score, h.components) for h in unpruned
    ]
