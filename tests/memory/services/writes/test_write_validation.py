"""Hostile field values are refused (or cleaned) at every way in, on the real database: never a crash."""

from __future__ import annotations

import json
import time

import pytest
from django.core.management import call_command

from memory.models import Fact, MemoryEvent
from memory.services.writes.interchange import export_facts, import_facts
from memory.tideline import FactValidationError, Tideline

pytestmark = pytest.mark.django_db
NOW = int(time.time() * 1000)
DAY = 86_400_000


def good(memory_id: str, **fields) -> dict:
    return {"memoryId": memory_id, "content": f"A perfectly ordinary fact {memory_id}.", "segment": "knowledge",
            "createdAt": NOW - DAY, "lifecycle": "active", **fields}  # fmt: skip


CHANNEL = {"kind": "channel", "channelId": "wa", "conversationId": "c1", "sessionKey": "s1"}
HOSTILE = {
    "createdAt 1e20": good("n1", createdAt=1e20),
    "negative createdAt": good("n2", createdAt=-5),
    "createdAt two days ahead": good("n3", createdAt=NOW + 2 * DAY),
    "lastAccessedAt 1e300": good("n4", lastAccessedAt=1e300),
    "accessCount 1e30": good("n5", accessCount=1e30),
    "accessCount past 32 bits": good("n6", accessCount=2**31),
    "validTo 1e20": good("n7", validTo=10**20),
    "negative validFrom": good("n8", validFrom=-1),
    "importance 1.5": good("n9", importance=1.5),
    "confidence -0.1": good("n10", confidence=-0.1),
    "decayRate 5": good("n11", decayRate=5),
    "decayRate -1": good("n12", decayRate=-1),
    "subjectKey 201": good("s1", subjectKey="k" * 201),
    "intentScope 201": good("s2", intentScope="i" * 201),
    "sourceTurn 201": good("s3", sourceTurn="t" * 201),
    "channelId 201": good("s4", createdBy={**CHANNEL, "channelId": "c" * 201}),
    "memoryId 129": good("x" * 129),
    "mediaPointer 1001": good("s5", mediaPointer="p" * 1001),
    "NUL in content": good("z1", content="before\x00after"),
    "NUL in subjectKey": good("z2", subjectKey="home\x00city"),
    "NUL in sourcePointers": good("z3", sourcePointers=["ok", "bad\x00"]),
    "NUL in a link reason": good("z4", links=[{"kind": "relates", "target": "ok1", "reason": "why\x00"}]),
    "NUL in a channel id": good("z5", createdBy={**CHANNEL, "sessionKey": "s\x00"}),
    "id with a slash": good("a/b"),
    "id with a space": good("a b"),
    "id with a question mark": good("a?b"),
    "id with a hash": good("a#b"),
    "id with a percent": good("a%2Fb"),
    "id with a control character": good("a\x07b"),
    "link target with a slash": good("l1", links=[{"kind": "relates", "target": "../x"}]),
    "supersedes with a slash": good("l2", supersedes=["x/y"]),
    "bidi override in an origin": good("o1", createdBy={**CHANNEL, "conversationId": "c\u202eevil"}),
    "zero-width in an origin": good("o2", createdBy={**CHANNEL, "channelId": "w\u200ba"}),
}
RAW = {
    "NaN importance": '{"memoryId": "r1", "content": "ordinary text here", "importance": NaN}',
    "Infinity createdAt": '{"memoryId": "r2", "content": "ordinary text here", "createdAt": Infinity}',
    "100,000-deep nesting": '{"memoryId": "r3", "content": "ok", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "5,000-digit integer": '{"memoryId": "r4", "content": "ok", "createdAt": 1' + "0" * 5000 + "}",
    "escaped lone surrogate": '{"memoryId": "r5", "content": "ok \\ud800 there"}',
    "escaped NUL": '{"memoryId": "r6", "content": "ok \\u0000 there"}',
}


def test_every_line_level_problem_is_a_refused_line_and_the_rest_imports(workspace):
    hostile = [json.dumps(record) for record in HOSTILE.values()] + list(RAW.values())
    lines = [json.dumps(good("ok1"))] + hostile + [json.dumps(good("ok2"))]
    report = import_facts(workspace=workspace, lines=lines, actor="test")
    assert report.imported == 2
    refused = {r.line: r.reason for r in report.refused}
    assert sorted(refused) == list(range(2, len(hostile) + 2)), refused
    for (name, _), line in zip(list(HOSTILE.items()) + list(RAW.items()), range(2, len(hostile) + 2), strict=True):
        assert refused[line], name
    assert sorted(Fact.objects.values_list("memory_id", flat=True)) == ["ok1", "ok2"]
    assert [r["memoryId"] for r in export_facts(workspace=workspace)] == ["ok1", "ok2"]


def test_refusal_reasons_name_the_field(workspace):
    lines = [json.dumps(HOSTILE[name]) for name in ("subjectKey 201", "accessCount 1e30", "id with a slash",
                                                    "createdAt two days ahead", "bidi override in an origin")]  # fmt: skip
    reasons = [r.reason for r in import_facts(workspace=workspace, lines=lines, actor="test").refused]
    assert "subjectKey is 201 characters" in reasons[0]
    assert "accessCount" in reasons[1] and "memoryId 'a/b' may hold only" in reasons[2]
    assert "more than a day in the future" in reasons[3] and "U+202E" in reasons[4]


def test_untrusted_content_is_imported_without_control_characters(workspace):
    lines = [json.dumps(good("u1", content="Tool said \x1b[31mred\x1b[0m\x07 today.", sourceType="tool_output")),
             json.dumps(good("t1", content="Owner typed a bell \x07 here.", sourceType="owner_message"))]  # fmt: skip
    assert import_facts(workspace=workspace, lines=lines, actor="test").imported == 2
    assert Fact.objects.get(memory_id="u1").content == "Tool said [31mred[0m today."
    assert Fact.objects.get(memory_id="t1").content == "Owner typed a bell \x07 here."


# ---------------------------------------------------------------- the facade and `tideline add`


@pytest.mark.parametrize(
    "fields",
    [{"subject_key": "k" * 201}, {"intent_scope": "i" * 201}, {"source_turn": "t" * 201}, {"importance": 1.5},
     {"importance": -0.5}, {"importance": float("nan")}, {"supersedes": ["a/b"]}, {"supersedes": ["bad id"]},
     {"links": [("relates", "x?y")]}, {"subject_key": "a\x00b"}, {"origin": "channel:wa/c\u202e1/s1"},
     {"origin": "channel:wa/c1/s\u200b1"}, {"origin": "channel:" + "w" * 201 + "/c/s"}],
)  # fmt: skip
def test_the_facade_refuses_what_the_columns_or_the_console_cannot_hold(tl, fields):
    with pytest.raises(FactValidationError):
        tl.add("The billing pipeline runs nightly at two.", segment="project", **fields)
    assert not Fact.objects.exists()


def test_a_refused_write_with_hostile_values_still_leaves_its_blocked_event(tl):
    with pytest.raises(FactValidationError):
        tl.add("A fact with a NUL \x00 inside.", segment="proj\x00ect", source_type="tool\x00", subject_key="x\x00")
    event = MemoryEvent.objects.get(kind="blocked")
    assert event.data["segment"] == "'proj\\x00ect'" and "\x00" not in json.dumps(event.data)


def test_a_written_record_created_in_the_future_is_refused(workspace):
    from datetime import timedelta

    from django.utils import timezone

    from memory.services.writes.write_path import NewFact, write_fact

    ahead = NewFact(content="The billing pipeline runs nightly at two.", segment="project", memory_id="m-future",
                    created_at=timezone.now() + timedelta(days=30))  # fmt: skip
    with pytest.raises(FactValidationError, match="createdAt .* is more than a day in the future"):
        write_fact(workspace=workspace, new=ahead, actor="test")
    ahead.created_at = timezone.now() + timedelta(hours=12)  # clock skew is tolerated
    assert write_fact(workspace=workspace, new=ahead, actor="test").fact.memory_id == "m-future"


@pytest.mark.parametrize("source", ["tool_output", "retrieved_document", "compaction", "extraction"])
def test_untrusted_writes_are_cleaned_of_control_characters_and_nul_is_refused(tl, source):
    fact = tl.add("Build \x1b[1mstatus\x1b[0m is green on main.\x07", segment="knowledge", source_type=source)
    assert Fact.objects.get(memory_id=fact.id).content == "Build [1mstatus[0m is green on main."
    with pytest.raises(FactValidationError, match="NUL"):
        tl.add("Build status \x00 is red on main.", segment="knowledge", source_type=source)


def test_tideline_add_refuses_over_long_fields_with_exit_2(workspace, capsys):
    for flag, value in (("--subject-key", "k" * 201), ("--intent-scope", "s" * 201), ("--importance", "7")):
        with pytest.raises(SystemExit) as exit_:
            call_command("tideline", "add", "The billing pipeline runs nightly.", "--workspace", "acme",
                         "--segment", "project", flag, value, "--json")  # fmt: skip
        assert exit_.value.code == 2
        assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"
    assert not Fact.objects.exists()


def test_ids_still_accepted_are_reachable_in_the_console(workspace, owner, client):
    from django.urls import reverse

    import_facts(workspace=workspace, lines=[json.dumps(good(i)) for i in ("h-diet", "D1:3", "mem_ab_c1.x")], actor="t")
    client.force_login(owner)
    assert client.get(reverse("memory:fact-list", args=["acme"])).status_code == 200
    for memory_id in ("h-diet", "D1:3", "mem_ab_c1.x"):
        assert client.get(reverse("memory:fact-detail", args=["acme", memory_id])).status_code == 200


def test_the_facade_on_a_fresh_workspace_accepts_a_plain_write(workspace):
    assert Tideline(workspace).add("I keep a strict vegetarian diet.", segment="preference").id.startswith("mem_")
