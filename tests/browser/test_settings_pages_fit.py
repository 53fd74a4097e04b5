"""In Chromium, at a phone's width (390 px) and a laptop's (1366 px): the retention, shred, tokens and
members pages show every field whole (each select and input inside the window, none under a label's
words, each select wide enough for the choice it shows), never scroll sideways, and keep their long
explanations behind a "?". Screenshots of each go to test-artifacts/screenshots/ for a person to look at."""

from __future__ import annotations

import pytest

from governance.services import retention, tokens
from memory.services.demo import PEERS, load_demo
from memory.services.recall.index import registry
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (390, 1366)

# For each visible select and text input under `root`: its box, whether it sits inside the window,
# the label words it overlaps, and (a select) how much wider the choice it shows is than the room it has
# (the list a select opens shows every choice whole, on a phone too).
FIELDS = """(root) => {
  const canvas = document.createElement("canvas").getContext("2d");
  const words = [];
  for (const label of document.querySelectorAll(root + " label, " + root + " legend")) {
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest("select, option")) continue;
      const range = document.createRange(); range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width && r.height) words.push({text: node.textContent.trim(), r});
    }
  }
  const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const out = [];
  for (const field of document.querySelectorAll(root + " select, " + root + " input:not([type=hidden]):not([type=checkbox]):not([type=radio])")) {
    const r = field.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(field).visibility === "hidden") continue;
    let short = 0;
    if (field.tagName === "SELECT") {
      const style = getComputedStyle(field);
      canvas.font = style.font;
      const room = field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 18;  // the arrow
      const shown = field.selectedIndex >= 0 ? field.options[field.selectedIndex].text : "";
      short = Math.max(0, canvas.measureText(shown).width - room);
    }
    out.push({name: field.name || field.id, inside: r.left >= 0 && r.right <= window.innerWidth,
              under: words.filter((w) => overlaps(w.r, r)).map((w) => w.text), short});
  }
  return out;
}"""


def _fields_whole(page, root: str, where: str) -> None:
    fields = page.evaluate(FIELDS, root)
    assert fields, f"no field found under {root} ({where})"
    for field in fields:
        assert field["inside"], f"{field['name']} reaches outside the window ({where})"
        assert field["under"] == [], f"{field['name']} covers the words {field['under']} ({where})"
        assert field["short"] <= 0, f"{field['name']} cuts the choice it shows by {field['short']:.0f} px ({where})"


