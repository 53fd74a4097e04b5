"""In Chromium: from the recall playground, score a gold set and read its figures and cases, on a
desktop and on a phone, without the page scrolling sideways."""

from __future__ import annotations

import pytest

from governance.models import GoldCase, GoldSet
from memory.models import Fact, Workspace
from memory.services.demo import DEMO_WORKSPACE, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

CASES = [
    ("what do I drink in the morning", "I prefer tea over coffee in the morning.", "preference"),
    ("where was I born", "I was born in Lagos in 1991.", "identity"),
    ("what is my favourite football team", None, "abstention"),
]


def _demo_set() -> GoldSet:
    workspace = Workspace.objects.get(name=DEMO_WORKSPACE)
    ids = {f.content: f.memory_id for f in Fact.objects.filter(workspace=workspace, lifecycle="active")}
    gold = GoldSet.objects.create(workspace=workspace, name="everyday questions", kind="live", source="playground",
                                  created_by="demo-owner")  # fmt: skip
    for position, (query, answer, category) in enumerate(CASES):
        GoldCase.objects.create(gold_set=gold, case_id=f"c{position + 1}", query=query, category=category,
                                relevant_keys=[ids[answer]] if answer else [], position=position)  # fmt: skip
    return gold


def test_the_playground_scores_a_gold_set_at_its_k(live_server, page):
    registry.clear()
    load_demo()
    gold = _demo_set()
    _login(page, live_server)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/w/demo/recall/?q=where+do+I+live&k=5")
        page.select_option("#gold-score-set", str(gold.pk))
        page.click("#gold-score-form button[type=submit]")
        page.wait_for_selector("#score-overall")
        assert "everyday questions: 3 cases at k = 5" in page.locator("#gold-score h2").inner_text()
        assert page.locator("#score-cases .score-relevant-hit").count() >= 1  # the relevant hits are marked
        assert page.locator("#score-overall").is_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"the score page at {width} px scrolls sideways by {overflow} px"
        screenshot(page, f"gold-score-{width}")
