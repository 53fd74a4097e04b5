"""In Chromium: the dashboard's note on figures from an earlier revision fits a phone and the desktop.
(Every page as each role at both widths: test_every_page.py.)"""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

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
