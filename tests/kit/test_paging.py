"""The list pages' pager (tideline_kit/paging.py, templates/_pager.html): numbered where the count
is known, the current page marked, every link keeping the page's other filters."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.template.loader import render_to_string
from django.test import RequestFactory

from tideline_kit.paging import numbered_pager


def _pager(page_number: int, pages: int = 100, query: str = "kind=created"):
    request = RequestFactory().get(f"/w/demo/events/?{query}&page={page_number}")
    page = Paginator(range(pages * 10), 10).get_page(page_number)
    return numbered_pager(request, page, "1,000 events")


def _labels(pager) -> list[str]:
    return ["…" if n.get("gap") else str(n["number"]) for n in pager["numbers"]]


def test_the_first_the_last_and_two_either_side_are_numbered():
    pager = _pager(50)
    assert _labels(pager) == ["1", "…", "48", "49", "50", "51", "52", "…", "100"]
    assert [n["number"] for n in pager["numbers"] if n.get("current")] == [50]
    assert pager["position"] == "Page 50 of 100"
    assert _labels(_pager(1, pages=3)) == ["1", "2", "3"]


def test_every_link_keeps_the_filters():
    pager = _pager(50)
    links = [pager["previous"], pager["next"]] + [n["url"] for n in pager["numbers"] if not n.get("gap")]
    assert all("kind=created" in link for link in links)
    assert pager["previous"].endswith("page=49") and pager["next"].endswith("page=51")


def test_one_page_needs_no_pager():
    pager = _pager(1, pages=1)
    assert pager["numbers"] == [] and pager["previous"] is None and pager["next"] is None
    assert "<nav" not in render_to_string("_pager.html", {"pager": pager})


def test_the_rendered_pager_marks_the_current_page_and_swaps_in_place():
    html = render_to_string("_pager.html", {"pager": _pager(2, pages=5), "target": "event-table"})
    assert 'aria-current="page"' in html and ">2</a>" in html
    assert html.count('hx-target="#event-table"') == 6  # previous, next and the four other numbers
    assert 'rel="prev"' in html and 'rel="next"' in html
