"""In Chromium: every console page works under the Content-Security-Policy without a single violation."""

from __future__ import annotations

import pytest

from governance.models import ReviewItem
from memory.models import Fact
from memory.services.demo import load_demo
from tests.browser.test_console import _login
from tests.browser.test_memory_graph import LINKED_NODE

pytestmark = pytest.mark.django_db(transaction=True)

# Runs before any page script (Playwright injects it outside the page's CSP) and records every
# violation the browser reports.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


@pytest.fixture
def watched(page):
    console_errors, script_errors = [], []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: script_errors.append(str(error)))  # an uncaught exception

    def violations():
        found = page.evaluate("() => window.__cspViolations || []")
        return found + [text for text in console_errors if "Content Security Policy" in text or "Content-Security-Policy" in text]

    page.violations = violations
    page.script_errors = script_errors
    return page


def test_every_console_page_loads_and_works_without_csp_violations(live_server, watched):
    page = watched
    load_demo()
    _login(page, live_server)
    first = "mem_demo_0002"
    facts = Fact.objects.filter(workspace__name="demo").order_by("memory_id")[:2]
    item = ReviewItem.objects.create(workspace=facts[0].workspace, kind="contradiction", fact=facts[0],
                                     other_fact=facts[1], reason="a test pair", details={"score": 0.7})  # fmt: skip
    pages = ["/", "/w/demo/", "/w/demo/facts/", f"/w/demo/facts/{first}/",
             "/w/demo/recall/?q=where+do+I+live", "/w/demo/events/", "/w/demo/review/?status=any&q=a",
             f"/w/demo/review/{item.pk}/", "/w/demo/graph/"]  # fmt: skip
    for url in pages:
        response = page.goto(live_server.url + url)
        assert response.status == 200, url
        assert "script-src 'self'" in response.headers["content-security-policy"], url
        page.wait_for_load_state("networkidle")
        assert page.violations() == [], url

    # The Memory Graph draws with sigma (WebGL) and a click opens the fact in the side panel.
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.graph.order > 20")
    assert page.locator("#graph canvas").count() >= 1
    assert page.locator("svg.swatch circle").count() >= 1
    node = page.evaluate(LINKED_NODE)
    page.mouse.click(node["x"], node["y"])
    page.wait_for_selector("#graph-panel-body")

    # HTMX still filters the facts table in place.
    page.goto(live_server.url + "/w/demo/facts/")
    page.select_option("select[name=segment]", "identity")
    page.wait_for_url("**segment=identity**")
    page.wait_for_function("() => [...document.querySelectorAll('#fact-table tbody tr td:nth-child(3)')]"
                           ".every((td) => td.innerText === 'identity')")  # fmt: skip

    # The workspace switcher (was an inline onchange) still navigates.
    page.goto(live_server.url + "/w/demo/events/")
    page.select_option("#workspace-switcher", "demo")
    page.wait_for_url(live_server.url + "/w/demo/")

    # Archiving asks first (was an inline onsubmit); dismissing keeps the fact active.
    page.goto(live_server.url + f"/w/demo/facts/{first}/")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("form[data-confirm] button[type=submit]")
    page.wait_for_timeout(300)
    assert asked and asked[0].startswith("Archive this fact?")
    assert page.url.endswith(f"/w/demo/facts/{first}/")

    assert page.violations() == []
    assert page.script_errors == []

    # The recorder does see a violation: inline styles injected now are refused and reported.
    page.evaluate("""() => document.body.insertAdjacentHTML("beforeend", '<b style="color: red">x</b>')""")
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert page.violations()[0].startswith("style-src")
