from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memory.models import Fact, Workspace
from memory.permissions import get_workspace_for_user


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    workspaces = (
        Workspace.objects.filter(memberships__user=request.user)
        .distinct()
        .annotate(fact_count=Count("facts", distinct=True))
    )
    return render(request, "memory/home.html", {"workspaces": workspaces})


@require_GET
@login_required
def workspace_overview(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    facts = Fact.objects.filter(workspace=ws)
    by_segment = facts.values("segment").annotate(n=Count("id")).order_by("segment")
    by_lifecycle = facts.values("lifecycle").annotate(n=Count("id")).order_by("lifecycle")
    page = Paginator(facts.order_by("-created_at", "-id"), 50).get_page(request.GET.get("page"))
    return render(
        request,
        "memory/workspace_overview.html",
        {"workspace": ws, "by_segment": by_segment, "by_lifecycle": by_lifecycle, "page": page},
    )
