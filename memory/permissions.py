"""Checked lookups: every view starts by fetching what it shows through one of these."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404

from memory.models import Membership, Workspace


def roles_in(user, workspace: Workspace) -> set[str]:
    return set(Membership.objects.filter(user=user, workspace=workspace).values_list("role", flat=True))


def get_workspace_for_user(request, name: str, *, roles: tuple[str, ...] = ("owner", "approver", "admin")) -> Workspace:
    """The workspace if the user is a member (404 otherwise, so outsiders learn nothing), 403 if the role is wrong."""
    workspace = Workspace.objects.filter(name=name, memberships__user=request.user).distinct().first()
    if workspace is None:
        raise Http404("no such workspace")
    held = roles_in(request.user, workspace)
    # The page's navigation shows role-specific links from these, without asking again.
    request.workspace_roles = frozenset(held)
    if not held & set(roles):
        raise PermissionDenied("your role does not allow this")
    return workspace
