"""Admin exports and console import: downloads (filters, streaming, the exported event, CSV
neutralisation, a round trip) and an upload previewed, then imported by the worker."""

from __future__ import annotations

import csv
import json
import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import StreamingHttpResponse

from governance.models import ImportJob
from governance.services.exports import neutralise
from memory.models import Fact, Membership, MemoryEvent
from memory.services.workspaces import create_workspace
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = "channel:slack/general/s1"


@pytest.fixture
def world(workspace, personas):
    # Written by someone other than the admin who exports (the event log's actor filter tells them apart).
    tl = Tideline(workspace, actor="user:wren")
    tl.add("I live in Porto.", segment="identity", classification="PII")
    tl.add("I prefer green tea in the morning.", segment="preference")
    tl.add("The release train leaves on Thursdays.", segment="knowledge", origin=PEER)
    return workspace, personas


def _body(response) -> str:
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content).decode()


def _exported(workspace):
    return list(MemoryEvent.objects.filter(workspace=workspace, kind="exported").order_by("revision"))


@pytest.mark.parametrize("role", ["owner", "approver"])
def test_only_admins_export(client, world, role):
    workspace, people = world
    client.force_login(people[role])
    for path in ("", "facts/?format=jsonl", "events/?format=csv", "graph/?format=graphml", "import/"):
        assert client.get(f"/w/{workspace.name}/exports/{path}").status_code == 403
    assert not _exported(workspace)


