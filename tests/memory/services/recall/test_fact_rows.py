"""The recall index's reader (memory.services.recall.fact_rows) reads what the ORM reads: the same
facts in the same order, every value equal, timestamps as `to_ms` of the ORM's datetimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.models import Fact
from memory.services.recall import fact_rows
from memory.timestamps import to_ms

pytestmark = pytest.mark.django_db

MOMENTS = {
    "whole millisecond": datetime(2026, 3, 1, 12, 0, 0, 123000, tzinfo=UTC),
    "microseconds": datetime(2026, 3, 1, 12, 0, 0, 123457, tzinfo=UTC),
    "whole second": datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC),
    "before the epoch": datetime(1969, 12, 31, 23, 59, 59, 999001, tzinfo=UTC),
    "far ahead": datetime(2999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
}


def _orm_rows(workspace, origin_key: str, ids=None):
    facts = Fact.objects.filter(workspace=workspace, origin_key=origin_key)
    if ids is not None:
        facts = facts.filter(memory_id__in=ids)
    out = []
    for values in facts.order_by("pk").values_list(*fact_rows.COLUMNS):
        row = dict(zip(fact_rows.COLUMNS, values, strict=True))
        for name, value in row.items():
            if isinstance(value, datetime):
                row[name] = to_ms(value)
        row["supersedes"] = row["supersedes"] or None
        out.append(row)
    return out


def test_every_value_equals_the_orms_timestamps_as_to_ms(tl, workspace):
    ids = [tl.add(f"Fact number {i} about the {name}.", segment="knowledge").id for i, name in enumerate(MOMENTS)]
    tl.add("The newer fact replaces the first.", segment="knowledge", supersedes=[ids[0]])
    for memory_id, moment in zip(ids, MOMENTS.values(), strict=True):
        Fact.objects.filter(memory_id=memory_id).update(
            created_at=moment, last_accessed_at=moment + timedelta(microseconds=1), valid_to=moment,
            archived_at=moment, held_at=moment - timedelta(days=1), admitted_at=moment,
        )  # fmt: skip
    read = [row._asdict() for row in fact_rows.read(workspace.pk, "owner")]
    assert read == _orm_rows(workspace, "owner")
    assert [row["memory_id"] for row in read[:5]] == ids  # write (pk) order
    assert {type(row["created_at"]) for row in read[:5]} == {int, float}  # whole ms an int, else a float
    assert read[-1]["supersedes"] == [ids[0]] and read[0]["supersedes"] is None


def test_only_the_named_facts_and_only_this_origin(tl, workspace):
    first = tl.add("I like green tea.", segment="preference").id
    second = tl.add("I like black coffee.", segment="preference").id
    tl.add("The channel's own fact.", segment="knowledge", origin="channel:slack/c1/s1")
    assert [row.memory_id for row in fact_rows.read(workspace.pk, "owner", [second, "no-such-id"])] == [second]
    assert [row.memory_id for row in fact_rows.read(workspace.pk, "owner")] == [first, second]
    assert list(fact_rows.read(workspace.pk, "owner", [])) == []
    assert [row._asdict() for row in fact_rows.read(workspace.pk, "owner", [first])] == _orm_rows(
        workspace, "owner", [first]
    )
