"""A mutation's events are stored whole and in order, however many it logs (memory/services/mutation.py).

Many events (a dream batch logs thousands) go in by COPY on PostgreSQL, a few by INSERT: both must
give the same rows."""

from __future__ import annotations

import pytest

from memory.models import MemoryEvent
from memory.services import mutation
from memory.services.mutation import mutate

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("count", [3, mutation.COPY_EVENTS_FROM + 7])
def test_every_event_of_a_mutation_is_stored_with_its_revision_and_data(workspace, count):
    with mutate(workspace, actor="dream:0123456789ab") as m:
        queued = [m.record("evicted", fact_ids=[f"mem_{i}"], reason=f"score {i} below the floor",
                           before={"lifecycle": "active", "valid_to": None},
                           after={"lifecycle": "archived", "valid_to": 1_795_799_223_648, "note": "ünïcode\ttab"})
                  for i in range(count)]  # fmt: skip
    assert all(event.pk for event in queued)  # each has its id, as after an INSERT
    stored = list(MemoryEvent.objects.filter(workspace=workspace, kind="evicted").order_by("pk"))
    assert [e.pk for e in stored] == [e.pk for e in queued]
    assert {e.revision for e in stored} == {m.revision}
    last = stored[-1]
    assert last.fact_ids == [f"mem_{count - 1}"] and last.reason == f"score {count - 1} below the floor"
    assert last.data == {"before": {"lifecycle": "active", "valid_to": None},
                         "after": {"lifecycle": "archived", "valid_to": 1_795_799_223_648, "note": "ünïcode\ttab"}}  # fmt: skip
    assert last.actor == "dream:0123456789ab" and last.at == m.now
