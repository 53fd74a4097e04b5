"""The shred page (/w/<ws>/shred/): crypto-shred one origin, for admins only.

Choosing an origin (GET ?origin=) shows what becomes unreadable; the POST carries the typed
confirmation (the origin's key or its fact count), checked against a fresh preview by
`governance.services.shred.apply`. Owners and approvers get 403 (even for the preview: the page
exists to destroy data, and the counts per origin are the admin's business), outsiders 404. A shred
that was begun and stopped (its process killed before the receipt) is listed as unfinished, with a
button that finishes it (POST finish=1: no second confirmation, it was confirmed when begun).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize

from governance.services import shred
from memory.models import MemoryEvent
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError

ADMINS = ("admin",)
RECEIPTS = 20  # past shreds listed under the form
MAX_ORIGIN = 900  # the longest origin key a fact can have (Fact.origin_key)


@login_required
def shred_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    if request.method == "POST":
        return _apply(request, ws)
    return _page(request, ws, _origin(request.GET.get("origin")))


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


def _apply(request: HttpRequest, ws) -> HttpResponse:
    origin = _origin(request.POST.get("origin"))
    reason = request.POST.get("reason", "").replace("\x00", "").strip()[:1000]
    actor = f"user:{request.user.get_username()}"
    try:
        if request.POST.get("finish"):
            report = shred.finish(ws, origin, actor=actor)
        else:
            report = shred.apply(ws, origin, typed=request.POST.get("confirm", "")[:MAX_ORIGIN + 20], actor=actor,
                                 reason=reason)  # fmt: skip
    except RequestError as error:  # the same page again, the refusal on it, the reason kept
        return _page(request, ws, origin, problem=error.message, reason=reason)
    messages.success(request, (
        ("Finished the unfinished shred. " if report.finished_unfinished else "") + f"Shredded origin {report.label}: {report.facts:,} fact{pluralize(report.facts)} are now unreadable "
        f"tombstones, {report.vectors:,} vector{pluralize(report.vectors)} dropped, {report.review_items_closed} "
        f"review item{pluralize(report.review_items_closed)} closed. Receipt: the shredded event at revision "
        f"{report.revision}."
    ))
    return redirect("governance:shred", ws.name)


def _origin(value) -> str:
    """The origin asked for, or "" (a key with NUL bytes or beyond the column's length names no origin)."""
    value = (value or "").strip()
    return "" if "\x00" in value or len(value) > MAX_ORIGIN else value
