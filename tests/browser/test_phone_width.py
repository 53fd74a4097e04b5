"""In Chromium, as each role: every console page fits a phone's width (390 px) without the page
scrolling sideways (wide tables scroll inside their card), and at 1366 px too. Screenshots of each
go to test-artifacts/screenshots/ (role-page-width.png) for a person to look at."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

EVERYONE = ["", "facts/", "facts/mem_demo_0003/", "recall/?q=where+do+I+live", "graph/", "events/", "review/",
            "proposals/", "gold/", "retention/", "members/"]  # fmt: skip
ADMINS = ["purge/", "shred/", "exports/", "tokens/"]


@pytest.mark.parametrize("role", ["owner", "approver", "admin"])
def test_every_page_fits_a_phone_for_each_role(live_server, page, role):
    load_demo()
    _login(page, live_server, f"demo-{role}")
    for path in EVERYONE + (ADMINS if role == "admin" else []):
        for width in (390, 1366):
            page.set_viewport_size({"width": width, "height": 900})
            response = page.goto(f"{live_server.url}/w/demo/{path}")
            assert response.status == 200, path
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{path} at {width} px scrolls sideways by {overflow} px"
            name = path.split("?")[0].strip("/").replace("/", "-") or "overview"
            screenshot(page, f"{role}-{name}-{width}")
