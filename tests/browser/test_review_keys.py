"""In Chromium, an owner works the review queue from the keyboard: j/Enter from the list,
j/k through the filtered queue, a verdict's letter twice to apply it, then on to the next item;
and a bulk verdict on ticked rows goes through its confirmation and back to the filtered list."""

from __future__ import annotations

import pytest

from governance import selectors
from governance.models import ReviewItem
from memory.services.demo import DEMO_PASSWORD, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)
FILTERS = "kind=contradiction&sort=strongest"


def _login(page, live_server, username="demo-owner"):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def _queue(workspace) -> list[int]:
    items = selectors.filtered_review_items(workspace, {"kind": "contradiction", "sort": "strongest"})
    return list(items.values_list("pk", flat=True))


def test_an_owner_decides_from_the_keyboard_and_moves_on(live_server, page):
    registry.clear()
    demo = load_demo()
    queue = _queue(demo.workspace)
    assert len(queue) >= 3
    _login(page, live_server)
    page.goto(f"{live_server.url}/w/demo/review/?{FILTERS}")
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.locator("tr.key-current").get_attribute("id") == f"review-{queue[1]}"
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/review/{queue[1]}/?{FILTERS}")

    page.keyboard.press("j")
    page.wait_for_url(f"**/review/{queue[2]}/?{FILTERS}")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/review/{queue[1]}/?{FILTERS}")

    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#keys-help").is_visible()

    page.click("#verdict-reason")  # typing a reason never triggers a key
    page.keyboard.type("just a duplicate")
    assert page.input_value("#verdict-reason") == "just a duplicate" and page.url.endswith(f"/{queue[1]}/?{FILTERS}")

    page.keyboard.press("d")  # still in the field: a letter of the reason
    assert page.input_value("#verdict-reason") == "just a duplicated"
    page.locator("#verdict-reason").press("Backspace")
    page.locator("h1").click()
    page.keyboard.press("d")  # the first press only selects the verdict and says how to apply it
    assert page.evaluate("document.activeElement.value") == "dismiss"
    assert "Press d again" in page.locator("#key-status").inner_text()
    screenshot(page, "review-keys-verdict-selected")
    assert ReviewItem.objects.get(pk=queue[1]).status == "open"
    page.keyboard.press("d")
    page.wait_for_selector("text=Decided: dismiss")
    assert page.url.endswith(f"/review/{queue[1]}/?{FILTERS}")
    item = ReviewItem.objects.get(pk=queue[1])
    assert item.status == "dismissed" and item.details["verdict_reason"] == "just a duplicate"

    page.keyboard.press("Enter")  # the next item's link has the focus after a verdict
    page.wait_for_url(f"**/review/{queue[2]}/?{FILTERS}")


def test_a_bulk_verdict_from_ticked_rows_is_confirmed_and_returns_to_the_filtered_list(live_server, page):
    registry.clear()
    demo = load_demo()
    queue = _queue(demo.workspace)
    _login(page, live_server)
    page.goto(f"{live_server.url}/w/demo/review/?{FILTERS}")
    for _ in range(2):
        page.keyboard.press("j")
        page.keyboard.press("x")
    assert page.locator("input[name=ids]:checked").count() == 2
    page.select_option("#review-bulk select[name=verdict]", "coexist")
    page.fill("#review-bulk input[name=reason]", "both hold")
    page.click("#review-bulk button[type=submit]")
    page.wait_for_selector("text=Apply coexist to 2 items (2 contradictions)?")
    screenshot(page, "review-bulk-confirm")
    assert {i.status for i in ReviewItem.objects.filter(pk__in=queue[:2])} == {"open"}
    page.click("text=Confirm: coexist 2 items")
    page.wait_for_url(f"**/w/demo/review/?{FILTERS}")
    assert "Coexist: 2 decided." in page.locator("main").inner_text()
    assert {i.status for i in ReviewItem.objects.filter(pk__in=queue[:2])} == {"resolved"}
    assert ReviewItem.objects.get(pk=queue[2]).status == "open"
