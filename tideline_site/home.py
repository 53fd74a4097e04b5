"""The home page: what waits for the signed-in person across their workspaces (governance's inbox), and
their workspaces (memory's). The site composes both; neither app knows the page."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from governance.services import inbox
from memory.models import Membership, Workspace


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    chosen = request.GET.get("workspace", "")
    if chosen and Membership.objects.filter(user=request.user, workspace__name=chosen).exists():
        return redirect("memory:workspace-overview", chosen)  # the switcher, without JavaScript
    workspaces = (Workspace.objects.filter(memberships__user=request.user).distinct().order_by("name")
                  .annotate(fact_count=Count("facts", distinct=True)))  # fmt: skip
    roles: dict[int, list[str]] = defaultdict(list)
    for workspace_id, role in Membership.objects.filter(user=request.user).values_list("workspace_id", "role"):
        roles[workspace_id].append(role)
    waiting = inbox.waiting_for(request.user)
    inbox.total_waiting(request.user, known=waiting)  # kept for the top bar on the pages that follow
    by_workspace: dict[str, list] = defaultdict(list)
    for item in waiting:
        by_workspace[item.workspace].append(item)
    rows = [{"workspace": ws, "roles": sorted(roles[ws.pk]), "waiting": by_workspace.get(ws.name, []),
             "waiting_count": sum(item.count for item in by_workspace.get(ws.name, []))} for ws in workspaces]  # fmt: skip
    total = sum(item.count for item in waiting)
    return render(request, "home.html", {"rows": rows, "waiting_total": total, "inbox_total": total})


@require_GET
@login_required
def inbox_count(request: HttpRequest) -> HttpResponse:
    """The top bar's count on every other page, fetched after the page (htmx): a page's own queries stay
    its own, and without JavaScript the Inbox link still leads to the home page."""
    total = inbox.total_waiting(request.user)
    return HttpResponse(f'<span class="badge" title="things waiting for you">{total}</span>' if total else "<span></span>")
