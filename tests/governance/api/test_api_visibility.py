"""What an API token may read, on every read path (the HTTP API and the MCP tools): its scope, its
clearance, never a held write, never a fact retention expired, never a shredded origin's tombstone
(and never a 500 for one). One selector (`governance.api.visibility.readable_facts`) says what a
token may see; a property test holds every endpoint and tool to it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver.exceptions import ToolError

from governance.api import visibility
from governance.mcp_tools import build_server
from governance.services import tokens
from memory.engine.lifecycle.expiry import DAY_MS, ExpiryRule
from memory.models import Fact
from memory.services.keys.crypto_shred import shred_origin
from memory.services.lifecycle.expiry import set_expiry_rules
from memory.services.mutation import mutate
from memory.services.workspaces import create_workspace
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
ORIGINS = {"owner": "owner", "peer": "channel:slack/general/s1", "peer2": "channel:slack/random/s2",
           "other": "channel:teams/ops/s3"}  # fmt: skip
SCOPES = {"owner": ("owner",), ORIGINS["peer"]: ("peer",), "channel:slack/*": ("peer", "peer2")}
CLEARANCES = ("PUBLIC", "INTERNAL", "PII")
SENTENCES = (
    "The zebra at the city zoo was born in March", "Our zebra mascot costume is stored in the attic",
    "The zebra crossing outside the office was repainted", "Priya named her new bicycle Zebra last summer",
    "The zebra finch in the lobby sings every morning", "Zebra Technologies printers label the warehouse shelves",
    "The children's book about a zebra costs twelve dollars", "A zebra mussel survey runs on the lake in August",
    "The zebra print sofa arrives on Thursday afternoon", "Team Zebra won the quiz night at the pub",
)  # fmt: skip
RULE_AGE = 30 * DAY_MS
AGES = {"fresh": timedelta(hours=3), "old": timedelta(days=60), "borderline": timedelta(days=30, hours=1)}
AS_OF_BACK = timedelta(hours=2)  # a borderline fact had not expired then, but has now


CLIENT: list[Client] = []  # one client: each new one loads the middleware (whitenoise scans the static files)


def _call(method: str, path: str, token: str, body=None) -> tuple[int, dict]:
    if not CLIENT:
        CLIENT.append(Client())
    response = getattr(CLIENT[0], method.lower())(f"/api/v1/{path}", data=json.dumps(body) if body is not None else None,
                                                 content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
    assert response.status_code < 500, (method, path, response.content)
    return response.status_code, response.json()


SERVERS: dict[int, object] = {}


def _tool(grant, name: str, arguments: dict) -> dict | None:
    """The MCP tool's structured result, or None when it refused (a tool error, never a crash)."""
    server = SERVERS.get(id(grant))
    if server is None:
        SERVERS.clear()
        server = SERVERS[id(grant)] = build_server(lambda ctx: grant)
    try:
        result = async_to_sync(server.call_tool)(name, arguments)
    except ToolError as error:
        assert "internal" not in str(error), error
        return None
    if result.is_error:
        assert "internal" not in str(result.content), result.content
        return None
    return result.structured_content


def _token(workspace, scope: str, clearance: str) -> tuple[str, tokens.Grant]:
    secret = tokens.create_token(workspace, name=f"t{tokens.rules.new_secret()[3:12]}", origin=scope,
                                 verbs="read,write,manage", clearance=clearance, actor="test")[1]  # fmt: skip
    return secret, tokens.authenticate(secret)


def _seed(workspace, specs, *, shredded=(), rule_kind=None) -> dict[str, dict]:
    """Facts as `specs` say ((origin, classification, lifecycle, age), …), through the write path and
    then set in place; origins in `shredded` shredded; a 30-day retention rule when `rule_kind` is set."""
    tl, now, made = Tideline(workspace, actor="seed"), timezone.now(), {}
    for i, (origin, classification, lifecycle, age) in enumerate(specs):
        record = tl.add(SENTENCES[i], segment="knowledge", origin=ORIGINS[origin], now=now - AGES[age])
        changes = {"classification": classification, "lifecycle": lifecycle}
        changes.update({"archived": {"archived_at": now}, "pruned": {"pruned_at": now}, "held": {"held_at": now}}.get(lifecycle, {}))
        Fact.objects.filter(workspace=workspace, memory_id=record.id).update(**changes)
        made[record.id] = {"origin": origin, "classification": classification, "lifecycle": lifecycle, "age": age,
                           "content": SENTENCES[i]}  # fmt: skip
    for origin in shredded:
        if any(spec["origin"] == origin for spec in made.values()):
            shred_origin(workspace, _key(origin), actor="admin")
    if rule_kind is not None:
        with mutate(workspace, actor="test") as m:
            set_expiry_rules(m, [ExpiryRule(policy=1, name="a month", version=1, max_age_ms=RULE_AGE, origin_kind=rule_kind)])
            m.record("settings_changed", policy="a month")
    return made


