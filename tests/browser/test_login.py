"""In Chromium: a demo user logs in and sees the demo workspace's facts."""

from __future__ import annotations

import pytest

from memory.services.demo import DEMO_PASSWORD, load_demo
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("username", ["demo-owner", "demo-approver", "demo-admin"])
def test_each_demo_role_can_log_in_and_open_the_demo_workspace(live_server, page, username):
    load_demo()
    page.goto(live_server.url + "/")
    assert page.url.startswith(live_server.url + "/login/")
    screenshot(page, "login")
    page.fill("#id_username", username)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.click("#workspace-table >> a:text-is('demo')")
    page.wait_for_url("**/w/demo/")
    assert page.locator("h1").inner_text() == "demo"
    assert page.locator("table.bars").count() >= 6  # the dashboard's charts
    screenshot(page, f"dashboard-{username}")
    page.click("nav.wsnav >> text=Facts")
    page.wait_for_url("**/w/demo/facts/")
    assert page.locator("table.facts tbody tr").count() == 50  # first page of a paginated list
    screenshot(page, f"workspace-overview-{username}")
    page.click("#account-menu summary")  # the account menu folds the e-mail, password and log-out links
    page.click("text=Log out")
    assert "/login/" in page.url


def test_a_wrong_password_is_explained_in_the_page(live_server, page):
    load_demo()
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", "demo-owner")
    page.fill("#id_password", "wrong")
    page.click("button[type=submit]")
    assert "did not match" in page.locator("[role=alert]").inner_text()
