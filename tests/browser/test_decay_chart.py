"""In Chromium: the fact page's score chart keeps its threshold labels clear of the curve."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

# Each threshold label's box and its line's height (SVG units), and the curve's points.
_CHART = """() => {
    const svg = document.querySelector('svg.decay-chart');
    const view = svg.viewBox.baseVal;
    const labels = [...svg.querySelectorAll('.threshold-label')].map((t) => {
        const b = t.getBBox();
        return { text: t.textContent, left: b.x, right: b.x + b.width, top: b.y, bottom: b.y + b.height,
                 line: Number(t.previousElementSibling.getAttribute('y1')) };
    });
    const points = [...svg.querySelector('polyline.curve').points].map((p) => [p.x, p.y]);
    const inPage = [...svg.querySelectorAll('.threshold-label')].every((t) => {
        const b = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
        return b.left >= s.left - 0.5 && b.right <= s.right + 0.5 && b.top >= s.top - 0.5 && b.bottom <= s.bottom + 0.5;
    });
    return { labels, points, inPage, width: view.width, height: view.height };
}"""


def _crosses(segment, box, pad=1.0):
    """Whether a segment of the (x-monotone) curve passes through the box."""
    (x1, y1), (x2, y2) = segment
    left, right = max(min(x1, x2), box["left"] - pad), min(max(x1, x2), box["right"] + pad)
    if left > right:
        return False
    at = (lambda x: y1) if x1 == x2 else (lambda x: y1 + (y2 - y1) * (x - x1) / (x2 - x1))
    low, high = sorted((at(left), at(right)))
    return high >= box["top"] - pad and low <= box["bottom"] + pad


def _facts():
    """A fact whose curve decays through the thresholds near the chart's right end (where the labels
    used to be written), one that stays high, and the lowest-scored one."""
    from memory.models import Fact
    from memory.views import decay_curve

    curves = {f.memory_id: decay_curve(f) for f in Fact.objects.filter(workspace__name="demo", lifecycle="active")}
    crossing = next(m for m, c in curves.items() if 0.04 < c["end"] < 0.12 and c["now"] > 0.3)
    high = max(curves, key=lambda m: curves[m]["end"])
    low = min(curves, key=lambda m: curves[m]["now"])
    return [crossing, high, low]


@pytest.mark.parametrize("width", [1366, 390])
def test_threshold_labels_sit_where_the_curve_does_not_pass(live_server, page, width):
    load_demo()
    _login(page, live_server)
    page.set_viewport_size({"width": width, "height": 900})
    for memory_id in _facts():
        page.goto(f"{live_server.url}/w/demo/facts/{memory_id}/")
        chart = page.evaluate(_CHART)
        labels, points = chart["labels"], chart["points"]
        assert [label["text"] for label in labels] == ["0.15", "0.05"]
        for label in labels:
            assert not any(_crosses(s, label) for s in zip(points, points[1:], strict=False)), (memory_id, label, points)
            assert label["left"] >= 0 and label["right"] <= chart["width"], label  # not cut at the chart's edge
            assert abs((label["top"] + label["bottom"]) / 2 - label["line"]) <= 2, label  # beside its own line
        first, second = labels
        assert first["bottom"] <= second["top"] or second["bottom"] <= first["top"], labels
        assert chart["inPage"]
        assert "below 0.05 any fact is archived or pruned" in page.inner_text("section.card:has(svg.decay-chart)")
    screenshot(page, f"fact-score-chart-{width}")
