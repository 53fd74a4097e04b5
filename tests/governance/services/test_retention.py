"""Retention policies: each edit is a versioned event and re-compiles what recall enforces; a run
archives (or purges) what the policy takes, once, in one transaction with a `retention_run` event."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from governance.models import RetentionPolicy
from governance.services import retention
from memory.engine.facts import records as R
from memory.models import Fact, MemoryEvent
from memory.services.errors import NotFoundError, RequestError
from memory.services.lifecycle.expiry import expired_by, rules_of
from memory.services.recall import verbs as recall_service
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
NOW = timezone.now()
OLD = NOW - timedelta(days=40)
CHAT = {"name": "chat logs", "segments": ["context"], "max_age_seconds": "30d"}


@pytest.fixture
def facts(workspace):
    tl = Tideline(workspace)
    made = {
        "chat": tl.add("We talked about the harbour ferry timetable on Tuesday.", segment="context", now=OLD),
        "fresh": tl.add("The harbour ferry was late again this morning.", segment="context", now=NOW - timedelta(days=2)),
        "pref": tl.add("I prefer the harbour ferry over the bus.", segment="preference", now=OLD),
        "sure": tl.add("The harbour ferry pass costs forty euros a month.", segment="context", now=OLD),
        "pinned": tl.add("The harbour ferry office phone is 555-0100.", segment="context", tier="permanent", now=OLD),
        "peer": tl.add("The harbour ferry leaves at nine from pier four.", segment="context", origin=PEER, now=OLD),
    }
    Fact.objects.filter(memory_id=made["sure"].id).update(status="confirmed")
    return {name: record.id for name, record in made.items()}


def _lifecycles(facts):
    rows = dict(Fact.objects.filter(memory_id__in=facts.values()).values_list("memory_id", "lifecycle"))
    return {name: rows.get(memory_id, "gone") for name, memory_id in facts.items()}


def _recalled(workspace, origin="owner"):
    hits = recall_service.recall(workspace=workspace, query="harbour ferry", origin=origin, reinforce=False,
                                 now=NOW, embedder=None)  # fmt: skip
    return {h.id for h in hits}


def test_each_change_bumps_the_version_and_is_recorded_with_before_and_after(workspace):
    policy = retention.create(workspace, CHAT, actor="user:ada")
    assert policy.version == 1 and policy.updated_by == "user:ada"
    edited = retention.edit(workspace, "chat logs", {"max_age_seconds": "7d"}, actor="user:ada")
    disabled = retention.set_enabled(workspace, policy.pk, False, actor="user:bob")
    assert (edited.version, disabled.version) == (2, 3)
    assert retention.edit(workspace, policy.pk, {"max_age_seconds": "7d"}, actor="user:x").version == 3  # no change, no version
    retention.delete(workspace, "chat logs", actor="user:ada")
    events = list(MemoryEvent.objects.filter(workspace=workspace, kind="settings_changed").order_by("revision"))
    assert [(e.data["change"], e.data["version"], e.actor) for e in events] == [
        ("created", 1, "user:ada"), ("edited", 2, "user:ada"), ("disabled", 3, "user:bob"), ("deleted", 4, "user:ada")]
    assert events[1].data["before"] == {"max_age_seconds": 30 * 86400} and events[1].data["after"] == {"max_age_seconds": 7 * 86400}
    assert events[0].data["after"]["segments"] == ["context"] and events[0].data["policy"] == policy.pk
    assert not RetentionPolicy.objects.exists()


def test_the_enabled_policies_are_what_recall_enforces(workspace):
    a = retention.create(workspace, CHAT, actor="t")
    retention.create(workspace, {**CHAT, "name": "peers", "origin_kind": "channel", "enabled": False}, actor="t")
    workspace.refresh_from_db()
    assert [(r.name, r.version, r.max_age_ms) for r in rules_of(workspace)] == [("chat logs", 1, 30 * 86400 * 1000)]
    retention.edit(workspace, a.pk, {"max_age_seconds": "1h"}, actor="t")
    retention.set_enabled(workspace, "peers", True, actor="t")
    workspace.refresh_from_db()
    assert sorted((r.name, r.version) for r in rules_of(workspace)) == [("chat logs", 2), ("peers", 2)]
    retention.delete(workspace, a.pk, actor="t")
    workspace.refresh_from_db()
    assert [r.name for r in rules_of(workspace)] == ["peers"]


def test_a_fact_past_its_policy_is_not_recalled_before_any_run(workspace, facts):
    assert facts["chat"] in _recalled(workspace)
    retention.create(workspace, CHAT, actor="t")
    seen = _recalled(workspace)
    assert facts["chat"] not in seen and {facts["fresh"], facts["pref"], facts["sure"], facts["pinned"]} <= seen
    assert _lifecycles(facts)["chat"] == "active"  # hidden by recall, not yet archived
    rule = expired_by(Fact.objects.get(memory_id=facts["chat"]), now=NOW)
    assert rule.describe() == "retention policy 'chat logs' (v1): older than 30 days since it was written"
    retention.set_enabled(workspace, "chat logs", False, actor="t")
    assert facts["chat"] in _recalled(workspace)


@pytest.mark.parametrize("bad", [
    {"name": "all", "max_age_seconds": "30d"},  # no scope
    {**CHAT, "max_age_seconds": "-5d"},
    {**CHAT, "max_age_seconds": 0},
    {**CHAT, "segments": ["gossip"]},
])  # fmt: skip
def test_bad_input_is_refused_with_its_reason_and_changes_nothing(workspace, bad):
    revision = workspace.revision
    with pytest.raises(RequestError) as refused:
        retention.create(workspace, bad, actor="t")
    assert refused.value.kind == "validation" and "nothing was changed" in refused.value.message
    workspace.refresh_from_db()
    assert workspace.revision == revision and not RetentionPolicy.objects.exists() and workspace.expiry_rules == []


def test_every_fact_must_be_meant_and_then_stays_meant_across_edits(workspace):
    policy = retention.create(workspace, {"name": "all", "max_age_seconds": "1y"}, actor="t", every_fact=True)
    assert retention.edit(workspace, policy.pk, {"max_age_seconds": "2y"}, actor="t").version == 2
    scoped = retention.create(workspace, CHAT, actor="t")
    with pytest.raises(RequestError, match="no scope would expire every fact"):
        retention.edit(workspace, scoped.pk, {"segments": []}, actor="t")


def test_names_are_unique_and_unknown_policies_are_named(workspace):
    retention.create(workspace, CHAT, actor="t")
    with pytest.raises(RequestError, match="exists already"):
        retention.create(workspace, CHAT, actor="t")
    with pytest.raises(NotFoundError, match="no retention policy 'nope'"):
        retention.preview(workspace, "nope")


def test_the_preview_counts_what_a_run_takes_and_what_is_archived_already(workspace, facts):
    retention.create(workspace, CHAT, actor="t")
    Fact.objects.filter(memory_id=facts["peer"]).update(lifecycle="archived", archived_at=NOW)
    (preview,) = retention.preview(workspace, now=NOW)
    assert (preview.takes, preview.already_archived, preview.held) == (1, 1, 0)  # chat; the peer's is archived
    assert [f["memory_id"] for f in preview.facts] == [facts["chat"]]
    assert preview.scope == "facts of any origin, segment context" and preview.rule.startswith("older than 30 days")
    assert _lifecycles(facts)["chat"] == "active"


def test_a_run_archives_what_the_policy_takes_once_and_keeps_confirmed_and_permanent(workspace, facts):
    policy = retention.create(workspace, {**CHAT, "name": "any context"}, actor="t")
    (report,) = retention.apply(workspace, actor="user:ada", now=NOW)
    assert (report.archived, report.purged, report.version) == (2, 0, 1)  # chat and the peer's
    states = _lifecycles(facts)
    assert states == {"chat": "archived", "fresh": "active", "pref": "active", "sure": "active", "pinned": "active",
                      "peer": "archived"}  # fmt: skip
    run = MemoryEvent.objects.get(kind="retention_run")
    assert (run.data["policy"], run.data["version"], run.data["archived"], run.data["examined"]) == (policy.pk, 1, 2, 2)
    archived = MemoryEvent.objects.get(kind="archived", revision=run.revision)
    assert sorted(archived.fact_ids) == sorted([facts["chat"], facts["peer"]])
    assert archived.reason == "retention policy 'any context' (v1): older than 30 days since it was written"
    (again,) = retention.apply(workspace, actor="user:ada", now=NOW)
    assert (again.archived, again.examined) == (0, 2)
    assert MemoryEvent.objects.filter(kind="archived").count() == 1


def test_keeps_can_be_switched_off(workspace, facts):
    retention.create(workspace, {**CHAT, "keep_confirmed": False, "keep_permanent": False, "origin_kind": "owner"},
                     actor="t")  # fmt: skip
    retention.apply(workspace, actor="t", now=NOW)
    states = _lifecycles(facts)
    assert (states["sure"], states["pinned"], states["peer"]) == ("archived", "archived", "active")


def test_a_policy_scoped_to_one_origin_never_touches_another(workspace, facts):
    retention.create(workspace, {**CHAT, "origin_key": PEER.label()}, actor="t")  # a label, as the console shows it
    (report,) = retention.apply(workspace, actor="t", now=NOW)
    assert report.archived == 1 and _lifecycles(facts)["peer"] == "archived" and _lifecycles(facts)["chat"] == "active"
    assert RetentionPolicy.objects.get().origin_key == PEER.key


def test_last_used_counts_from_the_last_use(workspace, facts):
    retention.create(workspace, {**CHAT, "basis": "last_used"}, actor="t")
    Fact.objects.filter(memory_id=facts["chat"]).update(last_accessed_at=NOW - timedelta(days=1))
    retention.apply(workspace, actor="t", now=NOW)
    assert _lifecycles(facts)["chat"] == "active" and _lifecycles(facts)["peer"] == "archived"


def test_a_disabled_policy_is_not_applied_and_naming_it_is_refused(workspace, facts):
    retention.create(workspace, {**CHAT, "enabled": False}, actor="t")
    assert retention.apply(workspace, actor="t", now=NOW) == []
    with pytest.raises(RequestError, match="disabled"):
        retention.apply(workspace, "chat logs", actor="t", now=NOW)
    assert _lifecycles(facts)["chat"] == "active"


def test_a_typed_confirmation_must_match_a_fresh_preview(workspace, facts):
    retention.create(workspace, CHAT, actor="t")
    with pytest.raises(RequestError) as refused:
        retention.apply(workspace, "chat logs", actor="t", now=NOW, typed="5")
    assert refused.value.kind == "confirmation" and "(2)" in refused.value.message
    assert _lifecycles(facts)["chat"] == "active" and not MemoryEvent.objects.filter(kind="retention_run").exists()
    assert retention.apply(workspace, "chat logs", actor="t", now=NOW, typed="chat logs")[0].archived == 2


def test_the_ladder_preset_creates_one_versioned_policy_per_rung(workspace, facts):
    made = retention.create_ladder(workspace, {"short": "30 days", "long": "1 year", "permanent": "never"},
                                   by="tiers", actor="t")  # fmt: skip
    assert [(p.name, p.tiers, p.max_age_seconds) for p in made] == [
        ("ladder: tier short · 30 days", ["short"], 30 * 86400), ("ladder: tier long · 1 year", ["long"], 365 * 86400)]
    workspace.refresh_from_db()
    assert len(rules_of(workspace)) == 2
    assert MemoryEvent.objects.filter(kind="settings_changed").count() == 2


def test_apply_everywhere_runs_every_enabled_policy_of_every_workspace(workspace, other_workspace, facts):
    retention.create(workspace, CHAT, actor="t")
    retention.create(other_workspace, CHAT, actor="t")
    reports = retention.apply_everywhere(now=NOW)
    assert sorted(r["workspace"] for r in reports) == ["acme", "globex"]
    assert {r["archived"] for r in reports if r["workspace"] == "acme"} == {2}


def test_replay_of_an_archived_fact_names_the_policy_and_its_version(workspace, facts):
    from memory.services.recall.replay import replay

    retention.create(workspace, CHAT, actor="t")
    retention.apply(workspace, actor="user:ada", now=NOW)
    answer = replay(workspace, facts["chat"], NOW + timedelta(seconds=1))
    assert not answer.visible
    assert any("retention policy 'chat logs' (v1)" in reason for reason in answer.reasons), answer.reasons


# ---------------------------------------------------------------- purge (ENGINE-SPEC §6.2)


def test_behaviour_92_a_purge_run_removes_the_transient_note_but_keeps_the_confirmed_belief(workspace, facts):
    retention.create(workspace, {**CHAT, "max_age_seconds": 1, "action": "purge", "origin_kind": "owner"}, actor="t")
    (report,) = retention.apply(workspace, actor="user:ada", now=NOW)
    states = _lifecycles(facts)
    assert (states["chat"], states["fresh"], states["sure"], states["pinned"]) == ("gone", "gone", "active", "active")
    assert (report.purged, report.archived) == (2, 0)
    receipt = MemoryEvent.objects.get(kind="purged")
    assert sorted(receipt.fact_ids) == sorted([facts["chat"], facts["fresh"]]) and receipt.reason.startswith("retention policy")
    run = MemoryEvent.objects.get(kind="retention_run")
    assert (run.data["purged"], run.revision) == (2, receipt.revision)
    assert retention.apply(workspace, actor="t", now=NOW)[0].purged == 0


def test_behaviour_93_an_owner_scoped_purge_never_crosses_into_a_peers_derived_fact(workspace, facts):
    # The peer's fact was derived from the owner's old chat (a source pointer and a derived_from link).
    Fact.objects.filter(memory_id=facts["peer"]).update(source_pointers=[facts["chat"]])
    Tideline(workspace).add("Ferry notes, summarised from the chat.", segment="context", origin=PEER, now=OLD,
                            links=(("derived_from", facts["chat"]),))  # fmt: skip
    from memory.models import Link
    from memory.services.lifecycle.retract_and_purge import plan

    assert Link.objects.filter(kind="derived_from", to_fact__memory_id=facts["chat"]).exists()
    assert len(plan(workspace, [facts["chat"]]).purged) == 3  # an unrestricted purge would take both peer facts
    retention.create(workspace, {**CHAT, "action": "purge", "origin_kind": "owner"}, actor="t")
    (report,) = retention.apply(workspace, actor="t", now=NOW)
    assert report.purged == 1 and _lifecycles(facts)["chat"] == "gone"
    assert Fact.objects.filter(workspace=workspace, origin_key=PEER.key).count() == 2  # both peer facts survive


def test_a_purge_run_takes_archived_facts_too(workspace, facts):
    Fact.objects.filter(memory_id=facts["chat"]).update(lifecycle="archived", archived_at=OLD)
    retention.create(workspace, {**CHAT, "action": "purge"}, actor="t")
    (preview,) = retention.preview(workspace, now=NOW)
    assert preview.takes == 2  # the archived chat and the peer's note: a purge considers every lifecycle
    assert retention.apply(workspace, actor="t", now=NOW)[0].purged == 2


def test_an_origin_the_workspace_never_heard_of_is_refused(workspace, facts):
    with pytest.raises(RequestError, match="no facts from origin 'channel:slack/nope/x'"):
        retention.create(workspace, {**CHAT, "origin_key": "channel:slack/nope/x"}, actor="t")
    assert not RetentionPolicy.objects.exists()


def test_a_warm_index_elsewhere_follows_every_policy_change(workspace, facts, monkeypatch):
    """A second registry stands for another process whose index was warm before the policy existed."""
    from memory.services.recall.index import IndexRegistry

    monkeypatch.setattr(recall_service, "registry", IndexRegistry())
    assert facts["chat"] in _recalled(workspace)
    policy = retention.create(workspace, CHAT, actor="t")
    assert facts["chat"] not in _recalled(workspace)
    retention.edit(workspace, policy.pk, {"max_age_seconds": "60d"}, actor="t")  # now younger than the limit
    assert facts["chat"] in _recalled(workspace)
    retention.edit(workspace, policy.pk, {"max_age_seconds": "30d"}, actor="t")
    retention.delete(workspace, policy.pk, actor="t")
    assert facts["chat"] in _recalled(workspace)
