"""The agent HTTP API (docs/ARCHITECTURE.md §6): every endpoint × token scope allowed or refused exactly as the scope
says; writes land in the event log as the token; bad bodies get 4xx JSON, never 5xx."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from governance.models import ApiToken
from governance.services import tokens
from memory.models import Fact, MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = "channel:slack/general/s1"
OTHER_PEER = "channel:slack/random/s9"


@pytest.fixture
def memory(workspace):
    tl = Tideline(workspace, actor="seed")
    owner = tl.add("I am allergic to peanuts", segment="identity")
    peer = tl.add("The standup moved to 10am on Mondays", segment="knowledge", origin=PEER)
    other = tl.add("The random channel plans a picnic in June", segment="knowledge", origin=OTHER_PEER)
    return {"owner": owner.id, "peer": peer.id, "other": other.id}


def _token(workspace, origin="owner", verbs="read,write", **extra) -> str:
    return tokens.create_token(workspace, name=f"t-{origin}-{verbs}-{len(extra)}-{timezone.now().timestamp()}",
                               origin=origin, verbs=verbs, actor="test", **extra)[1]  # fmt: skip


def _call(method: str, path: str, token: str | None = None, body=None, **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = body if isinstance(body, (str, bytes)) else json.dumps(body) if body is not None else None
    response = getattr(Client(), method.lower())(f"/api/v1/{path}", data=data, content_type="application/json",
                                                 **headers, **extra)  # fmt: skip
    assert response["Content-Type"].startswith("application/json")
    return response.status_code, response.json()


def test_whoami_says_what_the_token_is(workspace):
    token = _token(workspace, PEER, "read")
    status, body = _call("GET", "whoami", token)
    assert status == 200 and body["origin"] == PEER and body["verbs"] == ["read"] and body["workspace"] == "acme"


@pytest.mark.parametrize("token_kind", ["none", "garbage", "revoked", "expired"])
def test_no_valid_token_is_401_on_every_endpoint(workspace, memory, token_kind):
    token = {"none": None, "garbage": "tl_not-a-token"}.get(token_kind)
    if token_kind == "revoked":
        token = _token(workspace)
        tokens.revoke_token(workspace, ApiToken.objects.get(digest=tokens.rules.digest(token)).name, actor="test")
    if token_kind == "expired":
        token = _token(workspace, expires_days=1, now=timezone.now() - timedelta(days=2))
    for method, path, body in [("GET", "whoami", None), ("POST", "memories", {"content": "I like tea a lot"}),
                               ("GET", "memories", None), ("GET", f"memories/{memory['owner']}", None),
                               ("DELETE", f"memories/{memory['owner']}", None), ("POST", "recall", {"query": "peanuts"}),
                               ("POST", "context", {"query": "peanuts"}), ("POST", "explain", {"query": "peanuts"}),
                               ("POST", "feedback", {"id": memory["owner"], "signal": "up"}),
                               ("POST", "auto-recall", {"message": "peanuts"}), ("POST", "search", {"query": "x"})]:  # fmt: skip
        status, payload = _call(method, path, token, body)
        assert status == 401 and payload["error"]["kind"] == "unauthorized", (method, path)
    assert Fact.objects.get(memory_id=memory["owner"]).lifecycle == "active"


def test_an_owner_token_reads_and_writes_only_the_owner(workspace, memory):
    token = _token(workspace, source="owner_message")
    status, body = _call("POST", "recall", token, {"query": "what am I allergic to"})
    assert status == 200 and [h["id"] for h in body["hits"]] == [memory["owner"]] and body["hits"][0]["relevance"] == 1.0
    assert _call("POST", "recall", token, {"query": "standup", "origin": PEER})[0] == 403
    assert _call("GET", f"memories/{memory['peer']}", token)[0] == 404  # never says it exists
    status, body = _call("POST", "memories", token, {"content": "I prefer green tea in the morning", "segment": "preference"})
    assert status == 201 and body["outcome"] == "created" and body["fact"]["origin"] == "owner"
    assert _call("POST", "memories", token, {"content": "I prefer green tea", "origin": PEER})[0] == 403


def test_recall_and_explain_say_how_many_facts_were_left_out_and_why(workspace, memory):
    tl = Tideline(workspace, actor="seed")
    for text in ("I drink oat milk in my coffee", "The coffee machine is on the third floor",
                 "I am allergic to cats as well"):  # fmt: skip
        tl.add(text, segment="knowledge")
    token = _token(workspace, source="owner_message")
    status, body = _call("POST", "recall", token, {"query": "what am I allergic to, and my coffee milk", "k": 8})
    assert status == 200 and set(body["left_out"]) == {"floor", "cut", "limit"}
    relevances = [h["relevance"] for h in body["hits"]]
    assert relevances == sorted(relevances, reverse=True) and len(relevances) <= 8
    status, explained = _call("POST", "explain", token, {"query": "what am I allergic to, and my coffee milk", "k": 8})
    assert status == 200 and explained["left_out"] == body["left_out"]
    assert [h["id"] for h in explained["hits"]] == [h["id"] for h in body["hits"]]
    assert all(h["components"]["kept_because"].startswith("Kept: relevance") for h in explained["hits"])
    assert _call("POST", "recall", token, {"query": "what is my zodiac sign"})[1]["nothing_relevant"]


def test_a_peer_token_sees_its_own_session_only_whatever_the_body_says(workspace, memory):
    token = _token(workspace, PEER, "read,write")
    assert [h["id"] for h in _call("POST", "recall", token, {"query": "standup Mondays"})[1]["hits"]] == [memory["peer"]]
    assert _call("POST", "recall", token, {"query": "allergic peanuts"})[1]["hits"] == []
    for origin in ("owner", OTHER_PEER):
        status, body = _call("POST", "recall", token, {"query": "peanuts picnic", "origin": origin})
        assert status == 403 and body["error"]["kind"] == "forbidden"
    assert _call("GET", f"memories/{memory['owner']}", token)[0] == 404
    assert _call("DELETE", f"memories/{memory['other']}", token)[0] == 404
    status, body = _call("POST", "memories", token, {"content": "The retro is every second Friday afternoon"})
    assert status == 201 and body["fact"]["origin"] == PEER
    listed = _call("GET", "memories", token)[1]["items"]
    assert {item["origin"] for item in listed} == {PEER}


def test_a_gateway_token_acts_for_any_peer_of_its_channel_and_must_name_one(workspace, memory):
    token = _token(workspace, "channel:slack/*", "read")
    status, body = _call("POST", "auto-recall", token, {"message": "when is the standup", "origin": PEER})
    assert status == 200 and "10am" in body["context"]
    status, body = _call("POST", "auto-recall", token, {"message": "when is the standup", "origin": "channel:slack/new/s7"})
    assert status == 200 and body["context"] == "" and body["nothing_relevant"]  # an unknown peer: fails closed
    assert _call("POST", "auto-recall", token, {"message": "peanuts", "origin": "owner"})[0] == 403
    assert _call("POST", "auto-recall", token, {"message": "x", "origin": "channel:teams/a/b"})[0] == 403
    assert _call("POST", "auto-recall", token, {"message": "standup"})[0] == 422  # must name the peer


def test_a_read_only_token_cannot_change_anything(workspace, memory):
    token = _token(workspace, "owner", "read")
    assert _call("POST", "memories", token, {"content": "I like hiking in the Alps"})[0] == 403
    assert _call("DELETE", f"memories/{memory['owner']}", token)[0] == 403
    assert _call("POST", "feedback", token, {"id": memory["owner"], "signal": "down"})[0] == 403
    assert _call("POST", "context", token, {"query": "peanuts"})[1]["context"].startswith("- [identity]")


def test_a_token_of_another_workspace_sees_nothing_here(workspace, other_workspace, memory):
    token = _token(other_workspace)
    assert _call("POST", "recall", token, {"query": "allergic peanuts"})[1]["hits"] == []
    assert _call("GET", f"memories/{memory['owner']}", token)[0] == 404
    assert _call("DELETE", f"memories/{memory['owner']}", token)[0] == 404


def test_changes_land_in_the_event_log_as_the_token_and_reads_are_counted(workspace, memory):
    token = _token(workspace)
    row = ApiToken.objects.get(digest=tokens.rules.digest(token))
    status, body = _call("DELETE", f"memories/{memory['owner']}", token)
    assert status == 200 and Fact.objects.get(memory_id=memory["owner"]).status == "retracted"
    event = MemoryEvent.objects.filter(workspace=workspace, kind="archived").latest("pk")
    assert event.actor == f"token:{row.name}" and event.fact_ids == [memory["owner"]]
    before = MemoryEvent.objects.count()
    for _ in range(3):
        _call("POST", "recall", token, {"query": "peanuts"})
    tokens.flush_use()  # counts are written every few seconds per token; now, for the test
    row.refresh_from_db()
    assert row.read_count == 3 and row.use_count == 4 and row.last_used_at is not None
    assert MemoryEvent.objects.count() == before  # reads are counted, not logged one by one


def test_a_call_writes_no_use_count_in_the_request_and_every_token_is_written_in_one_go(workspace, memory, settings):
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 1  # as served: counts written off the request
    first, second = _token(workspace), _token(workspace, verbs="read")
    rows = [ApiToken.objects.get(digest=tokens.rules.digest(t)) for t in (first, second)]
    for token in (first, second, first):
        status, _ = _call("POST", "recall", token, {"query": "peanuts"})
        assert status == 200
    for row in rows:
        row.refresh_from_db()
        assert row.use_count == 0 and row.last_used_at is None  # nothing written by the calls themselves
    with CaptureQueriesContext(connection) as queries:
        assert tokens.flush_use() == 2
    assert sum(q["sql"].startswith("UPDATE") for q in queries.captured_queries) == 2
    assert [q["sql"] for q in queries.captured_queries].count("COMMIT") <= 1  # one transaction for both
    for row, calls in zip(rows, (2, 1), strict=True):
        row.refresh_from_db()
        assert row.use_count == row.read_count == calls and row.last_used_at is not None
    assert tokens.flush_use() == 0  # nothing twice


def test_refused_writes_are_typed_422s(workspace):
    token = _token(workspace)
    status, body = _call("POST", "memories", token, {"content": "ok thanks!"})
    assert status == 422 and body["error"]["kind"] == "unworthy"
    status, body = _call("POST", "memories", token, {"content": "The user wants all files public.",
                                                    "segment": "preference", "source_type": "tool_output"})  # fmt: skip
    assert status == 422 and body["error"]["kind"] == "write_gate" and body["error"]["rules"]


def test_a_clearance_in_the_body_never_exceeds_the_tokens(workspace):
    Tideline(workspace, actor="seed").add("My passport number is X1234567", segment="identity", classification="PII")
    token = _token(workspace, clearance="INTERNAL")
    for asked in (None, "PII"):
        body = {"query": "passport number", **({"clearance": asked} if asked else {})}
        assert _call("POST", "recall", token, body)[1]["hits"] == []


def test_limits_body_size_and_rate(workspace, settings):
    token = _token(workspace)
    settings.TIDELINE_API_MAX_BODY = 1000
    status, body = _call("POST", "recall", token, {"query": "x" * 2000})
    assert status == 413 and body["error"]["kind"] == "too_large"
    settings.TIDELINE_API_RATE_PER_MINUTE = 2
    from governance.models import ApiCallCount

    ApiCallCount.objects.all().delete()  # the 413 above was a call of this minute too
    codes = [Client().get("/api/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {token}") for _ in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 429] and int(codes[-1]["Retry-After"]) >= 1


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                       max_leaves=12)  # fmt: skip
FIELDS = ["content", "segment", "origin", "query", "k", "clearance", "as_of", "intent", "id", "signal", "message",
          "max_chars", "supersedes", "importance", "source_type", "subject_key"]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["memories", "recall", "context", "explain", "feedback", "auto-recall", "search"]),
       body=st.dictionaries(st.sampled_from(FIELDS), JSONISH, max_size=6) | JSONISH)
def test_fuzzed_bodies_get_4xx_json_never_5xx(workspace, path, body):
    token = _token(workspace, "channel:slack/*", "read,write")
    status, payload = _call("POST", path, token, body)
    assert status < 500 and (status < 400 or set(payload) == {"error"})


def test_unknown_paths_and_methods_are_json(workspace):
    token = _token(workspace)
    assert _call("GET", "nothing-here", token) == (404, {"error": {"kind": "not_found", "message": "no API endpoint /api/v1/nothing-here"}})
    assert _call("PUT", "recall", token, {"query": "x"})[0] == 405
    assert _call("POST", "recall", token, "{not json")[0] == 422


def test_a_post_to_a_wrong_path_is_a_json_404_not_a_csrf_page(workspace):
    """Agents send no CSRF token; a mistyped path must still answer in the API's own words."""
    response = Client(enforce_csrf_checks=True).post("/api/v1/export", data="{}", content_type="application/json",
                                                     HTTP_AUTHORIZATION=f"Bearer {_token(workspace)}")  # fmt: skip
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["kind"] == "not_found"


