"""In Chromium, an admin hard-purges facts from the console (ENGINE-SPEC §6.1): choose them, read the preview,
type a wrong then the right confirmation, get the receipt; the facts are gone and recall finds none."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from memory.models import Fact, MemoryEvent
from memory.services.demo import DEMO_PASSWORD, PEERS, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _login(page, live_server, username):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def test_an_admin_previews_confirms_and_gets_a_receipt(live_server, page):
    registry.clear()
    demo = load_demo()
    peer = PEERS[0]
    facts = Fact.objects.filter(workspace=demo.workspace, origin_key=peer.key)
    chosen, sample = facts.count(), facts.first()
    assert chosen and sample.is_readable
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/facts/")
    page.click("nav.wsnav >> text=Governance")
    page.click("nav.wsnav >> text=Purge")
    page.select_option("#purge-origin", peer.key)
    page.check("input[name=mode][value=hard]")
    page.click(".purge-choose button[type=submit]")
    page.wait_for_selector("#purge-preview")
    count = int(page.locator("#purge-count").inner_text())
    assert count >= chosen and sample.memory_id in page.locator(".purge-facts").inner_text()
    screenshot(page, "purge-preview")
    page.fill("#purge-reason", "erasure request 42")
    page.fill("#purge-typed", str(count + 1))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".purge-confirm button[type=submit]")
    page.wait_for_selector("text=the confirmation did not match")
    assert not MemoryEvent.objects.filter(kind="purged").exists() and facts.count() == chosen
    assert page.locator("#purge-reason").input_value() == "erasure request 42"
    page.fill("#purge-typed", str(count))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".purge-confirm button[type=submit]")
    page.wait_for_selector("#messages .success")
    event = MemoryEvent.objects.get(kind="purged")
    assert f"revision {event.revision}" in page.locator("#messages").inner_text()
    receipts = page.locator(".purge-receipts").inner_text()
    assert "erasure request 42" in receipts and str(count) in receipts and sample.content[:30] not in receipts
    screenshot(page, "purge-receipt")
    assert not facts.exists()
    assert page.goto(f"{live_server.url}/w/demo/facts/{quote(sample.memory_id)}/").status in (404, 410)
    page.goto(f"{live_server.url}/w/demo/recall/?q={quote(sample.content[:40])}&origin={quote(peer.key)}")
    page.wait_for_selector("#recall-results")
    assert sample.content not in page.locator("#recall-results").inner_text()


def test_an_owner_is_refused_the_page(live_server, page):
    load_demo()
    _login(page, live_server, "demo-owner")
    assert page.goto(f"{live_server.url}/w/demo/purge/").status == 403
