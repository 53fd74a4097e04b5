"""Who is acting in a governance service: the role check and the name events and records carry.

`user` is the signed-in person (console) or the member named by a CLI's `--as`; None is a trusted
caller (a scheduled task, a test of the engine's rules, a CLI run by the operator) acting as the
system under the `actor` it gives. Which roles may do which verb is one table,
`governance.engine.permissions.VERB_ROLES`; `require_role` is the one place a service checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from governance.engine import permissions
from memory.models import Membership, Workspace
from memory.permissions import roles_in
from memory.services.errors import RequestError


@dataclass(frozen=True)
class Actor:
    """Who acted, as the event log spells it: `str(Actor("user", "ada"))` is "user:ada",
    `str(Actor("cli", "shred"))` is "cli:shred". Kinds: user (a person), cli (the operator's command
    line), api (an agent's token), task (a scheduled task), worker (a background job); an empty kind
    is a caller's own string kept as it is (tests and engine callers name themselves freely)."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}" if self.kind else self.name

    @classmethod
    def person(cls, user) -> Actor:
        """A signed-in person (or the member a CLI's `--as` names)."""
        return cls("user", user.get_username())

    @classmethod
    def cli(cls, command: str) -> Actor:
        return cls("cli", command)

    @classmethod
    def of(cls, value: Actor | str) -> Actor:
        """An actor from its event-log string ("user:ada" → Actor("user", "ada")), or itself."""
        if isinstance(value, Actor):
            return value
        kind, sep, name = str(value).partition(":")
        return cls(kind, name) if sep else cls("", kind)


def actor_text(actor: Actor | str) -> str:
    """The event log's string for an actor (services store and compare strings)."""
    return str(actor)


def require_role(user, workspace: Workspace, verb: str, doing: str) -> None:
    """Refuse (forbidden) a person who holds none of the roles the verb needs in the workspace
    ("only owners or admins may `doing`"); a trusted caller (user None) passes."""
    if user is None:
        return
    if not permissions.allows(roles_in(user, workspace), verb):
        raise RequestError(permissions.refusal(verb, doing), kind="forbidden")


def member_roles(workspace: Workspace, username: str) -> set[str]:
    """The roles a user (by name) holds in the workspace: empty for a non-member (the CLI's `--as`)."""
    return set(Membership.objects.filter(workspace=workspace, user__username=username).values_list("role", flat=True))


def acting_name(user, actor: Actor | str) -> str:
    """The person's username, or the trusted caller's actor string (a person's actor by their name)."""
    if user is not None:
        return user.get_username()
    if isinstance(actor, Actor) and actor.kind == "user":
        return actor.name
    return str(actor)


def event_actor(name: Actor | str) -> str:
    """The event log's spelling of who acted. A person is `user:<username>`, as every console page and
    CLI verb writes it (usernames never hold a colon); a trusted caller's actor string (`cli:gold`,
    `task:proposals`, `worker:evaluation`) is kept as it is."""
    name = str(name)
    return name if not name or ":" in name else f"user:{name}"


def row_id(value: Any, noun: str) -> int:
    """A row's id as a person or a command line gives it ("7" or "#7"); not_found when it cannot be one."""
    try:
        pk = int(str(value).lstrip("#"))
        if not 0 < pk < 2**31:
            raise ValueError(pk)
    except (TypeError, ValueError):
        raise RequestError(f"no {noun} {value!r}: {noun} ids are numbers", kind="not_found") from None
    return pk
