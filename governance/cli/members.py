"""`tideline members list|add|remove|roles --workspace W` — who is in a workspace, with which roles.

`add --user U --role R [--role R2] [--create]` adds an existing user (with --create, makes the user
first: the password is asked on a terminal, or read from stdin with --password-stdin); `roles
--user U --role R …` replaces their roles; `remove --user U` takes them out (the account stays).
The last admin is never removed or demoted. Changes are recorded as `cli:members`, or as the admin
named by --as (checked).
"""

from __future__ import annotations

import getpass
import sys

from governance.engine import permissions
from governance.services import members
from governance.services.acting import Actor, member_roles
from memory.cli.common import emit
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = "list a workspace's members, add or create one, change their roles, or remove them (never the last admin)"
ACTOR = Actor.cli("members")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("list", "add", "remove", "roles"))
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--user", metavar="USERNAME", help="add/remove/roles: the member")
    parser.add_argument("--role", action="append", choices=members.ROLES, default=[],
                        help="add/roles: a role (repeat for several)")  # fmt: skip
    parser.add_argument("--create", action="store_true", help="add: create the user first")
    parser.add_argument("--email", default="", help="add --create: the new user's e-mail")
    parser.add_argument("--password-stdin", action="store_true", help="add --create: read the password from stdin")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME", help="act as this member (must be an admin)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    if action == "list":
        found = members.list_members(workspace)
        lines = [f"{m.username:<24} {', '.join(m.roles):<24} since {m.since:%Y-%m-%d}" for m in found]
        emit(options, {"workspace": workspace.name, "members": [m.to_dict() for m in found]},
             "\n".join(lines) or "(no members: add an admin with tideline members add --role admin)")  # fmt: skip
        return
    actor = _actor(workspace, options.get("as_user"))
    user = options.get("user")
    if not user:
        raise RequestError(f"members {action} needs --user USERNAME", kind="validation")
    if action == "remove":
        before = members.remove_member(workspace, user, actor=actor)
        emit(options, {"workspace": workspace.name, "removed": user, "roles_before": list(before)},
             f"removed {user} ({', '.join(before)}) from {workspace.name}; the user account stays")  # fmt: skip
        return
    if not options["role"]:
        raise RequestError(f"members {action} needs at least one --role ({', '.join(members.ROLES)})", kind="validation")
    if action == "roles":
        before, after = members.set_roles(workspace, user, options["role"], actor=actor)
        emit(options, {"workspace": workspace.name, "user": user, "before": list(before), "after": list(after)},
             f"{user} is now {', '.join(after)} in {workspace.name} (was {', '.join(before)})")  # fmt: skip
        return
    if options.get("create"):
        member = members.create_member(workspace, user, read_password(options), options["role"], actor=actor,
                                       email=options.get("email", ""))  # fmt: skip
    else:
        member = members.add_member(workspace, user, options["role"], actor=actor)
    emit(options, {"workspace": workspace.name, "member": member.to_dict(), "created": bool(options.get("create"))},
         f"{'created and ' if options.get('create') else ''}added {member.username} to {workspace.name} as "
         f"{', '.join(member.roles)}")  # fmt: skip


def read_password(options: dict) -> str:
    """The new user's password: from stdin with --password-stdin, else asked twice on a terminal."""
    if options.get("password_stdin"):
        password = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty() and not options.get("json"):
        password = getpass.getpass("Password for the new user: ")
        if getpass.getpass("Again: ") != password:
            raise RequestError("the two passwords differ; nothing was changed", kind="validation")
    else:
        raise RequestError("no terminal to ask for the new user's password on: pass --password-stdin and pipe it in",
                           kind="validation")  # fmt: skip
    if not password:
        raise RequestError("the password is empty; nothing was changed", kind="validation")
    return password


def _actor(workspace, username: str | None) -> Actor:
    if not username:
        return ACTOR
    if not permissions.allows(member_roles(workspace, username), "manage_members"):
        raise RequestError(f"{username!r} may not manage members of {workspace.name!r}: admins only", kind="forbidden")
    return Actor("user", username)
