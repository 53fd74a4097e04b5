"""Request ids and JSON logs (tideline_site/logs.py): every response names its request's id, the events a
request or a worker's task wrote carry it, and the JSON format puts it on every line; the per-request
line never holds a query string."""

from __future__ import annotations

import json
import logging

import pytest

from memory.models import MemoryEvent
from tideline_kit import request_ids
from tideline_site import logs

pytestmark = pytest.mark.django_db


def test_every_response_names_its_request_and_the_events_it_wrote_carry_the_id(workspace, personas):
    client = personas.client_for(personas.admin)
    given = "proxy-req-0123456789"
    response = client.post(f"/w/{workspace.name}/proposals/bar/", {"noise_weight": "0.02", "hit_allowance": "0.02"},
                           HTTP_X_REQUEST_ID=given)  # fmt: skip
    assert response["X-Request-ID"] == given
    event = MemoryEvent.objects.filter(workspace=workspace, kind="settings_changed").latest("revision")
    assert event.data["request_id"] == given
    for bad in ("short", "has space in it", "x" * 65, "<script>alert(1)</script>"):
        made = client.get("/healthz", HTTP_X_REQUEST_ID=bad)  # probes are answered before the ids: none
        assert "X-Request-ID" not in made
        page = client.get(f"/w/{workspace.name}/proposals/", HTTP_X_REQUEST_ID=bad)
        assert page["X-Request-ID"] != bad and len(page["X-Request-ID"]) == 32
    assert request_ids.current.get() is None  # nothing leaks past the request


def test_one_line_per_request_names_the_route_and_never_the_query(workspace, personas, caplog):
    client = personas.client_for(personas.owner)
    with caplog.at_level(logging.INFO, logger="tideline.requests"):
        client.get(f"/w/{workspace.name}/recall/?q=my+secret+diagnosis")
    lines = [r for r in caplog.records if r.name == "tideline.requests"]
    assert len(lines) == 1
    line = lines[0]
    assert (line.method, line.status, line.path) == ("GET", 200, f"/w/{workspace.name}/recall/")
    assert line.route == "w/<slug:workspace>/recall/" and line.ms >= 0
    assert "diagnosis" not in logs.JsonFormatter().format(line)


def test_the_json_format_is_one_object_per_line_with_the_request_id():
    formatter = logs.JsonFormatter()
    token = request_ids.current.set("req-abcdef012345")
    try:
        record = logging.LogRecord("tideline.x", logging.ERROR, __file__, 1, "refused %s", ("a write",), None)
        record.status = 409
        out = json.loads(formatter.format(record))
    finally:
        request_ids.current.reset(token)
    assert out | {"ts": "t"} == {"ts": "t", "level": "ERROR", "logger": "tideline.x", "message": "refused a write",
                                 "request_id": "req-abcdef012345", "status": 409}
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    line = formatter.format(record)
    assert "\n" not in line and "ValueError: boom" in json.loads(line)["exception"]


def test_a_workers_task_has_an_id_of_its_own_for_its_events_and_its_line(tl, workspace, caplog):
    task = {"id": "0f3c2b1a", "name": "night-acme", "func": "governance.tasks.x"}
    with caplog.at_level(logging.INFO, logger="tideline.tasks"):
        logs.task_started(task=task)
        assert request_ids.current.get() == "task-0f3c2b1a"
        tl.add("I live in Porto.", segment="identity")
        logs.task_finished(task={**task, "success": True})
    assert request_ids.current.get() is None
    assert MemoryEvent.objects.get(workspace=workspace, kind="created").data["request_id"] == "task-0f3c2b1a"
    line = next(r for r in caplog.records if r.name == "tideline.tasks")
    assert (line.task, line.success) == ("night-acme", True) and line.ms >= 0
    # A task run inside a request (TIDELINE_Q_SYNC) keeps the request's id.
    token = request_ids.current.set("req-0123456789")
    try:
        logs.task_started(task=task)
        assert request_ids.current.get() == "req-0123456789"
        logs.task_finished(task=task)
        assert request_ids.current.get() == "req-0123456789"
    finally:
        request_ids.current.reset(token)
