"""Bidirectional overrides and zero-width characters are shown as a visible badge, never rendered raw."""

from __future__ import annotations

import json

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from memory.engine.facts import records as R
from memory.models import Link, MemoryEvent
from tests.factories import make_fact

pytestmark = pytest.mark.django_db

INVISIBLE = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e",
             "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]  # fmt: skip
TRICK = "Pay invoice \u202egnp.exe\u202c now\u200b\u2066!\u2069 <b>bold</b>"


def assert_revealed(html: str) -> None:
    for char in INVISIBLE:
        assert char not in html, f"U+{ord(char):04X} rendered raw"
    assert "⟦U+202E⟧" in html and "⟦U+200B⟧" in html
    assert "<b>bold</b>" not in html  # still escaped


def test_the_filter_marks_every_invisible_character_and_still_escapes():
    html = Template("{% load reveal %}{{ text|reveal }}").render(Context({"text": "".join(INVISIBLE) + "<i>x</i>"}))
    for char in INVISIBLE:
        assert char not in html and f"⟦U+{ord(char):04X}⟧" in html
    assert "&lt;i&gt;x&lt;/i&gt;" in html and 'class="invisible-char"' in html and "Right-To-Left Override" in html
    assert Template("{% load reveal %}{{ text|reveal_plain }}").render(Context({"text": "a\u202eb<"})) == "a⟦U+202E⟧b&lt;"


@pytest.fixture
def trick(workspace, owner, client):
    fact = make_fact(workspace, TRICK, segment="knowledge", subject_key="slot\u202ekey",
                     origin=R.Origin("channel", "sla\u202eck", "gen\u200beral", "s\u20661"))  # fmt: skip
    other = make_fact(workspace, "Invoices are paid on Fridays.", segment="knowledge")
    Link.objects.create(workspace=workspace, from_fact=fact, to_fact=other, kind="relates", reason="why\u202e not")
    MemoryEvent.objects.create(workspace=workspace, revision=999, at=timezone.now(), kind="feedback", actor="user:ev\u202eil",
                               reason="because\u200b", fact_ids=[fact.memory_id], data={})  # fmt: skip
    client.force_login(owner)
    return fact


def test_every_console_page_shows_the_characters_as_badges(client, workspace, trick):
    ws = workspace.name
    pages = [
        reverse("memory:fact-list", args=[ws]),
        reverse("memory:fact-detail", args=[ws, trick.memory_id]) + "?q=pay%E2%80%AE",
        reverse("memory:fact-panel", args=[ws, trick.memory_id]),
        reverse("memory:event-list", args=[ws]),
        reverse("memory:workspace-overview", args=[ws]),
        reverse("memory:recall-playground", args=[ws]) + "?q=invoice&origin=owner&k=8&clearance=PII&max_chars=1200",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        for char in INVISIBLE:
            assert char not in html, f"{url}: U+{ord(char):04X} rendered raw"
        assert "⟦U+202E⟧" in html, url


def test_the_fact_list_and_inspector_mark_content_origin_subject_key_and_reason(client, workspace, trick):
    assert_revealed(client.get(reverse("memory:fact-list", args=[workspace.name])).content.decode())
    html = client.get(reverse("memory:fact-detail", args=[workspace.name, trick.memory_id])).content.decode()
    assert_revealed(html)
    for shown in ("slot", "why", "sla", "channel:sla"):  # subject key, link reason, origin: each marked
        assert f'{shown}<span class="invisible-char"' in html


def test_the_graph_drawing_data_carries_marked_labels(client, workspace, trick):
    from memory.views import _GRAPH_PAGES

    _GRAPH_PAGES.clear()
    html = client.get(reverse("memory:memory-graph", args=[workspace.name])).content.decode()
    start = html.index('id="graph-data"')
    data = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    labels = " ".join(data["nodes"]["label"]) + " ".join(c["label"] for c in data["clusters"])
    assert "\u202e" not in labels and "⟦U+202E⟧" in labels


def test_the_playground_context_block_is_the_packed_text(client, workspace, trick):
    # (Inside {% block %} a variable named `block` is the template block: the page once showed its repr.)
    url = reverse("memory:recall-playground", args=[workspace.name]) + "?q=invoice&origin=owner&k=8&clearance=PII&max_chars=1200"
    html = client.get(url).content.decode()
    block = html[html.index('<pre class="context">') : html.index("</pre>", html.index('<pre class="context">'))]
    assert "Invoices are paid on Fridays." in block and "Block Node" not in html


def test_an_origin_wraps_at_its_parts_and_its_invisible_characters_still_show():
    from memory.templatetags.reveal import reveal_path

    assert str(reveal_path("channel:slack/team-backend/q4@T01ACME")) == (
        "channel:slack/<wbr>team-backend/<wbr>q4@<wbr>T01ACME"
    )
    shown = str(reveal_path("channel:slack/te\u200bam/<b>"))
    assert 'class="invisible-char"' in shown and "</span>" in shown  # the badge's own markup is intact
    assert "&lt;b&gt;" in shown and "<b>" not in shown
