"""In Chromium, the review queue as its three roles work it: an owner supersedes and undoes,
an approver approves a peer's held write but never their own, and a held fact reaches the recall
playground only after its verdict."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from governance.models import ReviewItem
from memory.services.demo import DEMO_PASSWORD, PEERS, load_demo
from memory.services.recall.index import registry
from memory.tideline import Tideline
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _login(page, live_server, username):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def _open_item(page, live_server, item):
    page.goto(f"{live_server.url}/w/demo/review/{item.pk}/")
    page.wait_for_selector("#review-verdicts")


def _verdict_button(page, verdict):
    return page.locator(f"#review-verdicts button[name=verdict][value={verdict}]")


def _playground(page, live_server, query, origin="owner"):
    page.goto(f"{live_server.url}/w/demo/recall/?q={quote(query)}&origin={quote(origin)}")
    page.wait_for_selector("#recall-results")
    return page.locator("#recall-results").inner_text()


def test_an_owner_resolves_a_contradiction_by_supersede_and_undoes_it(live_server, page):
    registry.clear()
    demo = load_demo()
    item = ReviewItem.objects.filter(workspace=demo.workspace, kind="contradiction", reason__contains="spicy").get()
    _login(page, live_server, "demo-owner")
    page.goto(live_server.url + "/w/demo/review/?kind=contradiction")
    page.locator(f"a[href*='/review/{item.pk}/?kind=contradiction']").first.click()  # the list's filters ride along
    page.wait_for_url(f"**/review/{item.pk}/?kind=contradiction")
    page.fill("#verdict-reason", "I came round to piri-piri")
    _verdict_button(page, "supersede").click()
    page.wait_for_selector("text=Decided: supersede")
    assert "I came round to piri-piri" in page.locator("#review-verdicts").inner_text()
    item.refresh_from_db()
    assert item.status == "resolved" and item.other_fact.lifecycle == "archived"
    screenshot(page, "review-item-superseded")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#review-verdicts button[value=undo]").click()
    page.wait_for_selector("text=Verdict undone")
    item.refresh_from_db()
    item.other_fact.refresh_from_db()
    assert item.status == "open" and item.other_fact.lifecycle == "active"
    assert _verdict_button(page, "supersede").is_visible()


def test_an_approver_approves_a_peers_held_promotion_but_not_their_own(live_server, page):
    registry.clear()
    demo = load_demo()
    peer = PEERS[0]
    theirs = ReviewItem.objects.get(workspace=demo.workspace, kind="promotion", details__rules=["pii_from_peer"])
    own = Tideline(demo.workspace, actor="user:demo-approver").add(
        "Tomas Reis's home address is Rua das Flores 12, Porto.", segment="relationship", origin=peer,
        classification="PII")  # fmt: skip
    assert own.outcome == "held"
    _login(page, live_server, "demo-approver")
    assert "+351 912 000 111" not in _playground(page, live_server, "Tomas mobile number", peer.label())

    _open_item(page, live_server, ReviewItem.objects.get(pk=own.review_item_id))
    assert "You wrote this fact" in page.locator("#review-verdicts").inner_text()
    assert _verdict_button(page, "approve").count() == 0
    screenshot(page, "review-promotion-own")

    _open_item(page, live_server, theirs)
    _verdict_button(page, "approve").click()
    page.wait_for_selector("text=Decided: approve")
    theirs.refresh_from_db()
    assert theirs.status == "resolved" and theirs.resolved_by.username == "demo-approver"
    assert "+351 912 000 111" in _playground(page, live_server, "Tomas mobile number", peer.label())


def test_a_held_write_is_absent_from_the_playground_until_its_verdict(live_server, page):
    registry.clear()
    demo = load_demo()
    held = ReviewItem.objects.get(workspace=demo.workspace, kind="quarantine")
    _login(page, live_server, "demo-owner")
    before = _playground(page, live_server, "did Maya move to Madrid")
    assert "Madrid" not in before
    _open_item(page, live_server, held)
    _verdict_button(page, "coexist").click()
    page.wait_for_selector("text=Decided: coexist")
    after = _playground(page, live_server, "did Maya move to Madrid")
    assert "Maya moved to Madrid" in after
    screenshot(page, "playground-after-admission")
