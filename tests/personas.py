"""The people the tests log in as, made in one place.

The `personas` fixture (tests/conftest.py) gives the test workspace ("acme") its cast:

    owner     olga  owner of acme: reviews and curates memory (the same user as the `owner` fixture)
    approver  abe   approver of acme: gates self-improvement proposals
    admin     ada   admin of acme: export, purge, retention, shred, members, tokens
    outsider  otto  owner, approver and admin of another workspace ("globex"), nothing in acme
    stranger  sam   signed up, a member of no workspace

`personas["admin"]` is `personas.admin`, so a test parametrized by role reads `personas[role]`;
`personas.client_for(user)` is a test client logged in as that user. A test that needs someone else
(a user in two workspaces, a role in the other workspace) makes them with `make_user`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.test import Client

from memory.models import Membership, Workspace

ROLES = tuple(Membership.Role.values)  # owner, approver, admin
NAMES = {"owner": "olga", "approver": "abe", "admin": "ada", "outsider": "otto", "stranger": "sam"}


def password_of(username: str) -> str:
    """The password `make_user` gives a user unless told otherwise."""
    return f"pw-{username}-123"


def make_user(username: str, *roles: str, workspace: Workspace | None = None, password: str | None = None,
              **fields):  # fmt: skip
    """A console user holding `roles` in `workspace` (none: a member of no workspace)."""
    assert not roles or workspace is not None, "roles need a workspace"
    password = password or password_of(username)
    user = get_user_model().objects.create_user(username, password=password, **fields)
    for role in roles:
        Membership.objects.create(user=user, workspace=workspace, role=role)
    return user


def client_for(user) -> Client:
    """A fresh test client logged in as `user`."""
    client = Client()
    client.force_login(user)
    return client


@dataclass
class Personas:
    workspace: Workspace
    other_workspace: Workspace
    owner: object
    approver: object
    admin: object
    outsider: object
    stranger: object

    def __contains__(self, persona: str) -> bool:
        return persona in NAMES

    def __getitem__(self, persona: str):
        if persona not in NAMES:
            raise KeyError(persona)
        return getattr(self, persona)

    def client_for(self, user) -> Client:
        return client_for(user)


def cast(workspace: Workspace, other_workspace: Workspace, owner=None) -> Personas:
    """Everyone in the table above; `owner` is an already made owner of `workspace` (the `owner` fixture)."""
    return Personas(
        workspace=workspace,
        other_workspace=other_workspace,
        owner=owner or make_user(NAMES["owner"], "owner", workspace=workspace),
        approver=make_user(NAMES["approver"], "approver", workspace=workspace),
        admin=make_user(NAMES["admin"], "admin", workspace=workspace),
        outsider=make_user(NAMES["outsider"], *ROLES, workspace=other_workspace),
        stranger=make_user(NAMES["stranger"]),
    )