def _key(origin: str) -> str:
    from memory.engine.facts import records as R

    return R.parse_origin(ORIGINS[origin]).key


def _expected(made, scope, clearance, *, shredded=(), rule_kind=None) -> set[str]:
    """The facts a token may read, worked out from the spec alone (the selector must agree)."""
    out = set()
    for memory_id, f in made.items():
        expired = rule_kind is not None and f["age"] != "fresh" and rule_kind in ("", "owner" if f["origin"] == "owner" else "channel")
        if (f["origin"] in SCOPES[scope] and CLEARANCES.index(f["classification"]) <= CLEARANCES.index(clearance)
                and f["lifecycle"] != "held" and f["origin"] not in shredded and not expired):
            out.add(memory_id)
    return out


def _check_every_read_path(workspace, made, scope, clearance, expected) -> None:
    secret, grant = _token(workspace, scope, clearance)
    assert {f.memory_id for f in visibility.readable_facts(grant)} == expected  # the one selector
    active = {i for i in expected if made[i]["lifecycle"] == "active"}
    hidden_text = [f["content"] for i, f in made.items() if i not in active]
    for memory_id in made:  # get, purge_request, MCP read_memory and purge_request: all or nothing
        status, body = _call("GET", f"memories/{memory_id}", secret)
        assert (status == 200 and body["id"] == memory_id) if memory_id in expected else status == 404
        assert (_call("POST", "manage", secret, {"action": "purge_request", "ids": [memory_id]})[0] == 200) == (memory_id in expected)
        read = _tool(grant, "read_memory", {"id": memory_id})
        assert (read is not None and read["id"] == memory_id) if memory_id in expected else read is None
        assert (_tool(grant, "manage_memory", {"action": "purge_request", "ids": [memory_id]}) is not None) == (memory_id in expected)
    assert _call("GET", "memories?lifecycle=held", secret)[0] == 422
    for name in SCOPES[scope]:
        origin, mine = ORIGINS[name], {i for i in expected if made[i]["origin"] == name}
        listed = set()
        for lifecycle in ("active", "archived", "pruned"):
            status, body = _call("GET", f"memories?origin={origin}&lifecycle={lifecycle}", secret)
            assert status == 200 and all(item["lifecycle"] == lifecycle for item in body["items"])
            listed |= {item["id"] for item in body["items"]}
        assert listed == mine  # list agrees with get
        status, body = _call("POST", "manage", secret, {"action": "export", "origin": origin})
        assert status == 200 and {record["memoryId"] for record in body["facts"]} == mine  # and with export
        mcp_list = _tool(grant, "read_memory", {"origin": origin})
        assert {item["id"] for item in mcp_list["items"]} == mine & active
        mine_active = mine & active
        for path in ("recall", "search", "explain"):
            for extra in ({}, {"as_of": (timezone.now() - AS_OF_BACK).isoformat()}):
                status, body = _call("POST", path, secret, {"query": "zebra", "origin": origin, "k": 50, **extra})
                # As of an earlier time a fact archived since was still active: any fact the token reads.
                assert status == 200 and {hit["id"] for hit in body["hits"]} <= (mine if extra else mine_active), (path, extra)
        for path, body in (("context", {"query": "zebra", "origin": origin}), ("auto-recall", {"message": "zebra", "origin": origin})):
            status, answer = _call("POST", path, secret, body)
            assert status == 200 and not any(text in answer["context"] for text in hidden_text), path
        hits = _tool(grant, "recall_memory", {"query": "zebra", "origin": origin, "k": 50})["hits"]
        assert {hit["id"] for hit in hits} <= mine_active
        block = _tool(grant, "recall_memory", {"query": "zebra", "origin": origin, "mode": "context"})["context"]
        assert not any(text in block for text in hidden_text)
        exported = _tool(grant, "manage_memory", {"action": "export"})
        if scope == "channel:slack/*":
            assert exported is None  # a gateway names its peer: MCP's export has no origin to name
        else:
            assert {record["memoryId"] for record in exported["facts"]} == mine


