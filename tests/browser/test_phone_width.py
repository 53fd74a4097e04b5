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


def test_the_dashboard_labels_figures_from_an_earlier_revision_at_both_widths(live_server, page, monkeypatch):
    """After a write, a big workspace's dashboard shows its last figures with a note of their revision
    while the worker computes the new ones: the note fits a phone and the desktop."""
    from memory.models import Workspace
    from memory.services.maintenance import dashboard_stats
    from memory.tideline import Tideline

    load_demo()
    _login(page, live_server, "demo-owner")
    page.goto(f"{live_server.url}/w/demo/")  # figures computed at this revision
    monkeypatch.setattr(dashboard_stats, "_refresh_later", lambda workspace: True)  # the worker is busy
    Tideline(Workspace.objects.get(name="demo")).add("I keep my passport in the desk drawer.", segment="knowledge")
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/")
        note = page.get_by_role("status").filter(has_text="These figures are as of revision")
        assert note.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 1
        screenshot(page, f"owner-overview-earlier-revision-{width}")
