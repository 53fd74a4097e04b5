"""Members (/w/<ws>/members/) and new workspaces (/workspaces/new/).

Every member may read who else is in the workspace and with which roles (an approver needs to know
who the owners are, and everyone who to ask for access); only admins change it, one view per change
(add, create, roles, remove). Removing a member asks for a confirmation first. Who may create a
workspace: superusers and anyone who administers one already
(`governance.services.members.may_create_workspace`); the creator becomes its admin and owner.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.forms import NAME_LIMIT, CleanText, MemberForm, WorkspaceCreateForm, parsed
from governance.services import members
from governance.services.acting import Actor
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from tideline_kit.wording import sentences


@login_required
def members_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each change has its own view
        return CHANGES.get(CleanText(NAME_LIMIT).clean(request.POST.get("action")), member_unknown)(request, workspace)
    return _page(request, get_workspace_for_user(request, workspace))


def _page(request: HttpRequest, ws, *, confirm_removal: str = "") -> HttpResponse:
    context = {"workspace": ws, "members": members.list_members(ws), "roles": members.ROLES,
               "can_change": permissions.allows(request.workspace_roles, "manage_members"),
               "confirm_removal": confirm_removal, "me": request.user.get_username()}  # fmt: skip
    return render(request, "governance/members.html", context)


def _change(request: HttpRequest, workspace: str, change) -> HttpResponse:
    """Check the role, read the form, make the change; the outcome is a message on the members page."""
    ws = get_workspace_for_user(request, workspace)
    if not permissions.allows(request.workspace_roles, "manage_members"):
        raise PermissionDenied("admins manage members")
    form = parsed(MemberForm, request.POST)
    try:
        outcome = change(ws, form, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        messages.error(request, sentences(error.message, "Nothing was changed."))
    else:
        if isinstance(outcome, HttpResponse):
            return outcome
        messages.success(request, outcome)
    return redirect("governance:members", ws.name)


@require_POST
@login_required
def member_add(request: HttpRequest, workspace: str) -> HttpResponse:
    def add(ws, form, **who) -> str:
        member = members.add_member(ws, form["username"], form["roles"], **who)
        return f"Added {member.username} as {', '.join(member.roles)}."

    return _change(request, workspace, add)


@require_POST
@login_required
def member_create(request: HttpRequest, workspace: str) -> HttpResponse:
    def create(ws, form, **who) -> str:
        member = members.create_member(ws, form["username"], form["password"], form["roles"], email=form["email"], **who)
        return f"Created the user {member.username} and added them as {', '.join(member.roles)}."

    return _change(request, workspace, create)


@require_POST
@login_required
def member_roles(request: HttpRequest, workspace: str) -> HttpResponse:
    def set_roles(ws, form, **who) -> str:
        username = form["username"]
        before, after = members.set_roles(ws, username, form["roles"], **who)
        if before == after:
            return f"{username} keeps the same roles."
        return f"{username} is now {', '.join(after)} (was {', '.join(before)})."

    return _change(request, workspace, set_roles)


@require_POST
@login_required
def member_remove(request: HttpRequest, workspace: str) -> HttpResponse:
    def remove(ws, form, **who):
        username = form["username"]
        if not form["confirmed"]:  # ask first: the page with the confirmation
            return _page(request, ws, confirm_removal=username)
        before = members.remove_member(ws, username, **who)
        return f"Removed {username} (was {', '.join(before)}) from {ws.name}. Their user account stays."

    return _change(request, workspace, remove)


def member_unknown(request: HttpRequest, workspace: str) -> HttpResponse:
    def unknown(ws, form, **who):
        raise RequestError("unknown action", kind="validation")

    return _change(request, workspace, unknown)


CHANGES = {"add": member_add, "create": member_create, "roles": member_roles, "remove": member_remove}


@login_required
def workspace_create(request: HttpRequest) -> HttpResponse:
    if not members.may_create_workspace(request.user):
        raise PermissionDenied("superusers and workspace admins create workspaces")
    name, problem = "", ""
    if request.method == "POST":
        name = parsed(WorkspaceCreateForm, request.POST)["name"]
        try:
            ws = members.create_workspace_for(name, request.user.get_username(),
                                              actor=str(Actor.person(request.user)))  # fmt: skip
        except RequestError as error:
            problem = sentences(error.message, "Nothing was created.")
        else:
            messages.success(request, f"Created the workspace {ws.name}; you are its admin and owner.")
            return redirect("governance:members", ws.name)
    return render(request, "governance/workspace_create.html", {"name": name, "problem": problem},
                  status=400 if problem else 200)  # fmt: skip
