"""Console import of a facts.jsonl: keep the upload, preview it, then import it in a worker.

The upload is kept under TIDELINE_VAR_DIR/imports until its import ends (or is cancelled), so a
worker in another process can read it; the job row (governance.models.ImportJob) carries the
preview, the progress and the final report. The import itself is memory's `import_facts`, which is
safe to re-run: a job that failed half-way is finished by running it again.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from governance.models import ImportJob
from memory.services.errors import RequestError
from memory.services.interchange import import_facts, preview_import

MAX_BYTES = int(getattr(settings, "TIDELINE_IMPORT_MAX_MB", 100)) * 1024 * 1024
PROGRESS_EVERY = 500  # lines between progress writes (one UPDATE each)


def _folder() -> Path:
    folder = Path(settings.VAR_DIR) / "imports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def receive(workspace, upload, *, actor: str) -> ImportJob:
    """Store an uploaded file and preview it (changing nothing in memory); returns the job."""
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


def confirm(job: ImportJob, *, gated: bool) -> ImportJob:
    """Queue a previewed job for the worker (or run it now when tasks run synchronously)."""
    from django_q.tasks import async_task

    updated = ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.PREVIEWED).update(
        status=ImportJob.Status.QUEUED, gated=gated)
    if not updated:
        raise RequestError(f"this import is {job.status} already; upload the file again to import it again",
                           kind="conflict")  # fmt: skip
    async_task("governance.tasks.run_console_import", job.pk)
    job.refresh_from_db()
    return job


def cancel(job: ImportJob) -> None:
    if ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.PREVIEWED).update(status=ImportJob.Status.CANCELLED):
        Path(job.path).unlink(missing_ok=True)


def run(job_id: int) -> dict:
    """The worker's part: import the file with progress, keep the report, delete the upload."""
    job = ImportJob.objects.select_related("workspace").get(pk=job_id)
    if job.status not in (ImportJob.Status.QUEUED, ImportJob.Status.FAILED, ImportJob.Status.RUNNING):
        return {"job": job.pk, "status": job.status}
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, done=0, error="")
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
    except Exception as error:  # the job says what went wrong; re-running it finishes the import
        ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.FAILED, error=str(error)[:1000],
                                                   finished_at=timezone.now())  # fmt: skip
        raise
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.DONE, done=job.lines, report=report.to_dict(),
                                               finished_at=timezone.now())  # fmt: skip
    Path(job.path).unlink(missing_ok=True)
    return {"job": job.pk, "status": "done", "imported": report.imported}
