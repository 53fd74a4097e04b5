"""Members (/w/<ws>/members/) and new workspaces (/workspaces/new/).

Every member may read who else is in the workspace and with which roles (an approver needs to know
who the owners are, and everyone who to ask for access); only admins change it. Removing a member
asks for a confirmation first. Who may create a workspace: superusers and anyone who administers
one already (`governance.services.members.may_create_workspace`); the creator becomes its admin and
owner.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from governance.services import members
from memory.permissions import get_workspace_for_user, roles_in
from memory.services.errors import RequestError

LIMIT = 200  # the longest value a form field takes (user names are at most 150)


@login_required
def members_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    can_change = "admin" in roles_in(request.user, ws)
    confirm_removal = ""
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("admins manage members")
        action, username = _field(request, "action"), _field(request, "username")
        if action == "remove" and request.POST.get("confirmed") != "yes":
            confirm_removal = username  # ask first: show the page with the confirmation
        else:
            try:
                messages.success(request, _apply(request, ws, action, username))
            except RequestError as error:
                messages.error(request, f"{error.message}. Nothing was changed.")
            return redirect("governance:members", ws.name)
    context = {"workspace": ws, "members": members.list_members(ws), "roles": members.ROLES, "can_change": can_change,
               "confirm_removal": confirm_removal, "me": request.user.get_username()}  # fmt: skip
    return render(request, "governance/members.html", context)


def _apply(request: HttpRequest, ws, action: str, username: str) -> str:
    actor = f"user:{request.user.get_username()}"
    roles = [r[:20] for r in request.POST.getlist("roles")][:5]
    if action == "add":
        member = members.add_member(ws, username, roles, actor=actor)
        return f"Added {member.username} as {', '.join(member.roles)}."
    if action == "create":
        member = members.create_member(ws, username, request.POST.get("password", "")[:LIMIT], roles, actor=actor,
                                       email=_field(request, "email"))  # fmt: skip
        return f"Created the user {member.username} and added them as {', '.join(member.roles)}."
    if action == "roles":
        before, after = members.set_roles(ws, username, roles, actor=actor)
        if before == after:
            return f"{username} keeps the same roles."
        return f"{username} is now {', '.join(after)} (was {', '.join(before)})."
    if action == "remove":
        before = members.remove_member(ws, username, actor=actor)
        return f"Removed {username} (was {', '.join(before)}) from {ws.name}. Their user account stays."
    raise RequestError("unknown action", kind="validation")


def _field(request: HttpRequest, name: str) -> str:
    return request.POST.get(name, "").replace("\x00", "").strip()[:LIMIT]


@login_required
def workspace_create(request: HttpRequest) -> HttpResponse:
    if not members.may_create_workspace(request.user):
        raise PermissionDenied("superusers and workspace admins create workspaces")
    name, problem = "", ""
    if request.method == "POST":
        name = _field(request, "name").lower()
        try:
            ws = members.create_workspace_for(name, request.user.get_username(),
                                              actor=f"user:{request.user.get_username()}")  # fmt: skip
        except RequestError as error:
            problem = f"{error.message}. Nothing was created."
        else:
            messages.success(request, f"Created the workspace {ws.name}; you are its admin and owner.")
            return redirect("governance:members", ws.name)
    return render(request, "governance/workspace_create.html", {"name": name, "problem": problem},
                  status=400 if problem else 200)  # fmt: skip
