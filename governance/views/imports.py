"""Console import (/w/<ws>/exports/import/), admins only: upload a facts.jsonl, read the per-line
preview (nothing changes yet), then import it, through the write path's gate or not. The import
runs in a django-q2 worker; its page shows a progress bar that refreshes itself until it is done.
A preview never confirmed expires after a day (each visit of the page deletes expired uploads).
"""

from __future__ import annotations

from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.forms import ImportConfirmForm, parsed
from governance.models import ImportJob
from governance.services import import_uploads, imports
from governance.services.acting import Actor
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from tideline_kit.htmx import wants_partial
from tideline_kit.wording import sentences

ADMINS = permissions.roles_for("import")


@login_required
def import_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    import_uploads.expire_previews()
    problem = ""
    if request.method == "POST":
        try:
            job = imports.receive(ws, request.FILES.get("file"), user=request.user, actor=Actor.person(request.user))
        except RequestError as error:
            problem = sentences(error.message, "Nothing was imported.")
        else:
            return redirect("governance:import-job", ws.name, job.pk)
    jobs = ImportJob.objects.filter(workspace=ws)[:20]
    return render(request, "governance/import.html", {"workspace": ws, "jobs": jobs, "problem": problem,
                                                      "max_mb": imports.MAX_BYTES // 1048576},
                  status=400 if problem else 200)  # fmt: skip


@login_required
def import_job(request: HttpRequest, workspace: str, job_id: int) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    job = ImportJob.objects.filter(workspace=ws, pk=job_id).first()
    if job is None:
        raise Http404("no such import")
    template = "governance/import_job.html" + ("#job-status" if wants_partial(request) else "")
    percent = int(100 * job.done / job.lines) if job.lines else (100 if job.status == "done" else 0)
    resumable = job.status == ImportJob.Status.FAILED and Path(job.path).exists()
    return render(request, template, {"workspace": ws, "job": job, "percent": min(percent, 100), "resumable": resumable,
                                      "refused": (job.report or job.preview).get("refused", [])})  # fmt: skip


def _job(request: HttpRequest, workspace: str, job_id: int):
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    job = ImportJob.objects.filter(workspace=ws, pk=job_id).first()
    if job is None:
        raise Http404("no such import")
    return ws, job


def _decision(request: HttpRequest, workspace: str, job_id: int, act) -> HttpResponse:
    ws, job = _job(request, workspace, job_id)
    try:
        said = act(job)
    except RequestError as error:
        messages.error(request, error.message)
    else:
        if said:
            messages.success(request, said)
    return redirect("governance:import-job", ws.name, job.pk)


@require_POST
@login_required
def import_confirm(request: HttpRequest, workspace: str, job_id: int) -> HttpResponse:
    """Import the previewed file, through the write path's gate or not."""
    def confirm(job) -> str:
        imports.confirm(job, gated=parsed(ImportConfirmForm, request.POST)["gated"], user=request.user)
        return ""  # the job page shows the progress

    return _decision(request, workspace, job_id, confirm)


@require_POST
@login_required
def import_cancel(request: HttpRequest, workspace: str, job_id: int) -> HttpResponse:
    def cancel(job) -> str:
        imports.cancel(job, user=request.user)
        return "Cancelled: nothing was imported and the upload was deleted."

    return _decision(request, workspace, job_id, cancel)


@require_POST
@login_required
def import_resume(request: HttpRequest, workspace: str, job_id: int) -> HttpResponse:
    def resume(job) -> str:
        imports.resume(job, user=request.user)
        return "Resumed: the lines already imported are skipped."

    return _decision(request, workspace, job_id, resume)


DECISIONS = {"cancel": import_cancel, "resume": import_resume}


@require_POST
@login_required
def import_decide(request: HttpRequest, workspace: str, job_id: int) -> HttpResponse:
    """The job page's former single form target: the button's `decision` names the verb."""
    return DECISIONS.get(request.POST.get("decision"), import_confirm)(request, workspace, job_id)
