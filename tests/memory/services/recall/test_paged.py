"""Reads for recall indexes (memory.services.recall.paged): one plain query when the rows fit in a
page; every row, once and in order, when they do not (the rest streamed from where the page ended)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.models import Fact, MemoryEvent
from memory.services.recall import fact_rows, paged

pytestmark = pytest.mark.django_db


@pytest.fixture
def facts(tl):
    return [tl.add(f"Fact number {i} about the harbour.", segment="knowledge").id for i in range(7)]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 8, 100])
def test_every_fact_once_in_write_order_whatever_the_page_size(facts, workspace, chunk):
    assert [row.memory_id for row in fact_rows.read(workspace.pk, "owner", chunk=chunk)] == facts


@pytest.mark.parametrize("chunk", [1, 3, 7, 50])
def test_queryset_rows_once_in_order(facts, workspace, chunk):
    events = MemoryEvent.objects.filter(workspace=workspace).order_by("revision", "pk").values_list("pk", flat=True)
    assert list(paged.rows(events, chunk)) == list(events)


def test_a_page_that_holds_everything_is_one_plain_query(facts, workspace):
    with CaptureQueriesContext(connection) as queries:
        rows = list(fact_rows.read(workspace.pk, "owner", chunk=100))
    assert len(rows) == 7
    sql = [q["sql"] for q in queries.captured_queries]
    assert len(sql) == 1 and "DECLARE" not in sql[0].upper()


def test_a_queryset_without_a_complete_order_is_refused(workspace):
    with pytest.raises(ValueError, match="order_by"):
        list(paged.rows(Fact.objects.filter(workspace=workspace).values_list("pk"), 10))
