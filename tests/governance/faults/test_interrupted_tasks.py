"""What a killed worker leaves "running" is taken up by the next worker to start (governance.apps,
on django-q2's post_spawn): a console import is resumed (after MAX_STARTS starts it is failed, and
its page offers to resume it), a proposal's evaluation is failed so that it can be asked for again;
one a live process runs (it holds the run lock) is left alone. The real kill -9 is in
tests/governance/faults/test_import_worker.py; here the decisions, on both databases, in a second."""

from __future__ import annotations

import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import OrmQ
from django_q.signals import post_spawn

from governance.models import ImportJob, Proposal
from governance.services import imports, run_locks
from memory.models import Fact

pytestmark = pytest.mark.django_db(transaction=True)
LINES = b"".join(b'{"memoryId": "mem_%d", "content": "Fact %d.", "segment": "knowledge", "createdAt": 1750000000000}\n'
                 % (k, k) for k in range(5))  # fmt: skip


def _interrupted_job(workspace, *, starts: int) -> ImportJob:
    """A job as a kill -9 leaves it: "running", part done, its run lock gone with its process."""
    job = imports.receive(workspace, SimpleUploadedFile("facts.jsonl", LINES), actor="user:ada")
    ImportJob.objects.filter(pk=job.pk).update(status="running", done=2, starts=starts)
    return job


def _held_elsewhere(name: str, key: int):
    """Hold the run lock in another thread (its own database session), as a live worker would."""
    taken, release = threading.Event(), threading.Event()

    def hold():
        try:
            with run_locks.holding(name, key) as got:
                assert got
                taken.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(10)
    return release, thread


def test_a_starting_worker_resumes_an_interrupted_import(workspace, monkeypatch):
    job = _interrupted_job(workspace, starts=1)
    monkeypatch.setattr(Conf, "SYNC", False)  # a real worker, queueing into the database broker
    post_spawn.send(sender="django_q", proc_name="test")  # as each worker process starts
    job.refresh_from_db()
    assert job.status == "queued" and [row.args() for row in OrmQ.objects.all()] == [(job.pk,)]
    imports.run(job.pk)  # what the worker then does with the task
    job.refresh_from_db()
    assert (job.status, job.done, job.starts, job.error) == ("done", 5, 2, "")
    assert Fact.objects.filter(workspace=workspace).count() == 5


def test_an_import_a_live_worker_runs_is_left_alone(workspace):
    job = _interrupted_job(workspace, starts=1)
    release, thread = _held_elsewhere("import", job.pk)
    try:
        assert imports.resume_interrupted() == []
        assert imports.run(job.pk) == {"job": job.pk, "status": "running elsewhere"}  # a second copy of the task
    finally:
        release.set()
        thread.join()
    job.refresh_from_db()
    assert job.status == "running" and not Fact.objects.filter(workspace=workspace).exists()


def test_a_queued_import_handed_to_a_dead_cluster_is_queued_again(workspace, monkeypatch):
    def upload():
        return imports.receive(workspace, SimpleUploadedFile("facts.jsonl", LINES), actor="user:ada")

    lost, waiting = upload(), upload()
    monkeypatch.setattr(Conf, "SYNC", False)  # into the database broker, as under a real worker
    imports.confirm(lost, gated=False)
    imports.confirm(waiting, gated=False)
    # The dead cluster's pusher took `lost`: the broker would hand it out again only after its retry.
    taken = [row.pk for row in OrmQ.objects.all() if row.args() == (lost.pk,)]
    OrmQ.objects.filter(pk__in=taken).update(lock=timezone.now() + timezone.timedelta(seconds=Conf.RETRY))
    monkeypatch.setattr(Conf, "SYNC", True)
    assert imports.resume_interrupted() == [lost.pk]
    lost.refresh_from_db()
    waiting.refresh_from_db()
    assert lost.status == "done" and waiting.status == "queued"  # that one a live pusher takes


def test_an_import_interrupted_too_often_is_failed_and_resumed_from_its_page(client, workspace, personas):
    job = _interrupted_job(workspace, starts=imports.MAX_STARTS)
    assert imports.resume_interrupted() == []
    job.refresh_from_db()
    assert job.status == "failed" and "the worker stopped during this import 3 times" in job.error
    client.force_login(personas.admin)
    page = client.get(f"/w/{workspace.name}/exports/import/{job.pk}/").content.decode()
    assert "The import stopped" in page and 'value="resume"' in page
    done = client.post(f"/w/{workspace.name}/exports/import/{job.pk}/decide/", {"decision": "resume"}, follow=True)
    assert "Resumed: the lines already imported are skipped." in done.content.decode()
    job.refresh_from_db()
    assert job.status == "done" and Fact.objects.filter(workspace=workspace).count() == 5
    again = client.post(f"/w/{workspace.name}/exports/import/{job.pk}/decide/", {"decision": "resume"}, follow=True)
    assert "only a stopped import can be resumed" in again.content.decode()


def test_an_interrupted_evaluation_is_failed_so_it_can_be_asked_for_again(workspace, monkeypatch):
    def proposal(**fields) -> Proposal:
        return Proposal.objects.create(workspace=workspace, change="tuning", source="manual", title="t",
                                       rationale="r", author_name="ada", evaluation="running", **fields)  # fmt: skip

    killed, live = proposal(), proposal()
    release, thread = _held_elsewhere("evaluation", live.pk)
    monkeypatch.setattr(Conf, "SYNC", False)
    try:
        post_spawn.send(sender="django_q", proc_name="test")
    finally:
        release.set()
        thread.join()
    killed.refresh_from_db()
    live.refresh_from_db()
    assert killed.evaluation == "failed" and "evaluate it again" in killed.eval_error
    assert live.evaluation == "running"
