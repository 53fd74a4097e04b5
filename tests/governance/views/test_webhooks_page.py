"""The console's webhooks page: admins add one (its secret shown once), send a test call and see it in
the log, pause, rotate and remove after a confirmation; nobody else may."""

from __future__ import annotations

import pytest

from governance.models import Webhook, WebhookDelivery
from governance.services import webhooks
from tests.governance.services.test_webhooks import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(settings):
    settings.TIDELINE_WEBHOOKS_ALLOW_PRIVATE = True
    found = Receiver()
    yield found
    found.server.shutdown()


def test_an_admin_adds_a_webhook_tests_it_and_sees_the_call(client, personas, workspace, receiver):
    client.force_login(personas.admin)
    page = client.post(f"/w/{workspace.name}/webhooks/add/", {"url": receiver.url, "events": ["purge", "shred"]})
    body = page.content.decode()
    secret = body.split('id="new-secret-value">')[1].split("<")[0]
    assert secret.startswith("whsec_") and "only time it is shown" in body
    hook = Webhook.objects.get()
    assert hook.events == ["purge", "shred"] and hook.secret == secret
    assert secret not in client.get(f"/w/{workspace.name}/webhooks/").content.decode()

    tested = client.post(f"/w/{workspace.name}/webhooks/ping/", {"webhook": hook.pk}, follow=True).content.decode()
    assert "The test call was answered with 200" in tested
    assert receiver.documents()[0]["event"] == "ping"
    assert "delivered" in tested and 'id="delivery-table"' in tested


def test_a_refused_url_says_why_and_adds_nothing(client, personas, workspace, settings):
    settings.TIDELINE_WEBHOOKS_ALLOW_PRIVATE = False
    client.force_login(personas.admin)
    body = client.post(f"/w/{workspace.name}/webhooks/add/", {"url": "http://127.0.0.1:8000/x", "events": ["purge"]})
    text = body.content.decode()
    assert "No webhook was added" in text and "loopback" in text and not Webhook.objects.exists()
    assert 'value="http://127.0.0.1:8000/x"' in text  # what was typed is kept


def test_remove_and_rotate_ask_first_pause_does_not(client, personas, workspace, receiver):
    hook, secret = webhooks.add(workspace, url=receiver.url, events=["purge"], actor="admin")
    webhooks.emit(workspace, "purge", facts=1, hard=True)
    client.force_login(personas.admin)
    url = f"/w/{workspace.name}/webhooks/change/"
    asked = client.post(url, {"webhook": hook.pk, "action": "remove"}).content.decode()
    assert 'id="confirm-webhook"' in asked and Webhook.objects.exists()
    asked = client.post(url, {"webhook": hook.pk, "action": "rotate"}).content.decode()
    assert 'id="confirm-webhook"' in asked and Webhook.objects.get().secret == secret
    rotated = client.post(url, {"webhook": hook.pk, "action": "rotate", "confirmed": "yes"}).content.decode()
    assert Webhook.objects.get().secret in rotated and Webhook.objects.get().secret != secret
    client.post(url, {"webhook": hook.pk, "action": "pause"})
    assert Webhook.objects.get().active is False
    client.post(url, {"webhook": hook.pk, "action": "remove", "confirmed": "yes"})
    assert not Webhook.objects.exists() and not WebhookDelivery.objects.exists()
    gone = client.post(url, {"webhook": hook.pk, "action": "pause"}, follow=True).content.decode()
    assert "has no webhook" in gone


@pytest.mark.parametrize("persona", ["owner", "approver"])
def test_only_admins_manage_webhooks(client, personas, workspace, persona, receiver):
    hook, _ = webhooks.add(workspace, url=receiver.url, events=["purge"], actor="admin")
    client.force_login(getattr(personas, persona))
    assert client.get(f"/w/{workspace.name}/webhooks/").status_code == 403
    for verb, data in (("add", {"url": receiver.url, "events": ["purge"]}), ("change", {"webhook": hook.pk, "action": "remove", "confirmed": "yes"}),
                       ("ping", {"webhook": hook.pk})):  # fmt: skip
        assert client.post(f"/w/{workspace.name}/webhooks/{verb}/", data).status_code == 403
    assert Webhook.objects.count() == 1 and not WebhookDelivery.objects.exists()
