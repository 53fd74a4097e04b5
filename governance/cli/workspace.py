"""`tideline workspace create NAME --admin USER` and `tideline workspace list`.

A workspace nobody administers is invisible in the console (every page is for members), so create
insists on an admin: an existing user, or a new one with --create-user (password asked on a
terminal or read with --password-stdin). The admin is made its owner too, so they can use it.
"""

from __future__ import annotations

from django.db import transaction

from governance.cli.members import read_password
from governance.services import members
from governance.services.acting import Actor
from memory.cli.common import emit
from memory.services.errors import RequestError

HELP = "create a workspace with its admin (--admin USER), or list the workspaces and their members"
ACTOR = Actor.cli("workspace")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("create", "list"))
    parser.add_argument("name", nargs="?", help="create: the new workspace's name")
    parser.add_argument("--admin", metavar="USERNAME", help="create: who administers (and owns) it")
    parser.add_argument("--create-user", action="store_true", help="create: make the --admin user first")
    parser.add_argument("--email", default="", help="--create-user: the new user's e-mail")
    parser.add_argument("--password-stdin", action="store_true", help="--create-user: read the password from stdin")


def run(options: dict) -> None:
    if options["action"] == "list":
        rows = members.workspaces_with_roles()
        lines = [f"{ws.name:<32} revision {ws.revision:<8} " + ", ".join(f"{n} {r}{'s' if n != 1 else ''}"
                 for r, n in sorted(counts.items())) for ws, counts in rows]  # fmt: skip
        emit(options, {"workspaces": [{"name": ws.name, "revision": ws.revision, "members": counts} for ws, counts in rows]},
             "\n".join(lines) or "(no workspaces yet)")  # fmt: skip
        return
    name, admin = options.get("name"), options.get("admin")
    if not name:
        raise RequestError("workspace create needs a NAME", kind="validation")
    if not admin:
        raise RequestError("workspace create needs --admin USERNAME: a workspace nobody administers is invisible in the "
                           "console (add --create-user to make that user)", kind="validation")  # fmt: skip
    with transaction.atomic():  # a workspace that cannot be made leaves no new user behind
        if options.get("create_user"):
            members.create_user(admin, read_password(options), email=options.get("email", ""))
        workspace = members.create_workspace_for(name, admin, actor=ACTOR)
    emit(options, {"workspace": workspace.name, "admin": admin, "roles": ["owner", "admin"]},
         f"created workspace {workspace.name}; {admin} is its admin and owner")  # fmt: skip
