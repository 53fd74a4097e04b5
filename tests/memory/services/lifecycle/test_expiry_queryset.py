"""`expired_q`, the queryset form of retention's expiry, leaves out exactly the facts recall's rules
(`memory.engine.lifecycle.expiry.expiring_rule`) have expired: the agent API's reads filter with it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.engine.facts import records as R
from memory.engine.lifecycle.expiry import DAY_MS, ExpiryRule
from memory.models import Fact
from memory.services.lifecycle.expiry import expired_by, expired_q
from memory.services.workspaces import create_workspace
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
ORIGINS = ("owner", "channel:slack/general/s1")
AGES = (timedelta(days=1), timedelta(days=29, hours=23), timedelta(days=30, hours=1), timedelta(days=90))
WORDS = ("harbour", "ferry", "timetable", "orchard", "violin", "glacier", "lantern", "meadow")


def _subset(values):
    return st.frozensets(st.sampled_from(values), max_size=2)


RULE = st.builds(
    lambda basis, kind, key, segments, classifications, tiers, trust, confirmed, permanent, policy: ExpiryRule(
        policy=policy, name=f"p{policy}", version=1, max_age_ms=30 * DAY_MS, basis=basis, origin_kind=kind,
        origin_key=R.parse_origin(key).key if key else "", segments=segments, classifications=classifications,
        tiers=tiers, trust=trust, keep_confirmed=confirmed, keep_permanent=permanent),
    st.sampled_from(("created", "last_used")), st.sampled_from(("", "owner", "channel")), st.sampled_from(("",) + ORIGINS),
    _subset(R.SEGMENTS), _subset(R.CLASSIFICATIONS), _subset(R.TIERS), st.sampled_from(("", "trusted", "untrusted")),
    st.booleans(), st.booleans(), st.integers(1, 9),
)  # fmt: skip
FACT = st.fixed_dictionaries({
    "origin": st.sampled_from(ORIGINS), "segment": st.sampled_from(R.SEGMENTS),
    "classification": st.sampled_from(R.CLASSIFICATIONS), "tier": st.sampled_from(R.TIERS),
    "source_type": st.sampled_from((None,) + R.SOURCE_TYPES), "status": st.sampled_from((None, "confirmed", "asserted")),
    "created": st.sampled_from(AGES), "used": st.sampled_from(AGES),
})  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rules=st.lists(RULE, min_size=1, max_size=2), facts=st.lists(FACT, min_size=1, max_size=len(WORDS)))
def test_expired_q_leaves_out_what_recall_leaves_out(db, rules, facts):
    workspace = create_workspace(f"e{Fact.objects.count()}x{len(facts)}{rules[0].policy}{timezone.now().microsecond}")
    tl, now = Tideline(workspace, actor="seed"), timezone.now()
    for i, spec in enumerate(facts):
        record = tl.add(f"The {WORDS[i]} note number {i} is kept here", segment="knowledge", origin=spec["origin"])
        Fact.objects.filter(workspace=workspace, memory_id=record.id).update(
            segment=spec["segment"], classification=spec["classification"], tier=spec["tier"],
            source_type=spec["source_type"], status=spec["status"], created_at=now - spec["created"],
            last_accessed_at=now - spec["used"])  # fmt: skip
    stored = list(Fact.objects.filter(workspace=workspace))
    by_engine = {f.memory_id for f in stored if expired_by(f, now=now, rules=tuple(rules)) is not None}
    by_query = set(Fact.objects.filter(workspace=workspace).filter(expired_q(rules, now)).values_list("memory_id", flat=True))
    assert by_query == by_engine
    kept = set(Fact.objects.filter(workspace=workspace).exclude(expired_q(rules, now)).values_list("memory_id", flat=True))
    assert kept == {f.memory_id for f in stored} - by_engine  # NULL columns never fall out of both


def test_no_rule_is_no_filter():
    assert expired_q((), timezone.now()) is None
