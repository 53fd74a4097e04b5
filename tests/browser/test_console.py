"""In Chromium: filter the facts browser through HTMX (table and URL change), inspect a fact, use the playground."""

from __future__ import annotations

import pytest

from memory.services.demo import DEMO_PASSWORD, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _login(page, live_server, username="demo-owner"):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def test_filtering_facts_swaps_the_table_and_pushes_the_url(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/facts/")
    total = page.locator("#fact-table .muted").first.inner_text()
    page.select_option("select[name=segment]", "identity")
    page.wait_for_url("**segment=identity**")
    page.wait_for_function(f"() => !document.querySelector('#fact-table .muted').innerText.startsWith('{total.split()[0]}')")
    segments = page.locator("#fact-table tbody tr td:nth-child(3)").all_inner_texts()
    assert segments and set(segments) == {"identity"}
    screenshot(page, "facts-filtered")
    page.locator("#fact-table tbody tr a").first.click()
    page.wait_for_url("**/facts/mem_demo_*/")
    assert page.locator("svg.chart polyline").count() == 1
    screenshot(page, "fact-inspector")


def test_the_playground_shows_hits_and_the_context_block(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/recall/")
    page.fill("input[name=q]", "where do I live")
    page.click("form.filters button[type=submit]")
    page.wait_for_selector("#recall-results table.facts")
    assert "Porto" in page.locator("#recall-results").inner_text()
    assert "q=where" in page.url
    screenshot(page, "recall-playground")


def test_the_playground_says_nothing_relevant_and_why_each_hit_ranks(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/w/demo/recall/?q=what+is+my+zodiac+sign")
        nothing = page.locator("#nothing-relevant")
        assert nothing.is_visible() and "Nothing relevant" in nothing.inner_text() and "floor" in nothing.inner_text()
        screenshot(page, f"recall-nothing-relevant-{width}")
        page.goto(live_server.url + "/w/demo/recall/?q=where+do+I+live")
        why = page.locator("#recall-results .why").first.inner_text()
        assert why.startswith("Relevance ") and "matched" in why
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # the table scrolls, not the page
        screenshot(page, f"recall-relevance-{width}")


def test_the_playground_returns_the_answer_says_why_the_next_fact_was_cut_and_abstains_on_a_dog(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/w/demo/recall/")
        page.fill("input[name=q]", "When is Tomas Reis's birthday?")
        page.click("form.filters button[type=submit]")
        page.wait_for_selector("#recall-results table.facts")
        rows = page.locator("#recall-results table.facts tbody tr")
        contents = rows.locator("td.content a").all_inner_texts()
        assert contents[0] == "Tomas Reis's birthday is in June."
        assert not any("Kafka" in c or "staging database" in c for c in contents)
        shown = [float(v) for v in rows.locator("td:nth-child(3)").all_inner_texts()]
        assert shown == sorted(shown, reverse=True)  # ordered by the relevance it shows
        assert "Kept: relevance" in rows.first.inner_text()
        left_out = page.locator("#left-out").inner_text()
        assert "Next candidate, left out" in left_out and "Left out: relevance" in left_out
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        context = page.locator("pre.context").inner_text()
        assert context.splitlines()[-1].startswith("(") and "left out" in context
        screenshot(page, f"recall-cut-{width}")
        page.goto(live_server.url + "/w/demo/recall/?q=What+is+my+dog%27s+name%3F")
        assert page.locator("#nothing-relevant").is_visible()
        assert page.locator("#recall-results table.facts").count() == 0
        screenshot(page, f"recall-dog-{width}")


def test_the_inspector_explains_a_fact_below_the_floor_in_words(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server)
    # An active owner fact: the inspector explains how recall would rank it (search also finds
    # archived and superseded facts, which recall never returns).
    page.goto(live_server.url + "/w/demo/facts/?q=live&lifecycle=active&origin=owner")
    page.locator("#fact-table tbody tr a").first.click()
    page.wait_for_url("**/facts/mem_demo_*/")
    base = page.url.split("?")[0]
    page.goto(base + "?q=where+does+Melanie+live")  # a name this memory has never heard of
    text = page.locator("#why-sentence").inner_text()
    assert text.startswith("Relevance ") and page.locator("#below-floor").is_visible()
    page.goto(base + "?q=where+do+I+live")
    assert page.locator("#why-sentence").inner_text().startswith("Relevance ")
    screenshot(page, "inspector-why-it-ranks")


def test_an_admin_makes_and_revokes_an_api_token(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server, "demo-admin")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/w/demo/tokens/")
        page.fill("#token-form input[name=name]", f"bot-{width}")
        page.select_option("#token-origin", "other")
        page.fill("#token-origin-other", "channel:slack/*")
        page.check("#token-form input[value=write]")
        page.click("#token-form button[type=submit]")
        secret = page.locator("#new-token-value").inner_text().strip()
        assert secret.startswith("tl_")
        assert page.locator("#new-token button.copy").is_visible()  # the page's script offers to copy it
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
        screenshot(page, f"tokens-made-{width}")
    page.locator("#token-table tr", has_text="bot-390").locator("button").click()
    page.click("#confirm-revoke button.danger")
    assert "revoked" in page.locator("#messages").inner_text()
    screenshot(page, "tokens-revoked-390")


def test_the_event_log_pages_in_place_keeping_its_filter(live_server, page):
    """Issue 18: the pager swaps the table through HTMX (no full reload) and keeps the filter."""
    from memory.selectors import PAGE_SIZE
    from memory.tideline import Tideline

    registry.clear()
    load_demo()
    memory = Tideline.for_workspace("demo", actor="test")
    for n in range(PAGE_SIZE + 5):  # more `created` events than one page holds
        memory.add(f"Shipment {n} left the Porto warehouse on pallet {n * 7 + 3}.", segment="knowledge")
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/events/?kind=created")
    page.evaluate("() => { window.__notReloaded = true; }")
    first = page.locator("#event-table tbody tr td:first-child").first.inner_text()
    page.locator("#event-table .pager a", has_text="Older").click()
    page.wait_for_url("**page=2**")
    assert "kind=created" in page.url
    page.wait_for_function(f"() => document.querySelector('#event-table tbody tr td').innerText !== '{first}'")
    assert page.evaluate("() => window.__notReloaded === true")  # the same document: swapped, not reloaded
    assert set(page.locator("#event-table tbody tr td:nth-child(3)").all_inner_texts()) == {"created"}
    # The count is known, so the pages are numbered, the current one marked; a number turns the page too.
    assert page.locator("#event-table .page-numbers [aria-current=page]").inner_text() == "2"
    screenshot(page, "event-log-page-2")
    page.locator("#event-table .page-numbers a", has_text="1").click()
    page.wait_for_url("**page=1**")
    page.wait_for_function(f"() => document.querySelector('#event-table tbody tr td').innerText === '{first}'")
    assert page.locator("#event-table .page-numbers [aria-current=page]").inner_text() == "1"
    assert "kind=created" in page.url and page.evaluate("() => window.__notReloaded === true")
    page.set_viewport_size({"width": 390, "height": 900})
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the event log scrolls sideways by {overflow} px at 390 px"
    page.locator("#event-table .pager").scroll_into_view_if_needed()
    screenshot(page, "event-log-pager-390")


def test_facts_search_selection_and_keyboard_habits(live_server, page):
    from django.contrib.auth import get_user_model

    from memory.models import Membership
    from memory.services.workspaces import get_workspace

    registry.clear()
    load_demo()
    other = get_workspace("side-project", create=True, actor="test")
    Membership.objects.create(user=get_user_model().objects.get(username="demo-owner"), workspace=other, role="owner")
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/facts/")
    # The first Tab reaches the skip link, which moves the focus to the page's content.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    # An arrow key in the workspace switcher moves the choice without leaving the page; Enter opens it.
    page.focus("#workspace-switcher")
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(300)
    assert page.url.endswith("/w/demo/facts/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/w/side-project/")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        # Origin "any" searches every origin's facts, a channel peer's included.
        page.goto(live_server.url + "/w/demo/facts/?q=weather+Porto")
        origins = set(page.locator("#fact-table tbody tr td:nth-child(7)").all_inner_texts())
        assert page.locator("#fact-table tbody tr").count() >= 1 and origins, origins
        page.check("input[data-select-all]")
        boxes = page.locator("#fact-table tbody input[name=ids]")
        assert boxes.count() >= 1 and all(boxes.nth(i).is_checked() for i in range(boxes.count()))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, f"facts-search-selected-{width}")
    from memory.services.maintenance import passes as maintenance

    maintenance.run_dream(get_workspace("demo"))
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/w/demo/")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        screenshot(page, f"overview-{width}")
    page.click("a[href$='score_below=0.2']")
    page.wait_for_url("**score_below=0.2**")
    assert "lowest effective score first" in page.locator("#fact-table").inner_text()
    screenshot(page, "facts-decaying-soon")


def test_an_approver_sees_facts_without_bulk_controls(live_server, page):
    registry.clear()
    load_demo()
    _login(page, live_server, "demo-approver")
    page.goto(live_server.url + "/w/demo/facts/")
    assert page.locator("#fact-table tbody tr").count() > 0
    assert page.locator("#bulk-form").count() == 0 and page.locator("input[name=ids]").count() == 0
    screenshot(page, "facts-approver")
