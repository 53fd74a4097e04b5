"""In Chromium, the self-improvement loop as two people (ENGINE-SPEC §7): an owner makes a gold set from the
workspace and rewrites its queries, an approver approves it; the owner proposes a retraction and has
it evaluated; the owner cannot approve their own; the approver approves it with a reason, applies it
after a confirmation, and reverts it; every step shows on the page and in the event log."""

from __future__ import annotations

import pytest

from governance.models import GoldSet, Proposal
from memory.models import Fact, MemoryEvent
from memory.services.demo import DEMO_PASSWORD, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _person(browser, live_server, username):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")
    return context, page


def test_the_whole_loop_as_two_people(live_server, browser):
    registry.clear()
    demo = load_demo()
    owner_context, owner = _person(browser, live_server, "demo-owner")
    approver_context, approver = _person(browser, live_server, "demo-approver")
    try:
        # The owner makes a scaffold from the workspace and writes each query.
        owner.goto(f"{live_server.url}/w/demo/")
        owner.click("nav.wsnav >> text=Governance")
        owner.click("nav.wsnav >> text=Gold sets")
        owner.fill("#scaffold-size", "3")
        owner.click("form.gold-form:has(#scaffold-size) button[type=submit]")
        owner.wait_for_selector("ol.gold-cases")
        gold = GoldSet.objects.get(workspace=demo.workspace, source="scaffold")  # beside the demo's own set
        for case in gold.cases.all():
            owner.fill(f"#q-{case.pk}", " ".join(case.hint.split()[:6]))
            owner.click(f"#case-{case.pk} .gold-edit button[value=''], #case-{case.pk} .gold-edit button:text('Save')")
            owner.wait_for_selector("#messages .success")
        assert owner.locator("#gold-approve").count() == 0  # owners do not approve sets
        screenshot(owner, "gold-set-rewritten")
        # The approver approves the set.
        approver.goto(f"{live_server.url}/w/demo/gold/{gold.pk}/")
        approver.click("#gold-approve")
        approver.wait_for_selector("#messages .success")
        gold.refresh_from_db()
        assert gold.approved and gold.approved_by_name == "demo-approver"
        # The owner proposes retracting a fact no gold case needs, and has it evaluated.
        needed = {k for s in GoldSet.objects.filter(workspace=demo.workspace) for c in s.cases.all() for k in c.relevant_keys}
        fact = (Fact.objects.filter(workspace=demo.workspace, lifecycle="active", segment="knowledge", origin_kind="owner")
                .exclude(memory_id__in=needed).exclude(tier="permanent").order_by("pk").first())
        owner.goto(f"{live_server.url}/w/demo/proposals/")
        owner.fill("#retract-ids", fact.memory_id)
        owner.fill("#retract-rationale", "It is out of date and keeps coming up.")
        owner.click("form:has(#retract-ids) button[type=submit]")
        owner.wait_for_selector("#evaluate-button")
        proposal = Proposal.objects.get(workspace=demo.workspace)
        owner.click("#evaluate-button")
        owner.wait_for_selector("#verdict")
        assert "Clears the bar" in owner.locator("#verdict").inner_text()
        assert owner.locator(".delta-chart svg").count() == 1
        assert owner.locator("#decision form").count() == 0  # the author has no decision form
        screenshot(owner, "proposal-evaluated")
        # The approver approves it with a reason, applies it after the confirmation, then reverts it.
        approver.goto(f"{live_server.url}/w/demo/proposals/?status=pending")
        approver.click(f"text=#{proposal.pk}")
        approver.fill("#decision-reason", "Stale fact; nothing in the gold set needs it.")
        approver.click("#decision button[value=approve]")
        approver.wait_for_selector("#apply-button")
        approver.click("#apply-button")
        approver.wait_for_selector("#confirm-action")
        assert Fact.objects.get(pk=fact.pk).lifecycle == "active"  # nothing happens before the confirmation
        approver.click("#confirm-action button.danger")
        approver.wait_for_selector("#revert-button")
        assert Fact.objects.get(pk=fact.pk).lifecycle == "archived"
        screenshot(approver, "proposal-applied")
        approver.click("#revert-button")
        approver.fill("#revert-reason", "checking revert")
        approver.click("#confirm-action button.danger")
        approver.wait_for_selector("#proposal-status:text('reverted')")
        assert Fact.objects.get(pk=fact.pk).lifecycle == "active"
        history = approver.locator(".proposal-history").inner_text()
        for step in ("proposed", "evaluated", "approved", "applied", "reverted"):
            assert step in history
        actors = dict(MemoryEvent.objects.filter(kind="proposal").values_list("data__action", "actor"))
        assert actors["proposed"] == "user:demo-owner" and actors["approved"] == "user:demo-approver"
        # On a phone the pages stack instead of widening.
        for page, url in ((approver, f"/w/demo/proposals/{proposal.pk}/"), (owner, "/w/demo/proposals/"),
                          (owner, f"/w/demo/gold/{gold.pk}/")):
            page.set_viewport_size({"width": 390, "height": 844})
            page.goto(live_server.url + url)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), url
        screenshot(approver, "proposal-phone")
    finally:
        owner_context.close()
        approver_context.close()
