"""Console import of a facts.jsonl: keep the upload, preview it, then import it in a worker.

The upload is kept under TIDELINE_VAR_DIR/imports until its import ends (or is cancelled), so a
worker in another process can read it; the job row (governance.models.ImportJob) carries the
preview, the progress and the final report. The import itself is memory's `import_facts`, which is
safe to re-run: a job that failed half-way is finished by running it again.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.models import F
from django.utils import timezone

from governance.models import ImportJob
from governance.services import run_locks
from governance.services.acting import actor_text, require_role
from memory.services.errors import RequestError
from memory.services.queueing import QueueUnavailableError, enqueue
from memory.services.writes.interchange import import_facts, preview_import
from tideline_kit import telemetry

MAX_BYTES = int(getattr(settings, "TIDELINE_IMPORT_MAX_MB", 100)) * 1024 * 1024
PROGRESS_EVERY = 500  # lines between progress writes (one UPDATE each)
CONNECTION_RETRIES = 3  # lost database connections one run survives (each resumes the import)
MAX_STARTS = 3  # worker starts of one job before an interrupted one waits for a person to resume it
logger = logging.getLogger(__name__)


def _folder() -> Path:
    folder = Path(settings.VAR_DIR) / "imports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def receive(workspace, upload, *, user=None, actor: str) -> ImportJob:
    """Store an uploaded file and preview it (changing nothing in memory); returns the job."""
    require_role(user, workspace, "import", "import facts")
    actor = actor_text(actor)
    if upload is None:
        raise RequestError("choose a facts.jsonl file to upload", kind="validation")
    if upload.size > MAX_BYTES:
        raise RequestError(f"the file is {upload.size / 1048576:.1f} MB; the console takes at most "
                           f"{MAX_BYTES // 1048576} MB (use `tideline import` for larger files)", kind="too_large")  # fmt: skip
    path = _folder() / f"{uuid.uuid4().hex}.jsonl"
    with path.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    report = preview_import(workspace=workspace, lines=path.read_bytes().splitlines())
    name = Path(upload.name or "facts.jsonl").name[:255]
    return ImportJob.objects.create(workspace=workspace, created_by=actor, file_name=name, path=str(path),
                                    size=upload.size, lines=report.lines, preview=report.to_dict())  # fmt: skip


def confirm(job: ImportJob, *, user=None, gated: bool) -> ImportJob:
    """Queue a previewed job for the worker (or run it now when tasks run synchronously)."""
    require_role(user, job.workspace, "import", "import facts")
    updated = ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.PREVIEWED).update(
        status=ImportJob.Status.QUEUED, gated=gated)
    if not updated:
        raise RequestError(f"this import is {job.status} already; upload the file again to import it again",
                           kind="conflict")  # fmt: skip
    try:
        enqueue("governance.tasks.run_console_import", job.pk)
    except QueueUnavailableError:  # still previewed: the person can confirm again once the queue is back
        ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.QUEUED).update(status=ImportJob.Status.PREVIEWED)
        raise
    job.refresh_from_db()
    return job


def cancel(job: ImportJob, *, user=None) -> None:
    require_role(user, job.workspace, "import", "import facts")
    if ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.PREVIEWED).update(status=ImportJob.Status.CANCELLED):
        Path(job.path).unlink(missing_ok=True)


@telemetry.operation("governance.import.run")
def run(job_id: int) -> dict:
    """The worker's part: import the file with progress, keep the report, delete the upload.

    It holds the job's run lock throughout, so a restarted worker can tell this run from one whose
    worker was killed (`resume_interrupted`). A lost database connection (the server restarted, the
    session killed) is survived: the import is re-run on a new connection, as it is idempotent."""
    for attempt in range(1, CONNECTION_RETRIES + 2):
        try:
            with run_locks.holding("import", job_id) as mine:
                if not mine:  # another worker runs it now (a copy the broker handed out again)
                    return {"job": job_id, "status": "running elsewhere"}
                return _run_locked(job_id, first=attempt == 1)
        except (OperationalError, InterfaceError) as error:
            connection.close()  # a broken connection is not reused: the next query opens a new one
            if attempt > CONNECTION_RETRIES:
                _fail(job_id, f"the database connection was lost {attempt} times: {error}")
                raise
            logger.warning("import %s: the database connection was lost (%s); resuming it", job_id, error)
            time.sleep(attempt)
    raise AssertionError("unreachable")


def _fail(job_id: int, error: str) -> None:
    with contextlib.suppress(DatabaseError, InterfaceError):  # nowhere to say it: found interrupted later
        ImportJob.objects.filter(pk=job_id).update(status=ImportJob.Status.FAILED, error=error[:1000],
                                                   finished_at=timezone.now())  # fmt: skip


def _run_locked(job_id: int, *, first: bool) -> dict:
    job = ImportJob.objects.select_related("workspace").get(pk=job_id)
    if job.status not in (ImportJob.Status.QUEUED, ImportJob.Status.FAILED, ImportJob.Status.RUNNING):
        return {"job": job.pk, "status": job.status}
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, done=0, error="",
                                               starts=F("starts") + int(first))  # fmt: skip
    pending = [0]

    def progress(n: int) -> None:
        pending[0] += n
        if pending[0] >= PROGRESS_EVERY:
            ImportJob.objects.filter(pk=job.pk).update(done=F("done") + pending[0])
            pending[0] = 0

    try:
        lines = Path(job.path).read_bytes().splitlines()
        report = import_facts(workspace=job.workspace, lines=lines, actor=job.created_by, gate=job.gated,
                              source_name=job.file_name, progress=progress)  # fmt: skip
    except (OperationalError, InterfaceError):
        raise  # run() resumes it on a new connection
    except Exception as error:  # the job says what went wrong; re-running it finishes the import
        _fail(job.pk, str(error))
        raise
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.DONE, done=job.lines, report=report.to_dict(),
                                               finished_at=timezone.now())  # fmt: skip
    Path(job.path).unlink(missing_ok=True)
    return {"job": job.pk, "status": "done", "imported": report.imported}


def resume(job: ImportJob, *, user=None) -> ImportJob:
    """Queue a failed (or interrupted) import again: lines already imported are skipped."""
    require_role(user, job.workspace, "import", "import facts")
    stopped = f"this import is {job.status}; only a stopped import can be resumed"
    if job.status != ImportJob.Status.FAILED:
        raise RequestError(stopped, kind="conflict")
    if not Path(job.path).exists():
        raise RequestError("the uploaded file is gone; upload it again to finish the import", kind="conflict")
    if not ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.FAILED).update(
            status=ImportJob.Status.QUEUED, starts=0, error=""):  # fmt: skip
        raise RequestError(stopped, kind="conflict")
    try:
        enqueue("governance.tasks.run_console_import", job.pk)
    except QueueUnavailableError:  # still stopped, with its reason: resuming later works as before
        ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.QUEUED).update(
            status=ImportJob.Status.FAILED, starts=job.starts, error=job.error)
        raise
    job.refresh_from_db()
    return job


def resume_interrupted() -> list[int]:
    """Jobs that say "running" while no live process runs them (their worker was killed): queued
    again, up to MAX_STARTS starts each, then failed with a reason the import page offers to resume.
    Called as each django-q2 worker starts (governance.apps), so a restarted worker finds them at
    once instead of after the broker's retry (an hour). Returns the ids queued again."""
    from django_q.tasks import async_task

    queued = []
    for job in ImportJob.objects.filter(status=ImportJob.Status.RUNNING).only("pk", "starts"):
        with run_locks.holding("import", job.pk) as free:
            if not free:
                continue  # a live worker runs it
            if job.starts >= MAX_STARTS:
                ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING).update(
                    status=ImportJob.Status.FAILED, finished_at=timezone.now(),
                    error=f"the worker stopped during this import {job.starts} times (killed or out of memory); "
                          "what was imported stays, and resuming skips it")  # fmt: skip
                continue
            if ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.RUNNING).update(status=ImportJob.Status.QUEUED):
                queued.append(job.pk)
    # Queued jobs whose task no pusher can take now: handed out to a cluster that may have died with
    # it (the broker hands it out again after its retry, an hour), or never queued (a crash between
    # confirming and queueing). Queued once more: a second copy of a job's task changes nothing.
    waiting = _waiting_in_broker()
    if waiting is not None:
        for pk in ImportJob.objects.filter(status=ImportJob.Status.QUEUED).values_list("pk", flat=True):
            if pk not in waiting and pk not in queued and not run_locks.is_held("import", pk):
                queued.append(pk)
    for pk in queued:
        logger.warning("import %s was interrupted (its worker stopped); resuming it", pk)
        async_task("governance.tasks.run_console_import", pk)
    return queued


def _waiting_in_broker() -> set[int] | None:
    """The jobs whose task waits in the database broker for a pusher (None: the broker is Redis)."""
    from django_q.conf import Conf
    from django_q.models import OrmQ

    if not Conf.ORM:
        return None
    waiting = set()
    for row in OrmQ.objects.filter(lock__lte=timezone.now()).iterator():
        if row.func() == "governance.tasks.run_console_import" and row.args():
            waiting.add(row.args()[0])
    return waiting
