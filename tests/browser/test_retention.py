"""In Chromium, an admin adds a retention policy from the console (ENGINE-SPEC §6.2), reads what it would take
now, applies it with a typed confirmation and finds the run listed; an owner reads the page only."""

from __future__ import annotations

import pytest

from governance.models import RetentionPolicy
from governance.services import retention
from memory.models import Fact, MemoryEvent
from memory.services.demo import DEMO_PASSWORD, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _login(page, live_server, username):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def test_an_admin_creates_previews_and_applies_a_policy(live_server, page):
    registry.clear()
    demo = load_demo()
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/")
    page.click("nav.wsnav >> text=Governance")
    page.click("nav.wsnav >> text=Retention")
    page.wait_for_selector("#retention-form")
    # A policy with nothing in scope is refused on the page, and nothing is saved.
    page.fill("#rp-name", "old context")
    page.fill("#rp-age", "1")
    page.select_option("select[name=age_unit]", "h")
    page.click("#retention-form button[type=submit]")
    page.wait_for_selector("text=no scope would expire every fact")
    assert not RetentionPolicy.objects.exists()
    page.check("input[name=segments][value=context]")
    page.click("#retention-form button[type=submit]")
    page.wait_for_selector("#retention-preview")
    policy = RetentionPolicy.objects.get()
    (expected,) = retention.preview(demo.workspace, policy.pk, with_facts=False)
    assert expected.takes > 0
    assert page.locator("#retention-takes").inner_text() == str(expected.takes)
    screenshot(page, "retention-preview")
    page.fill("#retention-typed", "wrong")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".retention-apply button[type=submit]")
    page.wait_for_selector("text=the confirmation did not match")
    assert not MemoryEvent.objects.filter(kind="retention_run").exists()
    page.fill("#retention-typed", str(expected.takes))
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".retention-apply button[type=submit]")
    page.wait_for_selector("#messages .success")
    run = MemoryEvent.objects.get(kind="retention_run")
    assert run.data["archived"] == expected.takes and run.actor == "user:demo-admin"
    assert f"revision {run.revision}" in page.locator("#messages").inner_text()
    runs = page.locator(".retention-runs").inner_text()
    assert "old context (v1)" in runs and str(expected.takes) in runs
    screenshot(page, "retention-run")
    assert Fact.objects.filter(workspace=demo.workspace, lifecycle="archived", archived_at=run.at).count() == expected.takes
    # On a phone the page stacks instead of widening (tables scroll inside their cards).
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/w/demo/retention/?preview={policy.pk}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    screenshot(page, "retention-phone")


def test_an_owner_reads_the_page_without_forms(live_server, page):
    demo = load_demo()
    retention.create(demo.workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    _login(page, live_server, "demo-owner")
    response = page.goto(f"{live_server.url}/w/demo/retention/")
    assert response.status == 200
    assert "Admins add, change and apply retention policies" in page.content()
    assert page.locator("#retention-form").count() == 0
