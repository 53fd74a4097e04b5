"""Console uploads that must not outlive their use (they hold facts in plain text under TIDELINE_VAR_DIR).

An upload previewed and never confirmed expires after `PREVIEW_LIFETIME`: its job is cancelled with
the reason and its file deleted, on the next visit to the import page (or upload) and by the hourly
schedule (`governance.tasks.expire_import_uploads`). A file under `imports/` that no pending job
names (a process stopped between storing an upload and recording its job) goes after the same time.
A crypto-shred of an origin cancels every pending upload of the workspace that names the origin and
deletes its file, in the shred's own transaction (`cancel_uploads_of_shredded_origin`, a receiver of
`memory.signals.origin_shredded`): a shred leaves no plain-text copy behind, not even one waiting for
a confirmation.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from governance.models import ImportJob
from memory.engine.facts import interchange as X
from memory.engine.facts import records as R

PREVIEW_LIFETIME = timedelta(days=1)
# Jobs whose upload is still on disk, waiting: for a confirmation, a worker, or a person's resume.
PENDING = (ImportJob.Status.PREVIEWED, ImportJob.Status.QUEUED, ImportJob.Status.FAILED)
logger = logging.getLogger(__name__)


def expire_previews(*, now: datetime | None = None) -> int:
    """Cancel uploads previewed more than a day ago and never confirmed, deleting their files, and
    delete stray upload files as old; returns how many jobs expired."""
    now = now or timezone.now()
    cutoff = now - PREVIEW_LIFETIME
    expired = 0
    stale = ImportJob.objects.filter(status=ImportJob.Status.PREVIEWED, created_at__lt=cutoff)
    for pk, path in stale.values_list("pk", "path"):
        # Only if still previewed: a confirmation that came first wins.
        if ImportJob.objects.filter(pk=pk, status=ImportJob.Status.PREVIEWED).update(
                status=ImportJob.Status.CANCELLED, finished_at=now,
                error="expired: the preview was not confirmed within a day, so the upload was deleted"):  # fmt: skip
            Path(path).unlink(missing_ok=True)
            expired += 1
    folder = Path(settings.VAR_DIR) / "imports"
    if folder.is_dir():
        kept = set(ImportJob.objects.filter(status__in=[*PENDING, ImportJob.Status.RUNNING]).values_list("path", flat=True))
        for file in folder.iterdir():
            try:
                old = file.is_file() and file.stat().st_mtime < cutoff.timestamp()
            except FileNotFoundError:
                continue
            if old and str(file) not in kept:
                file.unlink(missing_ok=True)
    if expired:
        logger.info("deleted %s console upload(s) previewed and never confirmed", expired)
    return expired


def cancel_uploads_of_shredded_origin(sender, *, workspace, origin_key: str, **_) -> None:
    """Cancel the workspace's pending uploads that name the shredded origin, deleting their files.

    Returns nothing: the shred sums its receivers' numbers as the review items they closed."""
    for pk, status, path in ImportJob.objects.filter(workspace=workspace, status__in=PENDING).values_list(
            "pk", "status", "path"):  # fmt: skip
        if not _names_origin(Path(path), origin_key):
            continue
        if ImportJob.objects.filter(pk=pk, status=status).update(
                status=ImportJob.Status.CANCELLED, finished_at=timezone.now(),
                error="cancelled: the upload named an origin that was crypto-shredded, so it was deleted"):  # fmt: skip
            Path(path).unlink(missing_ok=True)


def _names_origin(path: Path, origin_key: str) -> bool:
    """Whether any line of the upload was written by `origin_key` (a missing file: yes, it cannot run)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return True
    with handle:
        for line in handle:
            try:
                obj = X.decode_line(line)
                if isinstance(obj, dict) and R.origin_from_created_by(obj.get("createdBy")).key == origin_key:
                    return True
            except (X.InterchangeError, R.OriginError):
                continue
    return False