def test_facts_jsonl_honours_the_filters_and_leaves_one_event(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    every = [json.loads(line) for line in _body(client.get(f"/w/{workspace.name}/exports/facts/?format=jsonl")).splitlines()]
    assert len(every) == 3
    owners = _body(client.get(f"/w/{workspace.name}/exports/facts/", {"format": "jsonl", "origin": "owner",
                                                                       "classification": "PII"}))  # fmt: skip
    assert [json.loads(line)["content"] for line in owners.splitlines()] == ["I live in Porto."]
    doc = json.loads(_body(client.get(f"/w/{workspace.name}/exports/facts/", {"format": "json", "segment": "knowledge"})))
    assert [f["content"] for f in doc["facts"]] == ["The release train leaves on Thursdays."]
    events = _exported(workspace)
    assert [(e.data["what"], e.data["count"], e.actor) for e in events] == [
        ("facts.jsonl", 3, "user:ada"), ("facts.jsonl", 1, "user:ada"), ("facts.json", 1, "user:ada")]
    assert events[1].data["filters"] == {"origin": "owner", "classification": "PII"}
    assert "Porto" not in json.dumps([e.data for e in events])


def test_bad_filters_are_a_message_not_a_file(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    for query in ({"format": "xml"}, {"format": "jsonl", "origin": "slack"}, {"format": "jsonl", "created_from": "2026-13-45"}):
        response = client.get(f"/w/{workspace.name}/exports/facts/", query)
        assert response.status_code == 400 and "error" in response.content.decode()
    assert not _exported(workspace)


def test_the_event_log_export_honours_its_filters_and_neutralises_formulas(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    Tideline(workspace, actor="=HYPERLINK(\"http://evil\")").add("I walk to work.", segment="context")
    rows = _body(client.get(f"/w/{workspace.name}/exports/events/", {"format": "csv", "kind": "created"})).splitlines()
    assert rows[0] == "revision,at,kind,actor,reason,fact_ids,data" and len(rows) == 5
    actors = [row[3] for row in csv.reader(rows[1:])]
    assert "'=HYPERLINK(\"http://evil\")" in actors and not any(a.startswith("=") for a in actors)
    jsonl = _body(client.get(f"/w/{workspace.name}/exports/events/", {"format": "jsonl", "actor": "wren"}))
    assert {json.loads(line)["kind"] for line in jsonl.splitlines()} == {"created"}
    exported = dict(_exported(workspace)[-1].data)
    assert len(exported.pop("request_id")) == 32  # the download's request, as on every event a request wrote
    assert exported == {"what": "events.jsonl", "filters": {"actor": "wren"}, "count": 3}
    assert [neutralise(v) for v in ("=1+1", "+1", "-1", "@x", "\tx", "ok", None, 5)] == [
        "'=1+1", "'+1", "'-1", "'@x", "'\tx", "ok", "", "5"]


def test_graph_downloads(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    graphml = client.get(f"/w/{workspace.name}/exports/graph/?format=graphml")
    assert graphml["Content-Type"].startswith("application/graphml") and b"<graphml" in graphml.content
    assert _exported(workspace)[-1].data["what"] == "graph.graphml"


def test_a_round_trip_through_the_console(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    exported = _body(client.get(f"/w/{workspace.name}/exports/facts/?format=jsonl"))
    target = create_workspace("copy")
    Membership.objects.create(user=people["admin"], workspace=target, role="admin")
    upload = SimpleUploadedFile("facts.jsonl", (exported + "not json\n").encode())
    preview = client.post("/w/copy/exports/import/", {"file": upload}, follow=True)
    page = preview.content.decode()
    assert "Preview: nothing has been imported yet" in page and "line 4" not in page and ">4</td>" in page
    job = ImportJob.objects.get(workspace=target)
    assert job.preview["imported"] == 3 and job.preview["refused_count"] == 1 and not Fact.objects.filter(workspace=target)
    done = client.post(f"/w/copy/exports/import/{job.pk}/decide/", {"decision": "import"}, follow=True).content.decode()
    assert "Imported" in done
    job.refresh_from_db()
    assert job.status == "done" and job.report["imported"] == 3
    contents = lambda ws: sorted(f.content for f in Fact.objects.filter(workspace=ws))  # noqa: E731
    assert contents(target) == contents(workspace)
    again = client.post(f"/w/copy/exports/import/{job.pk}/decide/", {"decision": "import"}, follow=True).content.decode()
    assert "done already" in again and Fact.objects.filter(workspace=target).count() == 3


def test_an_upload_can_be_cancelled_and_a_missing_file_is_a_message(client, world):
    workspace, people = world
    client.force_login(people["admin"])
    assert client.post(f"/w/{workspace.name}/exports/import/", {}).status_code == 400
    client.post(f"/w/{workspace.name}/exports/import/", {"file": SimpleUploadedFile("f.jsonl", b"{}\n")})
    job = ImportJob.objects.get(workspace=workspace)
    client.post(f"/w/{workspace.name}/exports/import/{job.pk}/decide/", {"decision": "cancel"})
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert client.get(f"/w/{workspace.name}/exports/import/{job.pk + 99}/").status_code == 404


def test_after_a_shred_the_counts_say_what_the_file_holds(client, world, capsys):
    """A shredded origin's facts are skipped by the file, so the page's count, the `exported` event and
    the CLI's report leave them out too (they said 3 while the file held 2)."""
    from governance.services import shred
    from tideline_site.cli import main

    workspace, people = world
    shred.apply(workspace, PEER, typed=PEER, actor="user:ada")
    client.force_login(people["admin"])
    page = client.get(f"/w/{workspace.name}/exports/").content.decode()
    assert "<strong>2</strong> facts match" in page
    assert "<strong>0</strong> facts match" in client.get(f"/w/{workspace.name}/exports/", {"origin": PEER}).content.decode()
    lines = _body(client.get(f"/w/{workspace.name}/exports/facts/?format=jsonl")).splitlines()
    doc = json.loads(_body(client.get(f"/w/{workspace.name}/exports/facts/?format=json")))
    assert len(lines) == len(doc["facts"]) == 2
    assert [e.data["count"] for e in _exported(workspace)] == [2, 2]
    main(["export", "--workspace", workspace.name, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["count"] == len(report["facts"]) == 2


def _upload(client, workspace, lines: list[dict]) -> ImportJob:
    body = "\n".join(json.dumps(line) for line in lines).encode()
    response = client.post(f"/w/{workspace.name}/exports/import/",
                           {"file": SimpleUploadedFile("facts.jsonl", body)})  # fmt: skip
    assert response.status_code == 302
    return ImportJob.objects.latest("pk")


def test_an_upload_never_confirmed_expires_after_a_day_file_and_all(client, world):
    from datetime import timedelta
    from pathlib import Path

    from django.core.management import call_command
    from django.utils import timezone
    from django_q.models import Schedule

    from governance import tasks

    workspace, people = world
    client.force_login(people["admin"])
    old = _upload(client, workspace, [{"memoryId": "mem_x1", "content": "My bank PIN is 4321."}])
    fresh = _upload(client, workspace, [{"memoryId": "mem_x2", "content": "I like figs."}])
    stray = Path(old.path).with_name("0123456789abcdef.jsonl")  # a stored upload whose job was never recorded
    stray.write_text('{"memoryId": "mem_x3", "content": "a secret"}\n')
    day_ago = (timezone.now() - timedelta(days=1, minutes=1)).timestamp()
    os.utime(stray, (day_ago, day_ago))
    ImportJob.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=1, minutes=1))
    assert Path(old.path).exists()
    page = client.get(f"/w/{workspace.name}/exports/import/")  # a visit of the page expires it
    assert page.status_code == 200
    old.refresh_from_db()
    assert old.status == "cancelled" and "not confirmed within a day" in old.error
    assert not Path(old.path).exists() and not stray.exists()
    assert Path(fresh.path).exists() and ImportJob.objects.get(pk=fresh.pk).status == "previewed"
    shown = client.get(f"/w/{workspace.name}/exports/import/{old.pk}/").content.decode()
    assert "not confirmed within a day" in shown
    refused = client.post(f"/w/{workspace.name}/exports/import/{old.pk}/decide/", {"decision": "import"}, follow=True)
    assert refused.status_code == 200 and not Fact.objects.filter(memory_id="mem_x1").exists()
    # The hourly schedule does the same without anyone visiting.
    ImportJob.objects.filter(pk=fresh.pk).update(created_at=timezone.now() - timedelta(days=2))
    assert tasks.expire_import_uploads() == 1 and not Path(fresh.path).exists()
    call_command("setup_schedules")
    assert Schedule.objects.filter(func="governance.tasks.expire_import_uploads", schedule_type=Schedule.HOURLY).exists()


def test_a_shred_deletes_the_pending_uploads_that_name_its_origin(client, world):
    from pathlib import Path

    from governance.services import shred

    workspace, people = world
    client.force_login(people["admin"])
    peer = {"kind": "channel", "channelId": "slack", "conversationId": "general", "sessionKey": "s1"}
    naming = _upload(client, workspace, [{"memoryId": "mem_y1", "content": "Owner's note."},
                                         {"memoryId": "mem_y2", "content": "Peer's secret.", "createdBy": peer}])
    other = _upload(client, workspace, [{"memoryId": "mem_y3", "content": "Owner's other note."}])
    report = shred.apply(workspace, PEER, typed=PEER, actor="user:ada")
    assert report.review_items_closed == 0  # the receiver adds nothing to the shred's count
    naming.refresh_from_db()
    assert naming.status == "cancelled" and "crypto-shredded" in naming.error and not Path(naming.path).exists()
    assert ImportJob.objects.get(pk=other.pk).status == "previewed" and Path(other.path).exists()
