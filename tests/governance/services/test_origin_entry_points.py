"""Origin parts are checked wherever an origin comes in, so that every stored origin has exactly one
label that parses back to it: the API (a gateway token naming the peer as a createdBy object), the
CLI's --origin, a facts.jsonl import and the console's forms. A session key `s1@evil` (which shared
its label with session `s1` of account `evil`) and parts holding `/` are refused with the rule."""

from __future__ import annotations

import html
import json

import pytest
from django.core.management import call_command
from django.test import Client

from governance.services import tokens
from memory.engine.facts import records as R
from memory.models import Fact
from memory.services.writes.interchange import import_facts

pytestmark = pytest.mark.django_db
EVIL = {"kind": "channel", "channelId": "slack", "conversationId": "general", "sessionKey": "s1@evil"}


def _write(token, body):
    response = Client().post("/api/v1/memories", data=json.dumps(body), content_type="application/json",
                             HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
    return response.status_code, response.json()


def test_a_gateway_token_cannot_write_an_origin_whose_label_names_another(workspace):
    gateway = tokens.create_token(workspace, name="gw", origin="channel:slack/*", verbs="read,write",
                                  source="channel_message", actor="t")[1]  # fmt: skip
    content = {"content": "The launch review moved to Wednesday"}
    for origin, says in ((EVIL, "origin session 's1@evil' contains '@'"),
                         ({**EVIL, "sessionKey": "s1", "conversationId": "gen/eral"}, "contains '/'"),
                         ({**EVIL, "sessionKey": ""}, "origin session is empty"),
                         ("channel:slack/gen/eral/s1", "needs exactly CHANNEL/CONVERSATION/SESSION")):  # fmt: skip
        status, body = _write(gateway, {**content, "origin": origin})
        assert status == 422 and body["error"]["kind"] == "validation" and says in body["error"]["message"], body
    assert not Fact.objects.filter(workspace=workspace).exists()
    # the label form names session s1 of account evil: a peer of its own, whose label parses back to it
    status, body = _write(gateway, {**content, "origin": "channel:slack/general/s1@evil"})
    assert status == 201 and R.parse_origin(body["fact"]["origin"]) == R.Origin("channel", "slack", "general", "s1", "evil")


def test_the_cli_refuses_an_ambiguous_origin_with_exit_2(workspace, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", "add", "The office closes at six", "--workspace", workspace.name,
                     "--segment", "knowledge", "--origin", "channel:sl@ck/general/s1", "--json")  # fmt: skip
    assert exit_.value.code == 2
    assert "origin channel 'sl@ck' contains '@'" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert not Fact.objects.filter(workspace=workspace).exists()


def test_an_import_line_with_an_ambiguous_origin_is_refused_with_its_line(workspace):
    line = {"memoryId": "mem_evil", "content": "The office closes at six", "segment": "knowledge", "createdBy": EVIL,
            "sourceType": "channel_message"}  # fmt: skip
    fine = {**line, "memoryId": "mem_fine", "createdBy": {**EVIL, "sessionKey": "s1", "accountId": "evil"}}
    report = import_facts(workspace=workspace, lines=[json.dumps(line), json.dumps(fine)], actor="test")
    assert report.imported == 1 and [r.line for r in report.refused] == [1]
    assert "origin session 's1@evil' contains '@'" in report.refused[0].reason
    assert Fact.objects.get(memory_id="mem_fine").origin.label() == "channel:slack/general/s1@evil"


def test_the_consoles_origin_fields_say_what_is_wrong(client, workspace, owner):
    client.force_login(owner)
    # The playground explains beside its results; a list page refuses a filter it cannot read (400).
    for url, status in ((f"/w/{workspace.name}/recall/?q=office&origin=channel:slack/gen@x/s1", 200),
                        (f"/w/{workspace.name}/facts/?origin=channel:slack/gen@x/s1", 400)):  # fmt: skip
        response = client.get(url)
        assert response.status_code == status and "origin conversation 'gen@x' contains '@'" in html.unescape(
            response.content.decode())  # fmt: skip
