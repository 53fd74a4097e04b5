"""A review item's page shows each fact's evidence: links, events, what it replaced and what replaced it,
and every detail a detector stored, including facts deleted since the item was opened."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from governance.models import ReviewItem
from memory.models import Fact
from memory.selectors import events_of_fact
from memory.services.mutation import mutate
from tests.factories import make_fact, make_link

pytestmark = pytest.mark.django_db


def _item(workspace, fact, other=None, *, kind="contradiction", details=None, reason="they disagree"):
    return ReviewItem.objects.create(workspace=workspace, kind=kind, fact=fact, other_fact=other, reason=reason,
                                     details=details or {})  # fmt: skip


def _page(client, workspace, item):
    response = client.get(reverse("governance:review-detail", args=[workspace.name, item.pk]))
    assert response.status_code == 200
    return response, response.content.decode()


def _record(workspace, kind, ids, reason=""):
    with mutate(workspace, actor="test") as m:
        m.record(kind, fact_ids=ids, reason=reason)


def test_each_fact_shows_its_links_and_the_reason_and_score_stay(client, owner, workspace):
    fact, other = make_fact(workspace, "I love spicy food."), make_fact(workspace, "I cannot eat spicy food.")
    third = make_fact(workspace, "Thai curry on Fridays.")
    make_link(fact, third, "relates", reason="same meal")
    item = _item(workspace, fact, other, reason="spicy food: love vs cannot eat", details={"score": 0.91, "signal": "negation"})
    client.force_login(owner)
    response, body = _page(client, workspace, item)
    first, second = response.context["sides"]
    assert [(row["kind"], row["arrow"], row["other_id"]) for row in first["links"]] == [("relates", "→", third.memory_id)]
    assert second["links"] == []
    for text in ("spicy food: love vs cannot eat", "0.91", "negation", "same meal", third.memory_id):
        assert text in body
    make_link(other, fact, "contradicts")
    response, body = _page(client, workspace, item)
    assert [(row["other_id"], row["in_item"]) for row in response.context["sides"][1]["links"]] == [(fact.memory_id, True)]
    assert "(the other side)" in body


def test_each_fact_shows_its_own_events_newest_first_capped_with_a_link_to_the_log(client, owner, workspace):
    fact, other = make_fact(workspace, "I live in Lisbon."), make_fact(workspace, "I live in Porto.")
    for n in range(25):
        _record(workspace, "feedback", [fact.memory_id], reason=f"signal {n}")
    _record(workspace, "reinforced", [other.memory_id], reason="said again")
    item = _item(workspace, fact, other)
    client.force_login(owner)
    response, body = _page(client, workspace, item)
    first, second = response.context["sides"]
    assert [e.reason for e in first["events"]] == [f"signal {n}" for n in range(24, 4, -1)]
    assert first["more_events"] and not second["more_events"]
    assert [e.reason for e in second["events"]] == ["said again"]
    log = reverse("memory:event-list", args=[workspace.name]) + f"?fact={fact.memory_id}"
    assert log in body and "Every event of this fact" in body


def test_events_of_a_fact_match_its_id_exactly(workspace):
    fact = make_fact(workspace, "a", memory_id="mem_case_a")
    make_fact(workspace, "b", memory_id="MEM_CASE_A")
    make_fact(workspace, "c", memory_id="mem_case_ab")
    _record(workspace, "feedback", ["MEM_CASE_A"], reason="upper")
    _record(workspace, "feedback", ["mem_case_ab"], reason="longer")
    _record(workspace, "linked", ["mem_case_ab", fact.memory_id], reason="both")
    events, more = events_of_fact(workspace, fact.memory_id)
    assert [e.reason for e in events] == ["both"] and not more


def test_events_of_a_fact_read_a_bounded_window_of_the_log_and_say_when_more_may_be_older(workspace):
    fact, busy = make_fact(workspace, "a"), make_fact(workspace, "b")
    _record(workspace, "feedback", [fact.memory_id], reason="old")
    for n in range(5):
        _record(workspace, "feedback", [busy.memory_id], reason=f"busy {n}")
    _record(workspace, "feedback", [fact.memory_id], reason="recent")
    assert [e.reason for e in events_of_fact(workspace, fact.memory_id, window=3)[0]] == ["recent"]
    assert events_of_fact(workspace, fact.memory_id, window=3)[1]  # older ones may exist: the page links the log
    assert events_of_fact(workspace, fact.memory_id) == (list(events_of_fact(workspace, fact.memory_id)[0]), False)
    assert [e.reason for e in events_of_fact(workspace, fact.memory_id)[0]] == ["recent", "old"]


def test_what_each_fact_superseded_and_what_superseded_it(client, owner, workspace):
    old, older = make_fact(workspace, "I live in Faro."), make_fact(workspace, "I live in Braga.")
    fact = make_fact(workspace, "I live in Lisbon.", supersedes=[old.memory_id, "mem_long_gone"])
    make_link(fact, older, "corrects")
    other = make_fact(workspace, "I live in Porto.", lifecycle="archived", valid_to=timezone.now(), archived_at=timezone.now())
    newer = make_fact(workspace, "I live in Coimbra now.")
    make_link(newer, other, "supersedes")
    item = _item(workspace, fact, other)
    client.force_login(owner)
    response, body = _page(client, workspace, item)
    first, second = response.context["sides"]
    assert {(s["memory_id"], s["how"]) for s in first["superseded"]} == {
        (old.memory_id, "named in supersedes"), ("mem_long_gone", "named in supersedes"), (older.memory_id, "corrects")}
    assert first["superseded_by"] is None and second["superseded_by"] == newer
    assert "I live in Coimbra now." in body and "I live in Faro." in body and "no longer exists" in body


def test_unknown_detail_keys_are_listed_escaped_and_cut(client, owner, workspace):
    details = {"score": 0.5, "signal": "place", "trust_mismatch": True, "new_detector_key": {"words": ["tea", "coffee"]},
               "long_note": "y" * 1000, "html": "<script>alert(1)</script>", "rules": ["slot_protection", "pii"],
               "subject_key": None}  # fmt: skip
    item = _item(workspace, make_fact(workspace, "a"), make_fact(workspace, "b"), details=details)
    client.force_login(owner)
    _, body = _page(client, workspace, item)
    assert "New detector key" in body and "{&quot;words&quot;: [&quot;tea&quot;, &quot;coffee&quot;]}" in body
    assert "y" * 299 + "…" in body and "y" * 300 not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script>alert" not in body
    assert "an untrusted source disagrees with a trusted one" in body and "trust_mismatch" not in body
    assert "<dt>Rules</dt><dd>slot_protection, pii</dd>" in body and "<dt>Subject key</dt><dd>—</dd>" in body


def test_a_deleted_fact_shows_as_deleted_with_its_kept_id_and_events(client, owner, workspace):
    fact, other = make_fact(workspace, "I live in Lisbon."), make_fact(workspace, "I live in Porto.")
    item = _item(workspace, fact, other)
    gone = other.memory_id
    with mutate(workspace, actor="test") as m:
        Fact.objects.filter(pk=other.pk).delete()
        m.record("purged", fact_ids=[gone], reason="by request")
    client.force_login(owner)
    response, body = _page(client, workspace, ReviewItem.objects.get(pk=item.pk))
    side = response.context["sides"][1]
    assert side["fact"] is None and side["memory_id"] == gone and [e.kind for e in side["events"]] == ["purged"]
    assert f"Fact {gone} was deleted" in body and "I live in Lisbon." in body


def test_a_promotion_without_an_other_fact_has_one_column(client, owner, workspace):
    item = _item(workspace, make_fact(workspace, "My passport number is X123."), kind="promotion")
    client.force_login(owner)
    response, body = _page(client, workspace, item)
    assert len(response.context["sides"]) == 1 and "review-single" in body and "Other fact" not in body


def test_the_page_reads_a_constant_number_of_queries_whatever_the_evidence(client, owner, workspace):
    def queries_for(n):
        fact, other = make_fact(workspace, "I live in Lisbon."), make_fact(workspace, "I live in Porto.")
        for i in range(n):
            make_link(fact, make_fact(workspace, f"note {i}"), "relates")
            make_link(make_fact(workspace, f"other note {i}"), other, "relates")
            _record(workspace, "feedback", [fact.memory_id, other.memory_id])
        item = _item(workspace, fact, other)
        with CaptureQueriesContext(connection) as captured:
            _page(client, workspace, item)
        return len(captured)

    client.force_login(owner)
    small, large = queries_for(1), queries_for(30)
    assert small == large and large <= 30


def test_each_fact_says_when_it_was_archived_and_how_often_it_was_used_in_plain_words(client, owner, workspace):
    from datetime import UTC, datetime

    archived_at = datetime(2026, 11, 28, 14, 13, tzinfo=UTC)
    old = make_fact(workspace, "I live in Lisbon.", lifecycle="archived", archived_at=archived_at,
                    valid_to=archived_at, access_count=1, last_accessed_at=archived_at)  # fmt: skip
    new = make_fact(workspace, "I live in Porto.", access_count=0)
    item = _item(workspace, new, old)
    client.force_login(owner)
    _, body = _page(client, workspace, item)
    assert "archived <span class=\"muted\">on 2026-11-28 14:13</span>" in body and "until 2026" not in body
    assert "Never used" in body and "Used once, on 2026-11-28 14:13" in body and "0 uses" not in body
    old.access_count, old.valid_to = 3, datetime(2027, 1, 1, tzinfo=UTC)
    old.save(update_fields=["access_count", "valid_to"])
    _, body = _page(client, workspace, item)
    assert "Used 3 times, last on 2026-11-28 14:13" in body and "valid until 2027-01-01 00:00" in body