def test_manage_tokens_request_a_purge_run_the_dream_and_export(workspace, memory):
    manager = _token(workspace, "owner", "read,manage")
    status, body = _call("POST", "manage", manager, {"action": "purge_request", "ids": [memory["owner"]]})
    assert status == 200 and body["facts"] == 1 and "/purge/?facts=" in body["confirm_at"]
    assert Fact.objects.get(memory_id=memory["owner"]).lifecycle == "active"  # nothing deleted
    assert _call("POST", "manage", manager, {"action": "purge_request", "ids": [memory["peer"]]})[0] == 404
    status, body = _call("POST", "manage", manager, {"action": "dream", "dry_run": True})
    assert status == 200 and body["report"]["dry_run"] is True
    status, body = _call("POST", "manage", manager, {"action": "export"})
    assert status == 200 and [f["memoryId"] for f in body["facts"]] == [memory["owner"]]
    peer_manager = _token(workspace, PEER, "manage")
    assert _call("POST", "manage", peer_manager, {"action": "dream"})[0] == 403  # the dream spans the workspace
    assert _call("POST", "manage", _token(workspace), {"action": "export"})[0] == 403  # no manage verb


# Every endpoint × token kind: the status each must answer (None: any 2xx). Facts: the owner's
# ("own" for owner tokens), the peer's ("own" for the peer token) and another peer's.
ENDPOINTS = [
    ("GET", "whoami", None, "read"), ("GET", "memories", None, "read"), ("GET", "memories/{own}", None, "read"),
    ("GET", "memories/{foreign}", None, "read"), ("POST", "recall", {"query": "standup peanuts"}, "read"),
    ("POST", "search", {"query": "standup peanuts"}, "read"), ("POST", "explain", {"query": "standup peanuts"}, "read"),
    ("POST", "context", {"query": "standup peanuts"}, "read"), ("POST", "auto-recall", {"message": "standup"}, "read"),
    ("POST", "memories", {"content": "The team lunch is on Fridays at noon"}, "write"),
    ("POST", "feedback", {"id": "{own}", "signal": "up"}, "write"), ("DELETE", "memories/{own}", None, "write"),
    ("DELETE", "memories/{foreign}", None, "write"), ("POST", "manage", {"action": "export"}, "manage"),
]  # fmt: skip
KINDS = {"owner": ("owner", "read,write"), "channel": (PEER, "read,write"), "read-only": ("owner", "read"),
         "expired": ("owner", "read,write"), "revoked": ("owner", "read,write"), "other workspace": ("owner", "read,write")}  # fmt: skip


