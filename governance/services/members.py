"""Members of a workspace and who may do what: add, create, change roles, remove, create workspaces.

A membership row is one (user, workspace, role); a user may hold several roles. Every change is one
mutation of the workspace with a `members_changed` event (who, roles before and after; never a
password), taken under the workspace's row lock, so two admins demoting each other at once cannot
both succeed: the last admin is never removed or demoted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Min

from governance.services.acting import Actor, actor_text, require_role
from memory.models import Membership, Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.mutation import mutate
from memory.services.workspaces import create_workspace
from tideline_kit import telemetry

ROLES = ("owner", "approver", "admin")
USERNAME_MAX = 150


@dataclass(frozen=True)
class Member:
    username: str
    email: str
    roles: tuple[str, ...]
    since: datetime

    def to_dict(self) -> dict:
        return {"username": self.username, "email": self.email, "roles": list(self.roles), "since": self.since.isoformat()}


def list_members(workspace: Workspace) -> list[Member]:
    """Every member with their roles (in ROLES order), by username."""
    rows = (Membership.objects.filter(workspace=workspace).values("user__username", "user__email", "role")
            .annotate(since=Min("created_at")).order_by("user__username"))  # fmt: skip
    found: dict[str, dict] = {}
    for row in rows:
        entry = found.setdefault(row["user__username"], {"email": row["user__email"], "roles": set(), "since": row["since"]})
        entry["roles"].add(row["role"])
        entry["since"] = min(entry["since"], row["since"])
    return [Member(name, e["email"], _ordered(e["roles"]), e["since"]) for name, e in found.items()]


def member(workspace: Workspace, username: str) -> Member | None:
    return next((m for m in list_members(workspace) if m.username == username), None)


@telemetry.operation("governance.member.add")
def add_member(workspace: Workspace, username: str, roles: Iterable[str], *, user=None, actor: str) -> Member:
    """Give an existing user roles in the workspace; refused if they are a member already."""
    require_role(user, workspace, "manage_members", "manage members")
    actor = actor_text(actor)
    wanted = _roles(roles)
    user = _user(username)
    with mutate(workspace, actor=actor) as m:
        if Membership.objects.filter(workspace=m.workspace, user=user).exists():
            raise RequestError(f"{username!r} is already a member of {workspace.name!r}: change their roles instead",
                               kind="conflict")  # fmt: skip
        Membership.objects.bulk_create([Membership(user=user, workspace=m.workspace, role=r) for r in wanted])
        m.record("members_changed", change="added", username=user.get_username(), before=[], after=list(wanted))
    return member(workspace, user.get_username())


def create_member(workspace: Workspace, username: str, password: str, roles: Iterable[str], *, user=None, actor: str,
                  email: str = "") -> Member:  # fmt: skip
    """Create a user (password checked by the site's password validators) and add them with `roles`."""
    require_role(user, workspace, "manage_members", "manage members")
    actor = actor_text(actor)
    wanted = _roles(roles)
    with transaction.atomic():
        user = create_user(username, password, email=email)
        username = user.get_username()
        with mutate(workspace, actor=actor) as m:
            Membership.objects.bulk_create([Membership(user=user, workspace=m.workspace, role=r) for r in wanted])
            m.record("members_changed", change="created", username=username, before=[], after=list(wanted))
    return member(workspace, username)


def create_user(username: str, password: str, *, email: str = ""):
    """A new user account: the name checked like Django's, the password by the site's validators."""
    username = _username(username)
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        raise RequestError(f"a user named {username!r} exists already: add them as an existing user", kind="conflict")
    try:
        validate_password(password, User(username=username, email=email))
    except ValidationError as error:
        raise RequestError("the password is not accepted: " + " ".join(error.messages), kind="validation") from error
    return User.objects.create_user(username=username, email=email, password=password)


@telemetry.operation("governance.member.set_roles")
def set_roles(workspace: Workspace, username: str, roles: Iterable[str], *, user=None, actor: str) -> tuple[tuple, tuple]:
    """Replace a member's roles; returns (before, after). The last admin keeps the admin role."""
    require_role(user, workspace, "manage_members", "manage members")
    actor = actor_text(actor)
    wanted = _roles(roles)
    user = _user(username)
    with mutate(workspace, actor=actor) as m:
        before = _held(m.workspace, user)
        if not before:
            raise NotFoundError(f"{username!r} is not a member of {workspace.name!r}")
        if "admin" in before and "admin" not in wanted:
            _refuse_last_admin(m.workspace, user, "take the admin role from")
        if set(before) != set(wanted):
            Membership.objects.filter(workspace=m.workspace, user=user).exclude(role__in=wanted).delete()
            Membership.objects.bulk_create([Membership(user=user, workspace=m.workspace, role=r)
                                            for r in wanted if r not in before])  # fmt: skip
            m.record("members_changed", change="roles", username=username, before=list(before), after=list(wanted))
    return before, wanted


@telemetry.operation("governance.member.remove")
def remove_member(workspace: Workspace, username: str, *, user=None, actor: str) -> tuple[str, ...]:
    """Remove a member from the workspace (the user account stays); returns the roles they had."""
    require_role(user, workspace, "manage_members", "manage members")
    actor = actor_text(actor)
    user = _user(username)
    with mutate(workspace, actor=actor) as m:
        before = _held(m.workspace, user)
        if not before:
            raise NotFoundError(f"{username!r} is not a member of {workspace.name!r}")
        if "admin" in before:
            _refuse_last_admin(m.workspace, user, "remove")
        Membership.objects.filter(workspace=m.workspace, user=user).delete()
        m.record("members_changed", change="removed", username=username, before=list(before), after=[])
    return before


def may_create_workspace(user) -> bool:
    """Superusers, and anyone who administers a workspace already, may create one."""
    return bool(user.is_authenticated and (user.is_superuser or Membership.objects.filter(user=user, role="admin").exists()))


def create_workspace_for(name: str, username: str, *, actor: Actor | str) -> Workspace:
    """A new workspace administered (and owned) by `username`, so it is never invisible in the console."""
    actor = actor_text(actor)
    user = _user(username)
    if Workspace.objects.filter(name=name).exists():
        raise RequestError(f"a workspace named {name!r} exists already", kind="conflict")
    with transaction.atomic():
        workspace = create_workspace(name, actor=actor)
        with mutate(workspace, actor=actor) as m:
            Membership.objects.bulk_create([Membership(user=user, workspace=m.workspace, role=r) for r in ("owner", "admin")])
            m.record("members_changed", change="added", username=user.get_username(), before=[], after=["owner", "admin"])
    return workspace


def workspaces_with_roles() -> list[tuple[Workspace, dict[str, int]]]:
    """Every workspace with how many members hold each role (for `tideline workspace list`)."""
    counts: dict[int, dict[str, int]] = {}
    for ws_id, role in Membership.objects.values_list("workspace_id", "role"):
        counts.setdefault(ws_id, {}).setdefault(role, 0)
        counts[ws_id][role] += 1
    return [(ws, counts.get(ws.pk, {})) for ws in Workspace.objects.order_by("name")]


# ---------------------------------------------------------------- checks


def _roles(roles: Iterable[str]) -> tuple[str, ...]:
    chosen = {str(r).strip().lower() for r in roles if str(r).strip()}
    unknown = chosen - set(ROLES)
    if unknown:
        raise RequestError(f"unknown role {', '.join(sorted(unknown))!s}: one or more of {', '.join(ROLES)}", kind="validation")
    if not chosen:
        raise RequestError(f"choose at least one role ({', '.join(ROLES)}); to take every role away, remove the member",
                           kind="validation")  # fmt: skip
    return _ordered(chosen)


def _ordered(roles) -> tuple[str, ...]:
    return tuple(r for r in ROLES if r in roles)


def _username(username: str) -> str:
    name = (username or "").strip()
    if not name or len(name) > USERNAME_MAX or "\x00" in name:
        raise RequestError(f"a user name is 1 to {USERNAME_MAX} characters", kind="validation")
    field = get_user_model()._meta.get_field("username")
    try:
        for validator in field.validators:
            validator(name)
    except ValidationError as error:
        raise RequestError(f"invalid user name {name!r}: " + " ".join(error.messages), kind="validation") from error
    return name


def _user(username: str):
    name = (username or "").strip()
    user = get_user_model().objects.filter(username=name).first() if name and "\x00" not in name else None
    if user is None:
        raise NotFoundError(f"no user named {name!r} (create them, or check the spelling)")
    return user


def _held(workspace: Workspace, user) -> tuple[str, ...]:
    return _ordered(set(Membership.objects.filter(workspace=workspace, user=user).values_list("role", flat=True)))


def _refuse_last_admin(workspace: Workspace, user, verb: str) -> None:
    others = Membership.objects.filter(workspace=workspace, role="admin").exclude(user=user).count()
    if not others:
        raise RequestError(f"cannot {verb} {user.get_username()!r}: they are the last admin of {workspace.name!r}; "
                           "make someone else an admin first", kind="last_admin")  # fmt: skip
