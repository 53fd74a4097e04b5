"""Who is acting in a governance service: the role check and the name events and records carry.

`user` is the signed-in person (console) or the member named by a CLI's `--as`; None is a trusted
caller (a scheduled task, a test of the engine's rules, a CLI run by the operator) acting as the
system under the `actor` string it gives.
"""

from __future__ import annotations

from memory.models import Workspace
from memory.permissions import roles_in
from memory.services.errors import RequestError


def require_role(user, workspace: Workspace, roles: tuple[str, ...], doing: str) -> None:
    """Refuse (forbidden) a person who holds none of `roles` in the workspace."""
    if user is None:
        return
    if not (roles_in(user, workspace) & set(roles)):
        raise RequestError(f"only {' or '.join(r + 's' for r in roles)} may {doing}", kind="forbidden")


def acting_name(user, actor: str) -> str:
    """The person's username, or the trusted caller's actor string."""
    return user.get_username() if user is not None else actor


def event_actor(name: str) -> str:
    """The event log's spelling of who acted. A person is `user:<username>`, as every console page and
    CLI verb writes it (usernames never hold a colon); a trusted caller's actor string (`cli:gold`,
    `task:proposals`, `worker:evaluation`) is kept as it is."""
    return name if not name or ":" in name else f"user:{name}"
