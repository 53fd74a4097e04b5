"""API tokens (docs/SECURITY.md): scope rules, hashed storage, the CLI, and the OpenAPI document and docs page."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from governance.engine import tokens as rules
from governance.models import ApiToken
from governance.services import tokens
from memory.engine.facts import records as R
from memory.models import MemoryEvent

PART = st.text(alphabet="abcxyz019-", min_size=1, max_size=6)


@given(PART, PART, PART, PART, PART, PART)
def test_a_scope_acts_for_exactly_its_own_origins(c1, v1, s1, c2, v2, s2):
    peer, other = R.Origin("channel", c1, v1, s1), R.Origin("channel", c2, v2, s2)
    assert rules.parse_scope(peer.label()).may_act_for(other) == (peer.key == other.key)
    gateway = rules.parse_scope(f"channel:{c1}/*")
    assert gateway.may_act_for(other) == (c1 == c2) and not gateway.may_act_for(R.Origin.owner())
    assert rules.parse_scope("owner").may_act_for(R.Origin.owner()) and not rules.parse_scope("owner").may_act_for(peer)


@pytest.mark.parametrize("bad", ["", "slack", "channel:a/b", "channel:*", "channel:a/*/x", "owner2"])
def test_malformed_scopes_are_refused_with_the_forms(bad):
    with pytest.raises(rules.TokenRuleError, match="channel:C/\\*"):
        rules.parse_scope(bad)


def test_verbs_and_clearance():
    assert rules.parse_verbs("write, read") == ("read", "write")
    with pytest.raises(rules.TokenRuleError):
        rules.parse_verbs("read,delete")
    assert rules.capped_clearance("INTERNAL", "PII") == "INTERNAL" and rules.capped_clearance("PII", "PUBLIC") == "PUBLIC"


@pytest.mark.django_db
def test_only_the_hash_is_stored_and_changes_are_events(workspace):
    row, secret = tokens.create_token(workspace, name="bot", origin="owner", verbs="read", actor="ana")
    assert secret.startswith("tl_") and len(secret) > 40 and secret not in json.dumps(tokens.describe(row))
    assert row.digest == rules.digest(secret) and not ApiToken.objects.filter(digest=secret).exists()
    event = MemoryEvent.objects.filter(workspace=workspace, kind="tokens_changed").latest("pk")
    assert event.data["change"] == "created" and secret not in json.dumps(event.data) and event.actor == "ana"
    tokens.revoke_token(workspace, "bot", actor="ana")
    tokens.revoke_token(workspace, "bot", actor="ana")  # a second revoke changes nothing
    assert MemoryEvent.objects.filter(workspace=workspace, kind="tokens_changed").count() == 2
    with pytest.raises(tokens.TokenRefused):
        tokens.authenticate(secret)


@pytest.mark.django_db
def test_the_cli_prints_the_token_once_lists_and_revokes(workspace, capsys):
    call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", "channel:slack/*",
                 "--verbs", "read", "--clearance", "INTERNAL", "--expires", "30", "--name", "gw", "--json")  # fmt: skip
    made = json.loads(capsys.readouterr().out)
    assert made["token"].startswith("tl_") and made["origin"] == "channel:slack/*" and made["expires_at"]
    call_command("tideline", "tokens", "list", "--workspace", workspace.name, "--json")
    listed = json.loads(capsys.readouterr().out)["tokens"]
    assert [t["name"] for t in listed] == ["gw"] and "token" not in listed[0]
    call_command("tideline", "tokens", "revoke", "--workspace", workspace.name, "--name", "gw")
    assert "revoked" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "tokens", "create", "--workspace", workspace.name, "--origin", "slack", "--verbs", "read")
    assert exit_.value.code == 2 and "channel:C/V/S" in capsys.readouterr().err


@pytest.mark.django_db
def test_the_openapi_document_and_docs_page_are_served():
    spec = Client().get("/api/v1/openapi.json").json()
    assert spec["openapi"].startswith("3.1") and {"/recall", "/memories", "/memories/{memory_id}", "/auto-recall"} <= set(spec["paths"])
    page = Client().get("/api/v1/docs")
    assert page.status_code == 200 and b"/api/v1/recall" in page.content