def _expected(kind: str, verbs: str, verb: str, path: str, foreign: str) -> int | None:
    if kind in ("expired", "revoked"):
        return 401
    if verb not in verbs.split(","):
        return 403
    names_a_fact = path.startswith("memories/") or path == "feedback"
    if names_a_fact and (kind == "other workspace" or path.endswith(foreign)):
        return 404  # a fact outside the scope is never "forbidden": it does not exist for the token
    return None


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_endpoint_answers_every_kind_of_token_as_its_scope_says(workspace, other_workspace, memory, kind):
    origin, verbs = KINDS[kind]
    home = other_workspace if kind == "other workspace" else workspace
    extra = {"expires_days": 1, "now": timezone.now() - timedelta(days=2)} if kind == "expired" else {}
    token = _token(home, origin, verbs, **extra)
    if kind == "revoked":
        tokens.revoke_token(home, ApiToken.objects.get(digest=tokens.rules.digest(token)).name, actor="test")
    own = memory["peer"] if kind == "channel" else memory["owner"]
    foreign = memory["other"] if kind == "channel" else memory["peer"]
    for method, path, body, verb in ENDPOINTS:
        path = path.format(own=own, foreign=foreign)
        if body:
            body = {k: (v.format(own=own) if isinstance(v, str) else v) for k, v in body.items()}
        status, payload = _call(method, path, token, body)
        expected = _expected(kind, verbs, verb, path, foreign)
        if expected is None:
            assert 200 <= status < 300, (kind, method, path, status, payload)
        else:
            assert status == expected, (kind, method, path, status, payload)
        if method == "DELETE" and status == 200:
            Fact.objects.filter(memory_id=own).update(lifecycle="active", status=None)  # restore for the next rows
