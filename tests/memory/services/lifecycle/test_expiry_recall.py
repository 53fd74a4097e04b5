"""Retention enforced at recall time: a fact past its policy never surfaces, before any run, in this
process and in any other that holds the scope warm."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.engine.facts import records as R
from memory.engine.lifecycle.expiry import DAY_MS, ExpiryRule
from memory.models import Fact
from memory.services.lifecycle.expiry import expired_by, set_expiry_rules
from memory.services.mutation import mutate
from memory.services.recall import verbs as recall_service
from memory.services.recall.index import IndexRegistry
from memory.services.recall.verbs import RecallFilters
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
T0 = timezone.now()


@pytest.fixture
def facts(workspace):
    tl = Tideline(workspace)
    return {
        "chat": tl.add("We talked about the harbour ferry timetable on Tuesday.", segment="context", now=T0),
        "pref": tl.add("I prefer the harbour ferry over the bus.", segment="preference", now=T0),
        "peer": tl.add("The harbour ferry leaves at nine from pier four.", segment="context", origin=PEER, now=T0),
    }


def _rule(**over):
    values = dict(policy=7, name="chat logs", version=2, max_age_ms=30 * DAY_MS, segments=frozenset({"context"}))
    values.update(over)
    return ExpiryRule(**values)


def _set(workspace, *rules):
    with mutate(workspace, actor="test") as m:
        set_expiry_rules(m, rules)
        m.record("settings_changed", policy="test")


def _ids(workspace, origin="owner", days=31, **filters):
    hits = recall_service.recall(workspace=workspace, query="harbour ferry", origin=origin, reinforce=False,
                                 now=T0 + timedelta(days=days), embedder=None, filters=RecallFilters(**filters))  # fmt: skip
    return {h.id for h in hits}


def test_a_fact_past_its_policy_is_not_recalled_before_any_run(workspace, facts):
    assert _ids(workspace) == {facts["chat"].id, facts["pref"].id}
    _set(workspace, _rule())
    assert _ids(workspace) == {facts["pref"].id}  # the preference is outside the rule's scope
    assert _ids(workspace, days=29) == {facts["chat"].id, facts["pref"].id}  # not old enough yet
    assert Fact.objects.get(memory_id=facts["chat"].id).lifecycle == "active"  # nothing was archived


def test_context_never_packs_an_expired_fact(workspace, facts):
    _set(workspace, _rule())
    block = recall_service.context(workspace=workspace, query="harbour ferry", origin="owner", embedder=None,
                                   now=T0 + timedelta(days=31))  # fmt: skip
    assert "timetable" not in str(block) and "prefer the harbour ferry" in str(block)


def test_a_rule_for_one_origin_leaves_the_others_alone(workspace, facts):
    _set(workspace, _rule(origin_kind="channel"))
    assert _ids(workspace) == {facts["chat"].id, facts["pref"].id}
    assert _ids(workspace, origin=PEER) == set()


def test_removing_the_rules_brings_the_facts_back(workspace, facts):
    _set(workspace, _rule())
    assert facts["chat"].id not in _ids(workspace)
    _set(workspace)
    assert facts["chat"].id in _ids(workspace)


def test_point_in_time_recall_applies_the_rules_at_that_moment(workspace, facts):
    _set(workspace, _rule())
    as_of = T0 + timedelta(days=31)
    assert facts["chat"].id not in _ids(workspace, as_of=as_of)
    assert facts["chat"].id in _ids(workspace, as_of=T0 + timedelta(days=2))


def test_a_warm_index_in_another_process_sees_a_new_rule(workspace, facts, monkeypatch):
    """Two registries stand for two processes: the rule is written through neither's index."""
    second = IndexRegistry()
    monkeypatch.setattr(recall_service, "registry", second)
    assert facts["chat"].id in _ids(workspace)  # warm, without the rule
    _set(workspace, _rule())
    assert facts["chat"].id not in _ids(workspace)


def test_expired_by_names_the_rule(workspace, facts):
    _set(workspace, _rule())
    workspace.refresh_from_db()
    chat = Fact.objects.get(memory_id=facts["chat"].id)
    assert expired_by(chat, now=T0 + timedelta(days=31)).name == "chat logs"
    assert expired_by(chat, now=T0 + timedelta(days=3)) is None
    assert expired_by(Fact.objects.get(memory_id=facts["pref"].id), now=T0 + timedelta(days=300)) is None
