"""Every console page, as each role, at a phone's width (390 px) and a desktop's (1366 px), in Chromium:
no sideways scrolling outside a scroll box with a cue, no clipped text, no controls drawn over each
other, no console errors or CSP violations, and no serious or critical axe-core violations
(tests/browser/audit.py). A screenshot of each goes to test-artifacts/screenshots/page-<role>-<page>-<width>.png."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.audit import problems, watch
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

EVERYONE = ["", "facts/", "facts/mem_demo_0003/", "recall/?q=where+do+I+live", "graph/", "events/", "review/",
            "review/settings/", "proposals/", "gold/", "gold/score/", "retention/", "members/"]  # fmt: skip
ADMINS = ["purge/", "shred/", "exports/", "tokens/", "webhooks/"]
OUTSIDE = ["/", "/account/notifications/", "/password/change/"]


def _detail_pages(demo) -> list[str]:
    from governance.models import GoldSet, Proposal, ReviewItem

    found = []
    item = ReviewItem.objects.filter(workspace=demo.workspace, status="open").first()
    if item is not None:
        found.append(f"review/{item.pk}/")
    proposal = Proposal.objects.filter(workspace=demo.workspace).first()
    if proposal is not None:
        found.append(f"proposals/{proposal.pk}/")
    gold = GoldSet.objects.filter(workspace=demo.workspace).first()
    if gold is not None:
        found.append(f"gold/{gold.pk}/")
    return found


@pytest.mark.parametrize("role", ["owner", "approver", "admin"])
def test_every_page_reads_well_for_each_role_at_both_widths(live_server, page, role):
    demo = load_demo()
    errors = watch(page)
    _login(page, live_server, f"demo-{role}")
    paths = [f"/w/demo/{p}" for p in EVERYONE + _detail_pages(demo) + (ADMINS if role == "admin" else [])] + OUTSIDE
    found = []
    for path in paths:
        for width in (390, 1366):
            page.set_viewport_size({"width": width, "height": 900})
            response = page.goto(live_server.url + path)
            assert response.status == 200, path
            if path.endswith("graph/"):
                page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.drawnAt")
            found += [f"{path} at {width} px: {problem}" for problem in problems(page, errors)]
            name = ("home" if path == "/" else
                    path.split("?")[0].strip("/").removeprefix("w/demo").strip("/").replace("/", "-") or "overview")
            screenshot(page, f"page-{role}-{name}-{width}")
    assert not found, "\n".join(found)
