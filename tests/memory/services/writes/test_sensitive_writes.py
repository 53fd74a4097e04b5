"""Personal data and secrets at the door of every write: the classification rises to PII (never lowered),
a secret from untrusted content is refused, one in the owner's words is replaced before anything is
stored, and no canary secret reaches the database, the event log or the logs through any entry point."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client

from governance.services import tokens
from memory.engine.writes.gate import SecretError
from memory.models import Fact, MemoryEvent
from memory.services.writes.interchange import import_facts
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = "channel:slack/general/s1"
CANARIES = {  # real-format secrets made up for this test, each unique
    "facade": "AKIAQUORVITH7FACADE1",
    "api": "ghp_QuorvithApiCanary0123456789abcdefghij",
    "cli": "sk_live_QuorvithCliCanary0123456789",
    "import": "xoxb-111122223333-444455556666-QuorvithImportCanary",
    "console": "glpat-QuorvithConsoleCanary0123",
}


def _database_text() -> str:
    """Every value of every table, as text (bytes decoded loosely): what a dump would show in clear."""
    out = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                for value in row:
                    if isinstance(value, bytes | memoryview):
                        out.append(bytes(value).decode("latin-1"))
                    elif value is not None:
                        out.append(str(value))
    return "\n".join(out)


def test_personal_data_raises_the_classification_and_a_writer_cannot_lower_it(workspace):
    tl = Tideline(workspace)
    found = tl.add("My e-mail is maya.okafor@example.org.", segment="identity", classification="PUBLIC")
    assert (found.classification, found.detected) == ("PII", ("email",))
    plain = tl.add("I like green tea in the morning.", segment="preference", classification="PUBLIC")
    assert (plain.classification, plain.detected) == ("PUBLIC", ())
    event = MemoryEvent.objects.get(kind="created", fact_ids__contains=[found.id]) if connection.vendor == "postgresql" \
        else next(e for e in MemoryEvent.objects.filter(kind="created") if found.id in e.fact_ids)
    assert event.data["detected"] == ["email"] and "maya" not in json.dumps(event.data)


def test_a_token_below_pii_never_sees_a_fact_whose_personal_data_was_detected(workspace):
    Tideline(workspace).add("My passport number is X1234567.", segment="identity")  # no classification claimed
    fact = Fact.objects.get()
    assert fact.classification == "PII"
    secret = tokens.create_token(workspace, name="low", origin="owner", verbs="read", clearance="INTERNAL", actor="t")[1]
    response = Client().post("/api/v1/recall", data=json.dumps({"query": "passport number"}),
                             content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}")  # fmt: skip
    assert response.status_code == 200 and response.json()["hits"] == []
    assert Client().get(f"/api/v1/memories/{fact.memory_id}", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 404


def test_a_secret_in_untrusted_content_is_refused_and_leaves_no_trace(workspace):
    with pytest.raises(SecretError) as refused:
        Tideline(workspace).add(f"Deploy with {CANARIES['facade']} tonight.", segment="knowledge",
                                source_type="tool_output", origin=PEER)  # fmt: skip
    assert refused.value.kind == "secret" and refused.value.rules == ("secret:aws_access_key",)
    blocked = MemoryEvent.objects.get(kind="blocked")
    assert blocked.data["refusal"] == "secret" and blocked.data["content_hmac"] is None
    assert not Fact.objects.exists() and CANARIES["facade"] not in _database_text()


def test_a_secret_in_the_owners_words_is_replaced_everywhere_through_every_entry_point(workspace, tmp_path, caplog,
                                                                                        capsys, owner, settings):  # fmt: skip
    caplog.set_level(logging.DEBUG)
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 1
    settings.TIDELINE_RECALL_SNAPSHOT_DIR = tmp_path / "snapshots"
    tl = Tideline(workspace)
    stored = tl.add(f"The staging AWS key is {CANARIES['facade']}.", segment="knowledge")
    assert stored.content == "The staging AWS key is [secret: AWS access key]." and stored.detected == ("aws_access_key",)

    secret = tokens.create_token(workspace, name="owner-bot", origin="owner", verbs="read,write", source="owner_message",
                                 actor="t")[1]  # fmt: skip
    response = Client().post("/api/v1/memories", data=json.dumps({"content": f"My GitHub token is {CANARIES['api']}",
                                                                   "segment": "knowledge"}),
                             content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}")  # fmt: skip
    body = response.json()
    assert response.status_code == 201, body
    assert (body["detected"], body["classification"]) == (["github_token"], "INTERNAL")
    assert "[secret: GitHub token]" in body["fact"]["content"] and body["fact"]["detected"] == ["github_token"]

    call_command("tideline", "add", f"Billing uses {CANARIES['cli']} in production.", "--workspace", workspace.name,
                 "--segment", "knowledge")  # fmt: skip
    out = capsys.readouterr().out
    assert "secret replaced, never stored (Stripe key)" in out and CANARIES["cli"] not in out

    line = json.dumps({"memoryId": "mem_imported_secret_1", "content": f"The Slack bot token is {CANARIES['import']}",
                       "segment": "knowledge", "tier": "long", "importance": 0.5, "decayRate": 0.03, "accessCount": 0,
                       "lastAccessedAt": 1790000000000, "createdAt": 1790000000000, "lifecycle": "active",
                       "createdBy": {"kind": "owner"}})  # fmt: skip
    report = import_facts(workspace=workspace, lines=[line], actor="test")
    assert report.imported == 1 and report.detected == {"slack_token": 1}
    with pytest.raises(Exception, match="strict"):
        import_facts(workspace=workspace, lines=[line.replace("mem_imported_secret_1", "mem_imported_secret_2")],
                     actor="test", strict=True)  # fmt: skip

    client = Client()
    client.force_login(owner)
    corrected = client.post(f"/w/{workspace.name}/facts/{stored.id}/correct/",
                            {"content": f"The staging GitLab token is {CANARIES['console']}."})  # fmt: skip
    assert corrected.status_code == 302

    tl.recall("staging AWS key")  # builds the recall index and, with no size floor, writes its snapshot
    snapshots = b"".join(path.read_bytes() for path in Path(settings.TIDELINE_RECALL_SNAPSHOT_DIR).rglob("*")
                         if path.is_file())  # fmt: skip
    assert snapshots, "the recall index wrote no snapshot to look in"
    everything = _database_text() + caplog.text + snapshots.decode("latin-1")
    for canary in CANARIES.values():
        assert canary not in everything
    contents = {fact.content for fact in Fact.objects.all()}
    assert not any(canary in content for content in contents for canary in CANARIES.values())
    assert sum("[secret:" in content for content in contents) == 5
