"""The shred page (/w/<ws>/shred/): crypto-shred one origin, for admins only.

Choosing an origin (GET ?origin=) shows what becomes unreadable; the POST carries the typed
confirmation (the origin's key or its fact count), checked against a fresh preview by
`governance.services.shred.apply`. Owners and approvers get 403 (even for the preview: the page
exists to destroy data, and the counts per origin are the admin's business), outsiders 404. A shred
that was begun and stopped (its process killed before the receipt) is listed as unfinished, with a
button that finishes it (its own POST: no second confirmation, it was confirmed when begun).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.forms import ShredForm, parsed, shred_origin
from governance.services import shred
from governance.services.acting import Actor
from governance.templatetags.origins import origin_words
from memory.models import MemoryEvent
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError

ADMINS = permissions.roles_for("shred")
RECEIPTS = 20  # past shreds listed under the form


@login_required
def shred_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target
        return (shred_finish if request.POST.get("finish") else shred_apply)(request, workspace)
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    return _page(request, ws, shred_origin(request.GET.get("origin")))


def _page(request: HttpRequest, ws, chosen: str, *, problem: str = "", reason: str = "") -> HttpResponse:
    origins = shred.origins(ws)
    preview = None
    if chosen:
        try:
            preview = shred.preview(ws, chosen)
        except RequestError as error:
            problem = problem or error.message
    events = MemoryEvent.objects.filter(workspace=ws, kind=MemoryEvent.Kind.SHREDDED)
    # The whole `data`: SQLite hands a key's text back through json.loads, which would turn a key
    # that reads as JSON into something else.
    shredded = {data.get("origin_key") for data in events.values_list("data", flat=True)}
    choices = [(key, label, count, key in shredded) for key, label, count in origins]
    return render(request, "governance/shred.html", {
        "workspace": ws, "origins": choices, "chosen": chosen, "preview": preview, "problem": problem,
        "reason": reason, "receipts": events.order_by("-revision")[:RECEIPTS], "unfinished": shred.unfinished(ws),
    })  # fmt: skip


@require_POST
@login_required
def shred_apply(request: HttpRequest, workspace: str) -> HttpResponse:
    """Shred one origin, the typed confirmation checked against a fresh preview."""
    return _shred(request, workspace, lambda ws, form, **who: shred.apply(
        ws, form["origin"], typed=form["confirm"], reason=form["reason"], **who))


@require_POST
@login_required
def shred_finish(request: HttpRequest, workspace: str) -> HttpResponse:
    """Finish a shred that was begun and stopped (it was confirmed when it was begun)."""
    return _shred(request, workspace, lambda ws, form, **who: shred.finish(ws, form["origin"], **who))


def _shred(request: HttpRequest, workspace: str, act) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    form = parsed(ShredForm, request.POST)
    try:
        report = act(ws, form, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:  # the same page again, the refusal on it, the reason kept
        return _page(request, ws, form["origin"], problem=error.message, reason=form["reason"])
    messages.success(request, (
        ("Finished the unfinished shred. " if report.finished_unfinished else "") + f"Shredded {origin_words(report.label)} ({report.label}): {report.facts:,} fact{pluralize(report.facts)} are now unreadable "
        f"tombstones, {report.vectors:,} vector{pluralize(report.vectors)} dropped, {report.review_items_closed} "
        f"review item{pluralize(report.review_items_closed)} closed. Receipt: the shredded event at revision "
        f"{report.revision}."
    ))
    return redirect("governance:shred", ws.name)

