"""Expiry rules as recall enforces them: scope, keeps, basis, strictness, and the vector form agreeing
with the one-fact form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry
from memory.engine.lifecycle.expiry import DAY_MS, ExpiryRule, FactAge

NOW = 1_800_000_000_000


def _fact(**over) -> FactAge:
    values = dict(origin_key="owner", segment="context", classification="INTERNAL", tier="short", source_type="user",
                  status=None, created_ms=NOW - 40 * DAY_MS, last_used_ms=NOW - DAY_MS)  # fmt: skip
    values.update(over)
    return FactAge(**values)


def _rule(**over) -> ExpiryRule:
    values = dict(policy=1, name="chat", version=1, max_age_ms=30 * DAY_MS)
    values.update(over)
    return ExpiryRule(**values)


def test_a_fact_older_than_the_limit_expires_and_a_younger_one_does_not():
    assert expiry.expiring_rule([_rule()], _fact(), NOW) is not None
    assert expiry.expiring_rule([_rule()], _fact(created_ms=NOW - 10 * DAY_MS), NOW) is None


def test_exactly_at_the_limit_is_not_yet_expired():
    fact = _fact(created_ms=NOW - 30 * DAY_MS)
    assert expiry.expiring_rule([_rule()], fact, NOW) is None
    assert expiry.expiring_rule([_rule()], fact, NOW + 1) is not None


def test_since_last_use_counts_from_the_last_recall():
    rule = _rule(basis="last_used")
    assert expiry.expiring_rule([rule], _fact(), NOW) is None  # written long ago, used yesterday
    assert expiry.expiring_rule([rule], _fact(last_used_ms=NOW - 31 * DAY_MS), NOW) is rule


@pytest.mark.parametrize(("rule", "fact"), [
    (_rule(origin_kind="channel"), _fact()),
    (_rule(origin_key="channel:slack/C1"), _fact()),
    (_rule(segments=frozenset({"preference"})), _fact()),
    (_rule(classifications=frozenset({"PII"})), _fact()),
    (_rule(tiers=frozenset({"long"})), _fact()),
    (_rule(trust="untrusted"), _fact()),
    (_rule(), _fact(status="confirmed")),
    (_rule(), _fact(tier="permanent")),
])  # fmt: skip
def test_facts_outside_the_scope_or_kept_never_expire(rule, fact):
    assert expiry.expiring_rule([rule], fact, NOW + 1000 * DAY_MS) is None


def test_keeps_can_be_switched_off():
    rule = _rule(keep_confirmed=False, keep_permanent=False)
    assert expiry.expiring_rule([rule], _fact(status="confirmed", tier="permanent"), NOW) is rule


def test_the_earliest_expiring_rule_is_named():
    late, early = _rule(policy=1, max_age_ms=35 * DAY_MS), _rule(policy=2, name="short", max_age_ms=DAY_MS)
    assert expiry.expiring_rule([late, early], _fact(), NOW) is early


def test_bad_rules_are_refused_and_stored_garbage_is_skipped():
    with pytest.raises(ValueError, match="positive"):
        _rule(max_age_ms=0)
    with pytest.raises(ValueError, match="unknown segments"):
        _rule(segments=frozenset({"gossip"}))
    good = _rule().to_dict()
    assert expiry.rules_from([good, {"policy": 1}, {**good, "basis": "moon"}]) == (_rule(),)


def test_round_trip_and_words():
    rule = _rule(segments=frozenset({"context", "project"}), basis="last_used")
    assert ExpiryRule.from_dict(rule.to_dict()) == rule
    assert rule.describe() == "retention policy 'chat' (v1): older than 30 days since it was last used"
    assert expiry.TTL_LADDER["1 hour"] == 3_600_000 and expiry.TTL_LADDER["never"] is None


_ages = st.integers(min_value=0, max_value=400) .map(lambda d: NOW - d * DAY_MS)
_facts = st.builds(
    FactAge, origin_key=st.just("channel:slack/C1"), segment=st.sampled_from(R.SEGMENTS),
    classification=st.sampled_from(R.CLASSIFICATIONS), tier=st.sampled_from(R.TIERS),
    source_type=st.sampled_from([None, "user", "tool_output", "extraction"]),
    status=st.sampled_from([None, "confirmed", "asserted"]), created_ms=_ages, last_used_ms=_ages,
)  # fmt: skip
_subsets = lambda values: st.frozensets(st.sampled_from(values), max_size=2)  # noqa: E731
_rules = st.builds(
    ExpiryRule, policy=st.integers(1, 5), name=st.just("p"), version=st.just(1),
    max_age_ms=st.integers(1, 200).map(lambda d: d * DAY_MS), basis=st.sampled_from(expiry.BASES),
    origin_kind=st.sampled_from(expiry.ORIGIN_KINDS), segments=_subsets(R.SEGMENTS),
    classifications=_subsets(R.CLASSIFICATIONS), tiers=_subsets(R.TIERS), trust=st.sampled_from(expiry.TRUSTS),
    keep_confirmed=st.booleans(), keep_permanent=st.booleans(),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(rules=st.lists(_rules, max_size=3), facts=st.lists(_facts, min_size=1, max_size=8))
def test_the_vector_form_agrees_with_the_one_fact_form(rules, facts):
    mask = expiry.expired_mask(
        rules, NOW, origin_key="channel:slack/C1", segments=[f.segment for f in facts],
        classifications=np.array([f.classification for f in facts]), tiers=np.array([f.tier for f in facts]),
        source_types=[f.source_type for f in facts], confirmed=np.array([f.status == "confirmed" for f in facts]),
        created_at=np.array([f.created_ms for f in facts], dtype=float),
        last_accessed_at=np.array([f.last_used_ms for f in facts], dtype=float),
    )  # fmt: skip
    assert list(mask) == [expiry.expiring_rule(rules, f, NOW) is not None for f in facts]
