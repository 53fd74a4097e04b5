"""The worker's queue cannot be reached (Redis stopped, its network cut): every console page that hands
work to the worker answers with a message instead of a 500, and leaves nothing marked as started that
no worker will run; the person can ask again once the queue is back, and it works."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django_q import tasks as q_tasks
from django_q.brokers import Broker
from django_q.conf import Conf

from governance.models import ImportJob, Proposal, SettingsSearch
from governance.services import imports
from memory.services.maintenance import dashboard_stats, graph
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
LINES = b"".join(b'{"memoryId": "mem_%d", "content": "Fact %d.", "segment": "knowledge", "createdAt": 1750000000000}\n'
                 % (i, i) for i in range(3))  # fmt: skip


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the socket is closed


class _Unreachable(Broker):
    """A broker whose server is gone: pushing a task opens a connection that is refused."""

    port = 0

    def get_connection(self, list_key=None):
        return None

    def enqueue(self, task):
        socket.create_connection(("127.0.0.1", self.port), timeout=2).close()


@pytest.fixture
def queue_down(monkeypatch):
    """The broker refuses connections until the test calls the returned function (the queue is back)."""
    _Unreachable.port = _closed_port()
    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(q_tasks, "get_broker", lambda list_key=None: _Unreachable(list_key))

    def back() -> None:
        monkeypatch.setattr(Conf, "SYNC", True)  # a worker at hand again (tasks run in-process)

    cache.clear()
    yield back
    cache.clear()


def _said(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


def test_confirming_an_import_says_the_queue_is_down_and_keeps_it_previewed(client, workspace, personas, queue_down):
    job = imports.receive(workspace, SimpleUploadedFile("facts.jsonl", LINES), actor="user:ada")
    client.force_login(personas.admin)
    url = f"/w/{workspace.name}/exports/import/{job.pk}/decide/"
    response = client.post(url, {"gated": "on"}, follow=True)
    assert response.status_code == 200 and "the worker's queue cannot be reached" in _said(response)
    job.refresh_from_db()
    assert job.status == "previewed"  # confirmable again, not "queued" for a worker that never gets it
    queue_down()
    response = client.post(url, {"gated": "on"}, follow=True)
    job.refresh_from_db()
    assert job.status == "done" and job.done == 3, _said(response)


def test_resuming_an_import_says_the_queue_is_down_and_keeps_it_stopped(client, workspace, personas, queue_down):
    job = imports.receive(workspace, SimpleUploadedFile("facts.jsonl", LINES), actor="user:ada")
    ImportJob.objects.filter(pk=job.pk).update(status="failed", starts=2, error="the worker stopped")
    client.force_login(personas.admin)
    url = f"/w/{workspace.name}/exports/import/{job.pk}/decide/"
    response = client.post(url, {"decision": "resume"}, follow=True)
    assert response.status_code == 200 and "the worker's queue cannot be reached" in _said(response)
    job.refresh_from_db()
    assert (job.status, job.starts, job.error) == ("failed", 2, "the worker stopped")
    queue_down()
    client.post(url, {"decision": "resume"}, follow=True)
    job.refresh_from_db()
    assert job.status == "done"


def test_asking_for_an_evaluation_says_the_queue_is_down_and_can_be_asked_again(client, workspace, personas,
                                                                                queue_down):  # fmt: skip
    from governance.services import proposal_eval

    proposal = Proposal.objects.create(workspace=workspace, change="tuning", source="manual", title="a floor",
                                       rationale="typos", tuning={"ngram_floor": 0.3}, author=personas.owner,
                                       author_name="olga")  # fmt: skip
    client.force_login(personas.approver)
    url = f"/w/{workspace.name}/proposals/{proposal.pk}/"
    with pytest.MonkeyPatch.context() as gate:
        gate.setattr(proposal_eval, "usable_sets", lambda ws: ["a set"])
        response = client.post(url, {"action": "evaluate"}, follow=True)
    assert response.status_code == 200 and "the worker's queue cannot be reached" in _said(response)
    proposal.refresh_from_db()
    assert proposal.evaluation == "none"  # not "queued" forever: evaluating again is offered


def test_a_settings_search_that_cannot_be_queued_leaves_no_search_behind(client, workspace, personas, queue_down):
    from governance.services import proposal_eval, settings_searches
    from memory.services.errors import RequestError

    with pytest.MonkeyPatch.context() as gate:
        gate.setattr(proposal_eval, "usable_sets", lambda ws: ["a set"])
        with pytest.raises(RequestError) as refused:
            settings_searches.request(workspace, user=personas.owner, actor="olga")
    assert refused.value.kind == "unavailable" and "cannot be reached" in refused.value.message
    assert not SettingsSearch.objects.filter(workspace=workspace).exists()  # a later request is not blocked by it


def test_the_dashboard_shows_its_last_figures_and_asks_again_on_the_next_visit(client, workspace, owner, queue_down):
    client.force_login(owner)
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity")
    assert client.get(f"/w/{workspace.name}/").status_code == 200  # exact figures, kept
    tl.add("I work at the harbour.", segment="identity")
    response = client.get(f"/w/{workspace.name}/")
    assert response.status_code == 200 and "These figures are as of revision" in response.content.decode()
    queue_down()
    workspace.refresh_from_db()
    assert dashboard_stats._refresh_later(workspace)  # the failed try did not keep its "queued" mark
    assert dashboard_stats.current(workspace)["as_of_revision"] is None  # and the worker brought them up to date


def test_the_graph_page_says_the_queue_is_down_and_the_next_visit_computes_it(client, workspace, owner, queue_down,
                                                                             monkeypatch):  # fmt: skip
    client.force_login(owner)
    tl = Tideline(workspace)
    first = tl.add("I bike to work when it is dry.", segment="preference")
    tl.add("I keep my bike in the hall.", segment="preference", links=[("relates_to", first.id)])
    monkeypatch.setattr(graph, "IN_REQUEST_LIMIT", 0)  # "large": only the worker computes its communities
    response = client.get(f"/w/{workspace.name}/graph/")
    body = response.content.decode()
    assert response.status_code == 200 and "the worker's queue cannot be reached" in body
    assert "already queued" not in body
    queue_down()
    body = client.get(f"/w/{workspace.name}/graph/").content.decode()
    assert "cannot be reached" not in body and graph.kept(workspace) is not None
