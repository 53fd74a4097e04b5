"""The home page: what waits for the signed-in person across their workspaces (governance's inbox), and
their workspaces (memory's). The site composes both; neither app knows the page."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth.decorators import login_required
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from governance.services import inbox
from memory.models import Fact, Workspace


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    roles = inbox.memberships(request.user)
    chosen = request.GET.get("workspace", "")
    if chosen and chosen in {name for name, _ in roles.values()}:
        return redirect("memory:workspace-overview", chosen)  # the switcher, without JavaScript
    # Each workspace's facts counted on their own (an index-only count per workspace): joined through
    # the memberships, a person with three roles in fifty workspaces had every fact counted three
    # times and then made distinct (10 ms of the page with a 50,000-fact workspace among them).
    facts = Fact.objects.filter(workspace=OuterRef("pk")).order_by().values("workspace").annotate(n=Count("*"))
    workspaces = (Workspace.objects.filter(pk__in=list(roles)).order_by("name")
                  .annotate(fact_count=Coalesce(Subquery(facts.values("n")), 0)))  # fmt: skip
    waiting = inbox.waiting_for(request.user, roles=roles)
    inbox.total_waiting(request.user, known=waiting)  # kept for the top bar on the pages that follow
    by_workspace: dict[str, list] = defaultdict(list)
    for item in waiting:
        by_workspace[item.workspace].append(item)
    rows = [{"workspace": ws, "roles": sorted(roles[ws.pk][1]), "waiting": by_workspace.get(ws.name, []),
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
