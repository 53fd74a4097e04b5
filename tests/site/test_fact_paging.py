"""The facts browser pages by keyset (after/before cursors), counts exactly only when that is cheap,
and keeps old `page=N` links, filters, HTMX swaps and the no-JS links working."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from memory import selectors
from memory.models import Fact
from tests.factories import make_fact

pytestmark = pytest.mark.django_db

SORTS = {"-created": ("-created_at", "-id"), "created": ("created_at", "id"), "-importance": ("-importance", "-id"),
         "importance": ("importance", "id"), "-accessed": ("-access_count", "-id")}  # fmt: skip


@pytest.fixture
def eleven(workspace):
    """Eleven facts with ties in every sort key (so the id must break them) and sub-second times."""
    base = timezone.now().replace(microsecond=123456) - timedelta(days=3)
    facts = []
    for n in range(11):
        created = base + timedelta(hours=n // 2, microseconds=7 * (n // 2))  # pairs share a time
        facts.append(make_fact(workspace, f"Fact number {n} about the depot.", segment="knowledge",
                               created_at=created, importance=[0.2, 0.5, 0.5, 0.9][n % 4], access_count=n % 3))  # fmt: skip
    make_fact(workspace, "A peer's note.", segment="context", origin="channel:wa/c1/s1", created_at=base)
    return facts


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(selectors, "PAGE_SIZE", 3)


def _get(client, url, **headers):
    response = client.get(url, headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def _rows(body):
    return [int(pk) for pk in re.findall(r'<tr id="fact-(\d+)">', body)]


def _links(body):
    nav = body[body.index('<nav class="pager"') : body.index("</nav>", body.index('<nav class="pager"'))]
    return {label.strip(): href.replace("&amp;", "&") for href, label in re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)}


@pytest.mark.parametrize("sort", list(SORTS))
def test_next_and_previous_walk_every_fact_once_in_order(client, owner, workspace, eleven, small_pages, sort):
    client.force_login(owner)
    expected = list(Fact.objects.filter(workspace=workspace, segment="knowledge").order_by(*SORTS[sort])
                    .values_list("pk", flat=True))  # fmt: skip
    url = reverse("memory:fact-list", args=[workspace.name]) + f"?segment=knowledge&sort={sort}"
    pages, urls = [], []
    while url:
        body = _get(client, url)
        pages.append(_rows(body))
        urls.append(url)
        links = _links(body)
        assert ("← Previous" in links) == (len(pages) > 1) and ("« First" in links) == (len(pages) > 1)
        url = links.get("Next →")
        assert len(pages) < 10
    assert [pk for page in pages for pk in page] == expected
    assert [len(page) for page in pages] == [3, 3, 3, 2]
    # …and back again with Previous, page by page, from the last one.
    body = _get(client, urls[-1])
    for page in reversed(pages[:-1]):
        body = _get(client, _links(body)["← Previous"])
        assert _rows(body) == page
    assert "← Previous" not in _links(body)


def test_the_count_is_exact_on_a_single_page_and_capped_above_the_cap(client, owner, workspace, eleven, small_pages, monkeypatch):
    client.force_login(owner)
    url = reverse("memory:fact-list", args=[workspace.name])
    assert '<p class="muted">12 facts</p>' in _get(client, url)
    assert '<p class="muted">1 fact</p>' in _get(client, url + "?segment=context")
    monkeypatch.setattr(selectors, "COUNT_CAP", 5)
    label = re.search(r'<p class="muted">(.*?)</p>', _get(client, url)).group(1)
    if connection.vendor == "postgresql":  # the planner's estimate, which must not be below the cap
        assert label.startswith("about ") and int(label.split()[1].replace(",", "")) > 5
    else:
        assert label == "more than 5 facts"


def test_count_facts_uses_the_planner_estimate_only_above_the_cap(workspace, eleven, monkeypatch):
    facts = Fact.objects.filter(workspace=workspace)
    assert selectors.count_facts(facts) == selectors.FactCount(12)
    monkeypatch.setattr(selectors, "COUNT_CAP", 5)
    count = selectors.count_facts(facts)
    assert count.kind == ("estimate" if connection.vendor == "postgresql" else "at_least") and count.value >= 5
    assert selectors.FactCount(100_096, "estimate").label == "about 100,000 facts"
    assert selectors.FactCount(24_123, "estimate").label == "about 24,000 facts"
    assert selectors.FactCount(10_000, "at_least").label == "more than 10,000 facts"


def test_an_old_page_number_still_works_and_knows_its_place(client, owner, workspace, eleven, small_pages):
    client.force_login(owner)
    expected = list(Fact.objects.filter(workspace=workspace).order_by("-created_at", "-id").values_list("pk", flat=True))
    url = reverse("memory:fact-list", args=[workspace.name])
    body = _get(client, url + "?page=2")
    assert _rows(body) == expected[3:6]
    assert "Page 2" in body
    assert _rows(_get(client, _links(body)["Next →"])) == expected[6:9]
    last = _get(client, url + "?page=4")
    assert _rows(last) == expected[9:12] and "Page 4 of 4" in last and "12 facts" in last
    assert _rows(_get(client, url + "?page=99")) == expected[:3]  # past the end: the first page
    assert _rows(_get(client, url + "?page=abc")) == expected[:3]


@pytest.mark.parametrize("cursor", ["after=nonsense", "before=12_x", "after=99999999999999999999999_1", "after=2.5_1&sort=-importance"])
def test_a_broken_cursor_shows_the_first_page(client, owner, workspace, eleven, small_pages, cursor):
    client.force_login(owner)
    sort = "-importance" if "sort" in cursor else "-created"
    expected = list(Fact.objects.filter(workspace=workspace).order_by(*SORTS[sort]).values_list("pk", flat=True))
    assert _rows(_get(client, reverse("memory:fact-list", args=[workspace.name]) + "?" + cursor)) == expected[:3]


def test_a_cursor_past_the_end_falls_back_to_the_first_page(client, owner, workspace, eleven, small_pages):
    client.force_login(owner)
    oldest = Fact.objects.filter(workspace=workspace).order_by("created_at", "id").first()
    cursor = selectors.encode_cursor(oldest, "-created")
    body = _get(client, reverse("memory:fact-list", args=[workspace.name]) + f"?after={cursor}")
    assert len(_rows(body)) == 3 and "← Previous" not in _links(body)


def test_htmx_pager_links_swap_the_table_and_push_the_url(client, owner, workspace, eleven, small_pages):
    client.force_login(owner)
    url = reverse("memory:fact-list", args=[workspace.name]) + "?segment=knowledge"
    body = _get(client, url)
    nav = body[body.index('<nav class="pager"') :]
    assert 'hx-target="#fact-table"' in nav and 'hx-push-url="true"' in nav and 'hx-get="' in nav
    after = _links(body)["Next →"]
    assert after.startswith(url + "&after=")  # the filters ride along with the cursor
    fragment = _get(client, after, **{"HX-Request": "true"})
    assert "<html" not in fragment and fragment.lstrip().startswith('<section id="fact-table"')
    assert len(_rows(fragment)) == 3 and 'id="bulk-form"' in fragment and 'name="ids"' in fragment


def test_origins_come_off_the_index_one_key_at_a_time(workspace, eleven):
    make_fact(workspace, "Another peer's note.", segment="context", origin="channel:tg/c9/s2")
    keys = selectors.distinct_origin_keys(workspace)
    assert keys == sorted(set(Fact.objects.filter(workspace=workspace).values_list("origin_key", flat=True)))
    assert len(keys) == 3
    assert next(o.label() for o in selectors.origins_of(workspace)) == "owner"


def test_the_list_reads_few_rows_whatever_the_size(client, owner, workspace, eleven, small_pages, django_assert_max_num_queries):
    """A middle page costs the page query, the count (or its estimate) and the origins: no query per row."""
    client.force_login(owner)
    url = reverse("memory:fact-list", args=[workspace.name])
    nxt = _links(_get(client, url))["Next →"]
    with django_assert_max_num_queries(12):
        assert len(_rows(_get(client, nxt))) == 3


def test_date_filters_take_whole_days_in_the_current_time_zone(client, owner, workspace):
    day = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=10)
    for offset, text in ((-1, "before"), (0, "first moment"), (0.9999, "last moment"), (1, "after")):
        make_fact(workspace, f"Fact {text}.", segment="knowledge", created_at=day + timedelta(days=offset))
    client.force_login(owner)
    url = reverse("memory:fact-list", args=[workspace.name])
    body = _get(client, url + f"?created_from={day.date()}&created_to={day.date()}")
    assert "Fact first moment." in body and "Fact last moment." in body
    assert "Fact before." not in body and "Fact after." not in body
    assert "Fact after." in _get(client, url + f"?created_from={(day + timedelta(days=1)).date()}")
