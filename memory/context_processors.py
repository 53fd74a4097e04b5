"""Template context every console page needs: the signed-in user's workspaces, for the switcher."""

from __future__ import annotations

from django.http import HttpRequest

from memory.models import Workspace


def workspaces(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    names = list(Workspace.objects.filter(memberships__user=user).distinct().order_by("name").values_list("name", flat=True))
    current = getattr(getattr(request, "resolver_match", None), "kwargs", {}).get("workspace")
    # The roles the view found when it fetched the workspace (memory.permissions), for the navigation.
    # The workspace page's section, from its path (/w/<workspace>/<section>/…): the navigation marks
    # it as the current page ("" is the overview).
    parts = request.path.split("/")
    section = parts[3] if len(parts) > 3 and parts[1] == "w" else None
    return {"my_workspaces": names, "current_workspace": current, "nav_section": section,
            "workspace_roles": getattr(request, "workspace_roles", frozenset())}
