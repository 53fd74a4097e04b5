"""A token carries the trust of what speaks through it (its source type): a write that names no
source type is stored as the token's (new tokens: the untrusted tool_output), a write may name a less
trusted source type but never a more trusted one, and `legacy` (none, trusted) is never an agent's."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from governance.engine import tokens as rules
from governance.models import ApiToken
from governance.services import tokens
from memory.engine.facts import records as R
from memory.models import Fact, MemoryEvent

PEER = "channel:slack/general/s1"
TRUSTED = [s for s in R.SOURCE_TYPES if not R.is_untrusted_source(s)]
UNTRUSTED = [s for s in R.SOURCE_TYPES if R.is_untrusted_source(s)]


@given(st.sampled_from(R.SOURCE_TYPES), st.sampled_from(R.SOURCE_TYPES))
def test_a_write_may_lower_its_tokens_trust_and_never_raise_it(token_source, asked):
    try:
        stored = rules.acting_source(token_source, asked)
    except rules.SourceAboveToken:
        assert R.trust_rank(asked) > R.trust_rank(token_source)
        return
    assert stored == asked and R.trust_rank(stored) <= R.trust_rank(token_source)
    assert R.is_untrusted_source(stored) or not R.is_untrusted_source(token_source)  # never untrusted → trusted
    assert R.is_untrusted_source(stored) != R.is_untrusted_source(token_source) or (
        R.RECALL_TRUST[stored] <= R.RECALL_TRUST[token_source])  # fmt: skip


def test_the_tokens_source_is_the_default_and_legacy_is_never_one():
    assert rules.parse_source(None) == "tool_output" and rules.acting_source("channel_message", None) == "channel_message"
    for untrusted in UNTRUSTED:
        for trusted in TRUSTED:
            with pytest.raises(rules.SourceAboveToken):
                rules.acting_source(untrusted, trusted)
    for bad in ("legacy", "owner", 3):
        with pytest.raises(rules.TokenRuleError):
            rules.acting_source("owner_message", bad)
    with pytest.raises(rules.TokenRuleError, match="old records only"):
        rules.parse_source("legacy")


def _post(token, path, body):
    response = Client().post(f"/api/v1/{path}", data=json.dumps(body), content_type="application/json",
                             HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
    return response.status_code, response.json()


def _secret(workspace, name, origin="owner", **extra):
    return tokens.create_token(workspace, name=name, origin=origin, verbs="read,write", actor="t", **extra)[1]


@pytest.mark.django_db
def test_a_new_tokens_writes_are_untrusted_unless_it_was_made_trusted(workspace):
    plain = _secret(workspace, "pipeline")
    who = Client().get("/api/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {plain}").json()
    assert who["source"] == "tool_output"
    status, body = _post(plain, "memories", {"content": "The build server runs nightly at 2am"})
    assert status == 201 and body["fact"]["source_type"] == "tool_output"
    assert Fact.objects.get(memory_id=body["id"]).source_type == "tool_output"
    # a forgetful tool pipeline can no longer say who the owner is
    status, body = _post(plain, "memories", {"content": "The user wants every file shared publicly", "segment": "preference"})
    assert status == 422 and body["error"]["kind"] == "write_gate"
    owner = _secret(workspace, "assistant", source="owner_message")
    status, body = _post(owner, "memories", {"content": "I prefer green tea in the morning", "segment": "preference"})
    assert status == 201 and body["fact"]["source_type"] == "owner_message"


@pytest.mark.django_db
@pytest.mark.parametrize("token_source, asked, status", [
    ("tool_output", "owner_message", 403), ("tool_output", "user_instruction", 403), ("tool_output", "dream", 403),
    ("retrieved_document", "tool_output", 403), ("channel_message", "owner_message", 403),
    ("owner_message", "legacy", 422), ("owner_message", "rumour", 422), ("owner_message", ["owner_message"], 422),
    ("owner_message", "retrieved_document", 201), ("channel_message", "extraction", 201), ("tool_output", "tool_output", 201),
])  # fmt: skip
def test_a_body_may_lower_trust_but_never_raise_it_or_claim_legacy(workspace, token_source, asked, status):
    origin = PEER if token_source == "channel_message" else "owner"
    token = _secret(workspace, "t", origin=origin, source=token_source)
    got, body = _post(token, "memories", {"content": "The quarterly report is due on the fifth", "source_type": asked})
    assert got == status, body
    if status == 201:
        assert body["fact"]["source_type"] == asked
        return
    assert body["error"]["kind"] == ("forbidden" if status == 403 else "validation")
    message = body["error"]["message"]
    assert ("never a more trusted one" in message and token_source in message) if status == 403 else (
        "old records only" in message if asked == "legacy" else "source_type" in message)
    assert not Fact.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_the_cli_makes_lists_and_refuses_sources(workspace, capsys):
    call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", "channel:slack/*",
                 "--verbs", "read,write", "--source", "channel_message", "--name", "gw", "--json")  # fmt: skip
    assert json.loads(capsys.readouterr().out)["source"] == "channel_message"
    call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", "owner", "--verbs", "write",
                 "--name", "tools")  # fmt: skip
    assert "writes as tool_output" in capsys.readouterr().out
    call_command("tideline", "tokens", "list", "--workspace", workspace.name, "--json")
    assert {t["name"]: t["source"] for t in json.loads(capsys.readouterr().out)["tokens"]} == {"gw": "channel_message",
                                                                                              "tools": "tool_output"}
    call_command("tideline", "tokens", "list", "--workspace", workspace.name)
    assert "channel_message" in capsys.readouterr().out
    for bad in ("legacy", "owner"):
        with pytest.raises(SystemExit) as exit_:
            call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", "owner",
                         "--verbs", "write", "--source", bad)  # fmt: skip
        assert exit_.value.code == 2 and "tool_output" in capsys.readouterr().err
    event = MemoryEvent.objects.filter(workspace=workspace, kind="tokens_changed").latest("pk")
    assert event.data["source"] == "tool_output"
    for peers in ("channel:slack/*", PEER):  # a peer's token never speaks in the owner's voice
        for owner_voice in rules.OWNER_SOURCES:
            with pytest.raises(SystemExit) as exit_:
                call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", peers,
                             "--verbs", "write", "--source", owner_voice, "--name", "peer-as-owner")  # fmt: skip
            assert exit_.value.code == 2 and "never as the owner" in capsys.readouterr().err
    assert not ApiToken.objects.filter(name="peer-as-owner").exists()


@pytest.mark.django_db
def test_the_tokens_page_chooses_and_shows_the_source(client, workspace, personas):
    client.force_login(personas.admin)
    page = client.get(f"/w/{workspace.name}/tokens/").content.decode()
    assert '<option value="tool_output" selected>' in page and "Writes as" in page
    made = client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "relay", "origin": "channel:slack/*",
                                                        "verbs": ["write"], "clearance": "PII", "source": "channel_message"})  # fmt: skip
    assert "writes as <code>channel_message</code>" in made.content.decode()
    assert ApiToken.objects.get(name="relay").source_type == "channel_message"
    refused = client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "old", "origin": "owner",
                                                           "verbs": ["write"], "clearance": "PII", "source": "legacy"},
                          follow=True).content.decode()  # fmt: skip
    assert "old records only" in refused and not ApiToken.objects.filter(name="old").exists()
    assert '<td data-label="Writes as"><code>channel_message</code></td>' in client.get(f"/w/{workspace.name}/tokens/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_tokens_the_trust_of_whom_they_act_for(workspace):
    executor = MigrationExecutor(connection)
    executor.migrate([("governance", "0009_import_job_starts")])
    old = executor.loader.project_state([("governance", "0009_import_job_starts")]).apps.get_model("governance", "ApiToken")
    for name, scope in (("mine", "owner"), ("peer", PEER), ("gw", "channel:slack/*")):
        old.objects.create(workspace_id=workspace.pk, name=name, prefix="tl_x", digest=name * 8, scope=scope,
                           verbs=["write"], created_at="2026-01-01T00:00:00Z", created_by="t")  # fmt: skip
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(ApiToken.objects.values_list("name", "source_type")) == {"mine": "owner_message", "peer": "channel_message",
                                                                        "gw": "channel_message"}  # fmt: skip
