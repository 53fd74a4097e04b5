"""In Chromium, an admin shreds one origin from the console (docs/ARCHITECTURE.md §8): choose it, read the preview,
type the confirmation, get the receipt; the origin's facts then read as shredded and recall finds none."""

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
    peer = PEERS[1]
    facts = Fact.objects.filter(workspace=demo.workspace, origin_key=peer.key)
    count, sample = facts.count(), facts.first()
    assert count and sample.is_readable
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/shred/")
    page.check(f"#shred-origins input[value='{peer.key}']")
    page.click(".shred-choose button[type=submit]")
    page.wait_for_selector("#shred-preview")
    assert f"{count}" in page.locator("#shred-preview").inner_text()
    screenshot(page, "shred-preview")
    page.fill("#shred-reason", "erasure request 42")
    page.fill("#shred-typed", "wrong")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".shred-confirm button[type=submit]")
    page.wait_for_selector("text=the confirmation did not match")
    assert not MemoryEvent.objects.filter(kind="shredded").exists()
    page.fill("#shred-typed", str(count))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".shred-confirm button[type=submit]")
    page.wait_for_selector("#messages .success")
    event = MemoryEvent.objects.get(kind="shredded")
    assert f"revision {event.revision}" in page.locator("#messages").inner_text()
    assert "erasure request 42" in page.locator(".shred-receipts").inner_text()
    screenshot(page, "shred-receipt")
    page.goto(f"{live_server.url}/w/demo/facts/{quote(sample.memory_id)}/")
    assert "Shredded" in page.locator(".fact-text").inner_text()
    page.goto(f"{live_server.url}/w/demo/recall/?q={quote(sample.content[:40])}&origin={quote(peer.key)}")
    page.wait_for_selector("#recall-results")
    assert sample.content not in page.locator("#recall-results").inner_text()


def test_an_owner_is_refused_the_page(live_server, page):
    load_demo()
    _login(page, live_server, "demo-owner")
    response = page.goto(f"{live_server.url}/w/demo/shred/")
    assert response.status == 403
