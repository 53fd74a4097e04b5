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


def _form_of(body: str) -> str:
    return body.split('id="token-form"')[1].split("</form>")[0]


def test_a_new_token_starts_at_the_least_clearance(client, personas, workspace):
    client.force_login(personas.admin)
    form = _form_of(client.get(f"/w/{workspace.name}/tokens/").content.decode())
    assert '<option value="PUBLIC" selected>' in form and '<option value="PII" selected>' not in form
    assert '<input type="checkbox" name="verbs" value="read" checked>' in form
    assert 'value="write" checked' not in form and 'value="manage" checked' not in form
    made = client.post(f"/w/{workspace.name}/tokens/", {"action": "create", "name": "bot", "origin": "owner",
                                                        "verbs": ["read"], "clearance": "PUBLIC"})  # fmt: skip
    assert made.status_code == 200 and ApiToken.objects.get(name="bot").clearance == "PUBLIC"


def test_acts_as_offers_the_workspaces_origins_and_other(client, personas, workspace):
    from memory.engine.facts import records as R
    from memory.tideline import Tideline

    peer = R.Origin("channel", "slack", "C7", "s1", "T01ACME")
    Tideline(workspace).add("The user likes trams.", segment="preference", origin=peer)
    client.force_login(personas.admin)
    form = _form_of(client.get(f"/w/{workspace.name}/tokens/").content.decode())
    acts_as = form.split('<select name="origin"')[1].split("</select>")[0]
    assert '<option value="owner" selected>the owner</option>' in acts_as
    assert '<option value="channel:slack/*" >any peer on slack</option>' in acts_as
    assert f'<option value="{peer.label()}" >slack · C7 · s1 · T01ACME</option>' in acts_as
    assert '<option value="other" >' in acts_as and 'name="origin_other"' in form
    assert 'list="token-origins"' not in form  # no free text as the main way in


def test_other_takes_the_typed_origin_and_the_service_still_checks_it(client, personas, workspace):
    client.force_login(personas.admin)
    url = f"/w/{workspace.name}/tokens/create/"
    made = client.post(url, {"name": "relay", "origin": "other", "origin_other": "channel:teams/*", "verbs": ["read"]})
    assert tokens.authenticate(made.content.decode().split('id="new-token-value">')[1].split("<")[0]).scope.label == "channel:teams/*"
    refused = client.post(url, {"name": "bad", "origin": "other", "origin_other": "teams", "verbs": ["read"]}, follow=True)
    body = refused.content.decode()
    assert "No token was made" in body and not ApiToken.objects.filter(name="bad").exists()
    # What was typed comes back under "other…", ready to correct.
    assert '<option value="other" selected>' in body and 'value="teams"' in body
    empty = client.post(url, {"name": "none", "origin": "other", "origin_other": "", "verbs": ["read"]}, follow=True)
    assert "No token was made" in empty.content.decode() and not ApiToken.objects.filter(name="none").exists()
    forged = client.post(url, {"name": "forged", "origin": "channel:x/y/z/w", "verbs": ["read"]}, follow=True)
    assert "No token was made" in forged.content.decode() and not ApiToken.objects.filter(name="forged").exists()


def test_the_new_token_has_a_copy_button_for_its_secret(client, personas, workspace):
    client.force_login(personas.admin)
    body = client.post(f"/w/{workspace.name}/tokens/create/", {"name": "bot", "origin": "owner", "verbs": ["read"]}).content.decode()
    assert '<pre class="context" id="new-token-value">tl_' in body
    assert '<button type="button" class="copy" data-copy-target="new-token-value" hidden>Copy</button>' in body


def test_every_date_on_the_page_has_the_consoles_format(client, personas, workspace):
    from datetime import UTC, datetime

    row, _ = tokens.create_token(workspace, name="bot", origin="owner", verbs="read", expires_days=30, actor="t")
    used = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
    ApiToken.objects.filter(pk=row.pk).update(last_used_at=used)
    row.refresh_from_db()
    client.force_login(personas.admin)
    table = client.get(f"/w/{workspace.name}/tokens/").content.decode().split('id="token-table"')[1].split("</table>")[0]
    assert '<time datetime="2026-03-04T05:06:07.890123+00:00">2026-03-04 05:06</time>' in table
    made = row.created_at.strftime("%Y-%m-%d %H:%M")
    assert f">{made}</time> by t" in table and f">{row.expires_at.strftime('%Y-%m-%d %H:%M')}</time>" in table
    assert "2026-03-04T05:06:07" not in table.replace('datetime="2026-03-04T05:06:07', "")  # no raw ISO shown


def test_the_long_explanations_are_folded_behind_help(client, personas, workspace):
    client.force_login(personas.admin)
    body = client.get(f"/w/{workspace.name}/tokens/").content.decode()
    assert body.count('<details class="help">') == 2
    visible = body.split('id="token-form"')[1]
    assert "tool pipeline" not in visible  # the explanation of "Writes as" sits in the help, above the form
    assert "tideline mcp --token" in body.split('<details class="help">')[1]
