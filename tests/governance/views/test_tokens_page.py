"""The console's API tokens page (docs/SECURITY.md): admins make a token (shown once), see its use, revoke it
after a confirmation; nobody else may."""

from __future__ import annotations

import pytest

from governance.models import ApiToken
from governance.services import tokens

pytestmark = pytest.mark.django_db


def test_an_admin_makes_a_token_that_is_shown_once_and_works(client, personas, workspace):
    client.force_login(personas.admin)
    page = client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "bot", "origin": "channel:slack/*",
                                                        "verbs": ["read", "write"], "clearance": "INTERNAL", "expires": "30"})  # fmt: skip
    body = page.content.decode()
    secret = body.split('id="new-token-value">')[1].split("<")[0]
    assert secret.startswith("tl_") and "only time it is shown" in body
    assert tokens.authenticate(secret).scope.label == "channel:slack/*"
    again = client.get(f"/w/{workspace.name}/tokens/").content.decode()
    assert secret not in again and "bot" in again and "channel:slack/*" in again
    assert page["Cache-Control"].startswith("max-age=0")


def test_a_bad_token_form_says_why_and_makes_nothing(client, personas, workspace):
    client.force_login(personas.admin)
    body = client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "bot", "origin": "slack",
                                                        "verbs": ["read"]}, follow=True).content.decode()  # fmt: skip
    assert "No token was made" in body and "channel:C/V/S" in body and not ApiToken.objects.exists()


def test_revoking_asks_first(client, personas, workspace):
    tokens.create_token(workspace, name="bot", origin="owner", verbs="read", actor="t")
    client.force_login(personas.admin)
    asked = client.post(f"/w/{workspace.name}/tokens/", {"action": "revoke", "name": "bot"}).content.decode()
    assert 'id="confirm-revoke"' in asked and ApiToken.objects.get().revoked_at is None
    client.post(f"/w/{workspace.name}/tokens/", {"action": "revoke", "name": "bot", "confirmed": "yes"})
    assert ApiToken.objects.get().revoked_at is not None


@pytest.mark.parametrize("role", ["owner", "approver"])
def test_only_admins_may(client, personas, workspace, role):
    client.force_login(personas[role])
    assert client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "x", "origin": "owner",
                                                        "verbs": ["read"]}).status_code == 403  # fmt: skip
    assert not ApiToken.objects.exists()