def _no_sideways_scroll(page, where: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{where} scrolls sideways by {overflow} px"


def _help_folds(page, root: str, words: str) -> None:
    """`words` are on the page only behind the "?" of `root`: hidden until it is opened."""
    help_text = page.locator(f"{root} details.help .help-body", has_text=words).first
    assert not help_text.is_visible()
    page.locator(f"{root} details.help", has_text=words).first.locator("summary").click()
    assert help_text.is_visible()


def test_the_retention_forms_show_every_field_whole(live_server, page):
    registry.clear()
    demo = load_demo()
    policy = retention.create(demo.workspace, {"name": "old context", "max_age_seconds": 60}, actor="t", every_fact=True)
    _login(page, live_server, "demo-admin")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/retention/")
        _no_sideways_scroll(page, f"retention at {width} px")
        _fields_whole(page, "#retention-form", f"the policy form at {width} px")
        _fields_whole(page, "#retention-ladder", f"the ladder at {width} px")
        # The ladder shows the rungs of what it maps onto, and only those.
        assert page.locator("#rung-short").is_visible() and not page.locator("#rung-PII").is_visible()
        page.select_option("#ladder-by", "classifications")
        assert page.locator("#rung-PII").is_visible() and not page.locator("#rung-short").is_visible()
        _fields_whole(page, "#retention-ladder", f"the ladder by classification at {width} px")
        screenshot(page, f"fit-admin-retention-{width}")
        page.goto(f"{live_server.url}/w/demo/retention/?preview={policy.pk}")
        _no_sideways_scroll(page, f"the retention preview at {width} px")
        facts = page.locator(".retention-facts li")
        assert facts.count() == 20 and page.locator("#retention-more").inner_text().startswith("and ")
        first = facts.first
        assert first.locator("a").inner_text() and "the owner · written" in first.inner_text()
        screenshot(page, f"fit-admin-retention-preview-{width}")
    _help_folds(page, "h1", "tideline retention list")


def test_an_owner_reads_retention_at_both_widths(live_server, page):
    demo = load_demo()
    policy = retention.create(demo.workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": 60}, actor="t")
    _login(page, live_server, "demo-owner")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/retention/?preview={policy.pk}")
        _no_sideways_scroll(page, f"retention for an owner at {width} px")
        screenshot(page, f"fit-owner-retention-{width}")


def test_the_shred_page_names_origins_in_words_and_fits(live_server, page):
    registry.clear()
    load_demo()
    peer = PEERS[1]
    _login(page, live_server, "demo-admin")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/shred/?origin={peer.key}")
        _no_sideways_scroll(page, f"shred at {width} px")
        # Every origin is a choice shown whole: its words inside the window, none cut.
        for name in page.locator(".shred-origin-name").all():
            box = name.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, name.inner_text()
            assert name.evaluate("e => e.scrollWidth <= e.clientWidth + 1 || getComputedStyle(e).display === 'inline'")
        assert page.locator(f"#shred-origins input[value='{peer.key}']").is_checked()
        _fields_whole(page, ".shred-confirm", f"the confirmation at {width} px")
        words = page.locator("#shred-origin-words")
        assert words.inner_text().startswith(f"a peer on {peer.channel_id}, conversation {peer.conversation_id}")
        key = page.locator("#shred-origin-words .help-body")
        assert not key.is_visible()  # the exact key only for those who ask
        screenshot(page, f"fit-admin-shred-{width}")
    words.locator("summary").click()
    assert peer.key in key.inner_text()


def test_the_tokens_page_fits_and_offers_the_workspaces_origins(live_server, page):
    registry.clear()
    demo = load_demo()
    tokens.create_token(demo.workspace, name="support-bot", origin=PEERS[0].label(), verbs="read", actor="t")
    _login(page, live_server, "demo-admin")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/tokens/")
        _no_sideways_scroll(page, f"tokens at {width} px")
        _fields_whole(page, "#token-form", f"the token form at {width} px")
        assert page.locator("#token-clearance").input_value() == "PUBLIC"
        assert not page.locator("#token-origin-other").is_visible()  # only once "other…" is chosen
        page.select_option("#token-origin", "other")
        assert page.locator("#token-origin-other").is_visible()
        _fields_whole(page, "#token-form", f"the token form with other… at {width} px")
        page.select_option("#token-origin", f"channel:{PEERS[0].channel_id}/*")
        page.fill("#token-form input[name=name]", f"gateway-{width}")
        page.click("#token-form button[type=submit]")
        assert page.locator("#new-token-value").inner_text().startswith("tl_")
        assert page.locator("#new-token button.copy").is_visible()
        assert f"any peer on {PEERS[0].channel_id}" in page.locator("#new-token").inner_text()
        _no_sideways_scroll(page, f"a new token at {width} px")
        screenshot(page, f"fit-admin-tokens-{width}")
    _help_folds(page, "h1", "Authorization: Bearer")


@pytest.mark.parametrize("role", ["admin", "owner"])
def test_the_members_page_fits_for_admins_and_readers(live_server, page, role):
    load_demo()
    _login(page, live_server, f"demo-{role}")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/demo/members/")
        _no_sideways_scroll(page, f"members at {width} px")
        since = page.locator(".members-table time").first
        assert since.get_attribute("datetime") and len(since.inner_text()) == len("2026-01-02 03:04")
        if role == "admin":
            _fields_whole(page, ".member-add", f"the members forms at {width} px")
        screenshot(page, f"fit-{role}-members-{width}")
    _help_folds(page, "h2", "Approvers")
