"""The services check the verb → roles table themselves: a person whose role may not do a verb is
refused by the service, whatever page or command called it; a trusted caller (no user) passes."""

from __future__ import annotations

import pytest

from governance.services import members, purge, retention, shred, tokens
from memory.services.errors import RequestError

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("call", [
    lambda ws, user: purge.apply(ws, purge.Selection.parse(facts=["mem_x"]), hard=False, typed="1", user=user,
                                 actor="user:olga"),
    lambda ws, user: shred.apply(ws, "owner", typed="owner", user=user, actor="user:olga"),
    lambda ws, user: retention.apply(ws, None, typed=ws.name, user=user, actor="user:olga"),
    lambda ws, user: tokens.revoke_token(ws, "nope", user=user, actor="user:olga"),
    lambda ws, user: members.remove_member(ws, "olga", user=user, actor="user:olga"),
])  # fmt: skip
def test_an_owner_is_refused_what_only_admins_do(workspace, owner, call):
    with pytest.raises(RequestError) as refused:
        call(workspace, owner)
    assert refused.value.kind == "forbidden" and refused.value.message.startswith("only admins may ")