FACT = st.tuples(st.sampled_from(sorted(ORIGINS)), st.sampled_from(CLEARANCES),
                 st.sampled_from(("active", "active", "archived", "pruned", "held")), st.sampled_from(sorted(AGES)))  # fmt: skip


# Each example seeds a workspace and calls every read path: no shrinking (a failure shows its example as drawn).
@settings(max_examples=8, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(specs=st.lists(FACT, min_size=1, max_size=len(SENTENCES)), shredded=st.sets(st.sampled_from(sorted(ORIGINS)), max_size=1),
       rule_kind=st.sampled_from((None, "", "owner", "channel")),
       token_specs=st.lists(st.tuples(st.sampled_from(sorted(SCOPES)), st.sampled_from(CLEARANCES)), min_size=1, max_size=2))  # fmt: skip
def test_no_read_path_returns_a_fact_the_selector_leaves_out(db, specs, shredded, rule_kind, token_specs):
    workspace = create_workspace(f"v{tokens.rules.new_secret()[3:15].lower().replace('-', 'x').replace('_', 'y')}")
    made = _seed(workspace, specs, shredded=shredded, rule_kind=rule_kind)
    for scope, clearance in token_specs:
        expected = _expected(made, scope, clearance, shredded=shredded, rule_kind=rule_kind)
        _check_every_read_path(workspace, made, scope, clearance, expected)


# ---------------------------------------------------------------- the cases the probe found, one by one


@pytest.fixture
def mixed(workspace):
    """An owner's facts at each classification, and a peer's."""
    made = _seed(workspace, [("owner", "PUBLIC", "active", "fresh"), ("owner", "INTERNAL", "active", "fresh"),
                             ("owner", "PII", "active", "fresh"), ("peer", "PUBLIC", "active", "fresh")])  # fmt: skip
    return {f["classification"] if f["origin"] == "owner" else "peer": i for i, f in made.items()}


def test_a_public_manage_token_exports_only_public_facts(workspace, mixed):
    secret, grant = _token(workspace, "owner", "PUBLIC")
    assert _call("GET", f"memories/{mixed['PII']}", secret)[0] == 404
    status, body = _call("POST", "manage", secret, {"action": "export"})
    assert status == 200 and [record["memoryId"] for record in body["facts"]] == [mixed["PUBLIC"]]
    assert [record["memoryId"] for record in _tool(grant, "manage_memory", {"action": "export"})["facts"]] == [mixed["PUBLIC"]]
    status, body = _call("POST", "recall", secret, {"query": "zebra", "k": 50})
    assert [hit["id"] for hit in body["hits"]] == [mixed["PUBLIC"]]


def test_a_peer_never_reads_its_own_held_write(workspace):
    secret, grant = _token(workspace, ORIGINS["peer"], "PII")
    status, body = _call("POST", "memories", secret, {"content": "My passport number is X1234567", "classification": "PII",
                                                      "segment": "knowledge"})  # fmt: skip
    assert status == 200 and body["outcome"] == "held", body
    assert _call("GET", f"memories/{body['id']}", secret)[0] == 404
    status, answer = _call("GET", "memories?lifecycle=held", secret)
    assert status == 422 and "review" in answer["error"]["message"]
    assert _call("POST", "manage", secret, {"action": "export"})[1]["facts"] == []
    assert _tool(grant, "read_memory", {"id": body["id"]}) is None


def test_a_fact_past_its_retention_is_not_served_before_the_policy_runs(workspace):
    made = _seed(workspace, [("owner", "PUBLIC", "active", "old"), ("owner", "PUBLIC", "active", "borderline"),
                             ("owner", "PUBLIC", "active", "fresh")], rule_kind="")  # fmt: skip
    fresh = next(i for i, f in made.items() if f["age"] == "fresh")
    secret, _ = _token(workspace, "owner", "PII")
    for memory_id, f in made.items():
        assert Fact.objects.get(memory_id=memory_id).lifecycle == "active"  # no run has archived anything
        assert _call("GET", f"memories/{memory_id}", secret)[0] == (200 if f["age"] == "fresh" else 404)
    assert [item["id"] for item in _call("GET", "memories", secret)[1]["items"]] == [fresh]
    assert [record["memoryId"] for record in _call("POST", "manage", secret, {"action": "export"})[1]["facts"]] == [fresh]
    # As memory stood two hours ago the borderline fact was within its month; it has expired since.
    as_of = (timezone.now() - AS_OF_BACK).isoformat()
    hits = _call("POST", "recall", secret, {"query": "zebra", "k": 50, "as_of": as_of})[1]["hits"]
    assert {hit["id"] for hit in hits} == {fresh}


def test_a_shredded_origin_answers_not_found_never_500(workspace):
    made = _seed(workspace, [("peer", "PUBLIC", "active", "fresh"), ("peer", "PUBLIC", "archived", "fresh")],
                 shredded={"peer"})  # fmt: skip
    owner_secret, _ = _token(workspace, "owner", "PII")
    gateway_secret, _ = _token(workspace, "channel:slack/*", "PII")
    secret, grant = _token(workspace, ORIGINS["peer"], "PII")
    for memory_id in made:
        status, body = _call("GET", f"memories/{memory_id}", secret)
        assert status == 404 and body["error"]["kind"] == "not_found"
        assert _tool(grant, "read_memory", {"id": memory_id}) is None
    for token in (secret, gateway_secret):
        for lifecycle in ("active", "archived"):
            assert _call("GET", f"memories?origin={ORIGINS['peer']}&lifecycle={lifecycle}", token) == (200, {"items": [], "next_cursor": None})
    assert _tool(grant, "read_memory", {})["items"] == []
    assert _call("GET", f"memories?origin={ORIGINS['peer']}", owner_secret)[0] == 403


def test_a_tombstone_without_its_receipt_is_still_never_a_500(workspace):
    """A shred stopped after the key went and before its `shredded` event: the content cannot be read."""
    from memory import sealing

    made = _seed(workspace, [("peer", "PUBLIC", "active", "fresh")])
    sealing.keyring.destroy(workspace.pk, _key("peer"))
    secret, grant = _token(workspace, ORIGINS["peer"], "PII")
    (memory_id,) = made
    assert _call("GET", f"memories/{memory_id}", secret)[0] == 404
    assert _call("GET", "memories", secret) == (200, {"items": [], "next_cursor": None})
    assert _call("POST", "manage", secret, {"action": "export"})[1]["facts"] == []
    assert _tool(grant, "read_memory", {"id": memory_id}) is None


def test_an_origin_whose_shred_was_begun_is_no_longer_read(workspace):
    """A shred whose process stopped after committing its intent, before the key went: already decided."""
    from memory.models import ShredIntent

    made = _seed(workspace, [("peer", "PUBLIC", "active", "fresh")])
    secret, _ = _token(workspace, ORIGINS["peer"], "PII")
    (memory_id,) = made
    assert _call("GET", f"memories/{memory_id}", secret)[0] == 200
    ShredIntent.objects.create(workspace=workspace, origin_key=_key("peer"), origin_label=ORIGINS["peer"], actor="admin")
    assert _call("GET", f"memories/{memory_id}", secret)[0] == 404
    assert _call("GET", "memories", secret)[1]["items"] == []
    assert _call("POST", "manage", secret, {"action": "export"})[1]["facts"] == []


def test_a_shred_receipt_without_an_origin_hides_nothing_else(workspace):
    """`origin_key NOT IN (…, NULL)` is never true: a receipt that names no origin must not hide every fact."""
    made = _seed(workspace, [("owner", "PUBLIC", "active", "fresh")])
    with mutate(workspace, actor="test") as m:
        m.record("shredded", reason="a receipt of an older format")
    secret, _ = _token(workspace, "owner", "PII")
    assert [item["id"] for item in _call("GET", "memories", secret)[1]["items"]] == list(made)
