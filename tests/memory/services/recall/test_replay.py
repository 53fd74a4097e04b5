"""Replay, "why was it visible, or not?": expired by policy, purged (from its receipt), outside the
caller's origin or clearance — in the service, the inspector and `tideline explain --fact --as-of`."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from memory.engine.facts import records as R
from memory.engine.lifecycle.expiry import DAY_MS, ExpiryRule
from memory.engine.recall.visibility import Caller
from memory.services.errors import NotFoundError
from memory.services.lifecycle.deletion import delete_facts
from memory.services.lifecycle.expiry import set_expiry_rules
from memory.services.mutation import mutate
from memory.services.recall.replay import replay
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
T0 = timezone.now() - timedelta(days=60)


@pytest.fixture
def facts(workspace):
    tl = Tideline(workspace)
    return {
        "chat": tl.add("We talked about the harbour ferry timetable on Tuesday.", segment="context", now=T0),
        "secret": tl.add("My passport number ends in 4471.", segment="identity", classification="PII", now=T0),
        "peer": tl.add("The harbour ferry leaves at nine from pier four.", segment="context", origin=PEER, now=T0),
    }


def _expire_context(workspace):
    rule = ExpiryRule(policy=3, name="chat logs", version=4, max_age_ms=30 * DAY_MS, segments=frozenset({"context"}))
    with mutate(workspace, actor="test") as m:
        set_expiry_rules(m, [rule])
        m.record("settings_changed", policy="chat logs")


def test_an_expired_fact_names_its_policy_and_was_visible_before(workspace, facts):
    _expire_context(workspace)
    later = replay(workspace, facts["chat"].id, T0 + timedelta(days=31))
    assert not later.visible
    assert later.reasons == ("it had expired under retention policy 'chat logs' (v4): older than 30 days since it was written",)
    assert replay(workspace, facts["chat"].id, T0 + timedelta(days=2)).visible


def test_a_caller_of_another_origin_or_a_lower_clearance_is_told_why(workspace, facts):
    moment = T0 + timedelta(days=1)
    assert replay(workspace, facts["secret"].id, moment, caller=Caller("owner", "PII")).visible
    low = replay(workspace, facts["secret"].id, moment, caller=Caller("owner", "INTERNAL"))
    assert low.reasons == ("it is classified PII, above the caller's clearance (INTERNAL)",)
    peer = replay(workspace, facts["chat"].id, moment, caller=Caller(PEER.key))
    assert not peer.visible and peer.reasons[0].startswith("it belongs to origin owner")


def test_a_purged_fact_answers_from_its_receipt(workspace, facts):
    with mutate(workspace, actor="user:ada") as m:
        delete_facts(m, [facts["peer"].id], reason="erasure request 9")
    answer = replay(workspace, facts["peer"].id, timezone.now() + timedelta(minutes=1))
    assert answer.purged and not answer.visible
    assert "it was purged" in answer.reasons[0] and "by ada: erasure request 9" in answer.reasons[0]
    assert answer.reasons[-1].startswith("receipt: the purged event at revision")
    with pytest.raises(NotFoundError):
        replay(workspace, "mem_never_was", timezone.now())


def test_the_inspector_answers_for_a_caller_and_for_a_purged_fact(client, owner, workspace, facts):
    client.force_login(owner)
    at = (T0 + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    url = f"/w/{workspace.name}/facts/{facts['secret'].id}/"
    page = client.get(url, {"at": at, "caller": "owner", "clearance": "PUBLIC"}).content.decode()
    assert "to that caller" in page and "above the caller&#x27;s clearance (PUBLIC)" in page
    assert "Yes: recall could have returned it" in client.get(url, {"at": at}).content.decode()
    bad = client.get(url, {"at": at, "caller": "slack"})
    assert bad.status_code == 200 and "Caller:" in bad.content.decode()
    with mutate(workspace, actor="user:ada") as m:
        delete_facts(m, [facts["chat"].id], reason="erasure")
    gone = client.get(f"/w/{workspace.name}/facts/{facts['chat'].id}/", {"at": timezone.now().strftime("%Y-%m-%dT%H:%M")})
    assert gone.status_code == 410 and "Purged" in gone.content.decode() and "harbour" not in gone.content.decode()
    assert client.get(f"/w/{workspace.name}/facts/mem_never_was/").status_code == 404


def test_explain_fact_as_of_replays_in_the_cli(workspace, facts, capsys):
    _expire_context(workspace)
    at = (T0 + timedelta(days=45)).isoformat()
    call_command("tideline", "explain", "harbour ferry", "--workspace", workspace.name, "--fact", facts["chat"].id,
                 "--as-of", at, "--json")  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["replay"]["visible"] is False and "chat logs" in out["replay"]["reasons"][0]
    call_command("tideline", "explain", "harbour ferry", "--workspace", workspace.name, "--fact", facts["chat"].id,
                 "--as-of", (T0 + timedelta(days=1)).isoformat())  # fmt: skip
    text = capsys.readouterr().out
    assert "was visible at" in text and "ranks #1" in text


def test_the_inspector_says_when_a_fact_has_expired(client, owner, workspace):
    old = Tideline(workspace).add("We met at the harbour café last spring.", segment="context",
                                  now=timezone.now() - timedelta(days=60))  # fmt: skip
    url = f"/w/{workspace.name}/facts/{old.id}/"
    client.force_login(owner)
    assert "Expired" not in client.get(url).content.decode()
    _expire_context(workspace)
    page = client.get(url).content.decode()
    assert "<h2>Expired</h2>" in page and "retention policy &#x27;chat logs&#x27; (v4)" in page
