"""The console's shared parts in Chromium: the grouped workspace navigation, action notes as toasts,
copy buttons, help folded behind a "?", and the account menu; each also without JavaScript."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_navigation_shows_four_sections_and_the_current_sections_pages(live_server, page):
    load_demo()
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/facts/")
    sections = page.locator("nav.wsnav .wsnav-sections a")
    assert [text.split()[0] for text in sections.all_inner_texts()] == ["Memory", "Review", "Governance", "Settings"]
    assert page.locator("nav.wsnav .wsnav-sections a[aria-current]").inner_text() == "Memory"
    assert page.locator(".wsnav-pages a").all_inner_texts() == ["Overview", "Facts", "Recall", "Graph", "Event log"]
    assert page.locator(".wsnav-pages a[aria-current=page]").inner_text() == "Facts"
    page.click("nav.wsnav >> text=Settings")
    page.wait_for_url("**/w/demo/members/")
    assert page.locator(".wsnav-pages a").all_inner_texts() == ["Members", "Tokens", "Webhooks"]
    # From the keyboard: Tab reaches the sections and Enter follows one.
    page.locator("nav.wsnav .wsnav-sections a", has_text="Governance").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/w/demo/proposals/")
    assert page.locator(".wsnav-pages a").all_inner_texts() == ["Proposals", "Gold sets", "Retention", "Purge", "Shred", "Exports"]


def test_an_action_note_floats_as_a_toast_that_can_be_dismissed(live_server, page):
    load_demo()
    _login(page, live_server, "demo-owner")
    page.goto(f"{live_server.url}/w/demo/facts/mem_demo_0003/")
    page.click("text=Useful (up-vote)")
    toast = page.locator("#messages .toast")
    toast.wait_for()
    assert page.locator("#messages.floating").count() == 1
    assert toast.get_attribute("role") == "status" and toast.inner_text().strip()
    box = toast.bounding_box()
    assert box["x"] + box["width"] <= 1280 and box["y"] < 200  # at the top right, on the screen
    screenshot(page, "toast")
    toast.locator("[data-dismiss]").click()
    assert page.locator("#messages").count() == 0


def test_the_copy_button_copies_the_id_and_says_so(live_server, browser):
    load_demo()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        _login(page, live_server, "demo-owner")
        page.goto(f"{live_server.url}/w/demo/facts/mem_demo_0003/")
        button = page.locator("button.copy[data-copy-target=fact-id]")
        assert button.is_visible()
        button.click()
        page.wait_for_function("() => document.querySelector('button.copy span').textContent !== 'Copy id'")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == "mem_demo_0003"
    finally:
        context.close()


def test_help_opens_from_its_question_mark_and_the_account_menu_works_without_javascript(live_server, browser):
    load_demo()
    context = browser.new_context(viewport={"width": 390, "height": 900}, java_script_enabled=False)
    page = context.new_page()
    try:
        _login(page, live_server, "demo-owner")
        page.goto(f"{live_server.url}/w/demo/gold/")
        body = page.locator(".page-head details.help .help-body").first
        assert not body.is_visible()
        page.locator(".page-head details.help summary").first.click()
        assert body.is_visible() and "approved" in body.inner_text()
        # With no script, the copy buttons stay hidden (they could not copy) and the account menu still opens.
        page.goto(f"{live_server.url}/w/demo/facts/mem_demo_0003/")
        assert not page.locator("button.copy").is_visible()
        page.click("#account-menu summary")
        page.click("#account-menu >> text=Log out")
        assert "/login/" in page.url
    finally:
        context.close()
