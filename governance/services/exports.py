"""Admin exports: facts (facts.jsonl, JSON), the memory graph (GraphML, JSON) and the event log
(JSONL, CSV), streamed, each download leaving one `exported` event (who, what, filters, count).

Facts come out exactly as `tideline export` writes them (memory.services.writes.interchange), narrowed by
the admin's filters; a shredded origin's facts are never exported. The event log honours the same
filters as the event log page. CSV cells that a spreadsheet would read as a formula are neutralised.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Q
from django.utils import timezone

from governance.services.acting import actor_text, require_role
from memory import selectors
from memory.engine.facts import records as R
from memory.models import Workspace
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.writes.interchange import count_facts as interchange_count
from memory.services.writes.interchange import export_facts

FACT_FORMATS = {"jsonl": "facts.jsonl", "json": "facts.json"}
EVENT_FORMATS = {"jsonl": "events.jsonl", "csv": "events.csv"}
GRAPH_FORMATS = {"graphml": "graph.graphml", "json": "graph.json"}
EVENT_FIELDS = ("revision", "at", "kind", "actor", "reason", "fact_ids", "data")
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class FactFilters:
    origin: str = ""  # an origin's label or key
    classification: str = ""
    lifecycle: str = ""
    segment: str = ""
    created_from: date | None = None
    created_to: date | None = None

    def where(self) -> Q:
        q = Q()
        if self.origin:
            try:
                q &= Q(origin_key=R.parse_origin(self.origin).key)
            except R.OriginError as error:
                raise RequestError(f"origin: {error}", kind="validation") from error
        for name, allowed in (("classification", R.CLASSIFICATIONS), ("lifecycle", R.LIFECYCLES),
                              ("segment", R.SEGMENTS)):  # fmt: skip
            value = getattr(self, name)
            if value and value not in allowed:
                raise RequestError(f"{name} must be one of {', '.join(allowed)}", kind="validation")
            if value:
                q &= Q(**{name: value})
        if self.created_from:
            q &= Q(created_at__gte=_day_start(self.created_from))
        if self.created_to:
            q &= Q(created_at__lt=_day_start(self.created_to) + timedelta(days=1))
        return q

    def to_dict(self) -> dict:
        return {k: (v.isoformat() if isinstance(v, date) else v) for k, v in self.__dict__.items() if v}


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


def record_export(workspace: Workspace, *, user=None, actor: str, what: str, filters: dict, count: int) -> int:
    """The `exported` event of one download; returns its revision."""
    require_role(user, workspace, "export", "export memory")
    actor = actor_text(actor)
    with mutate(workspace, actor=actor) as m:
        m.record("exported", what=what, filters=filters, count=count)
    return m.revision


def count_facts(workspace: Workspace, filters: FactFilters) -> int:
    """How many facts the download holds: those the filters select, less a shredded origin's."""
    return interchange_count(workspace, where=filters.where())


def fact_lines(workspace: Workspace, filters: FactFilters) -> Iterator[str]:
    """facts.jsonl, one record a line, in write order."""
    for record in export_facts(workspace=workspace, where=filters.where()):
        yield json.dumps(record, ensure_ascii=False) + "\n"


def fact_document(workspace: Workspace, filters: FactFilters) -> Iterator[str]:
    """The same records as one JSON document ({"workspace", "facts": [...]}), streamed."""
    yield json.dumps({"workspace": workspace.name, "filters": filters.to_dict()}, ensure_ascii=False)[:-1] + ', "facts": ['
    for i, record in enumerate(export_facts(workspace=workspace, where=filters.where())):
        yield ("," if i else "") + "\n" + json.dumps(record, ensure_ascii=False)
    yield "\n]}\n"


def filtered_events(workspace: Workspace, data: dict):
    """The event log as the event log page filters it (kind, actor, fact, dates), oldest first."""
    return selectors.filtered_events(workspace, data).order_by("revision", "id")


def event_rows(events, fmt: str) -> Iterator[str]:
    """The events as JSONL, or as CSV with formula-like cells neutralised."""
    if fmt == "csv":
        yield _csv_line(EVENT_FIELDS)
    for event in events.iterator(chunk_size=2000):
        record = {"revision": event.revision, "at": event.at.isoformat(), "kind": event.kind, "actor": event.actor,
                  "reason": event.reason, "fact_ids": event.fact_ids, "data": event.data}  # fmt: skip
        if fmt == "jsonl":
            yield json.dumps(record, ensure_ascii=False) + "\n"
        else:
            yield _csv_line([json.dumps(record[f], ensure_ascii=False) if f in ("fact_ids", "data") else record[f]
                             for f in EVENT_FIELDS])  # fmt: skip


def neutralise(value) -> str:
    """A CSV cell a spreadsheet will show as text: one that starts like a formula gets a leading '."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _csv_line(values) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow([neutralise(v) for v in values])
    return buffer.getvalue()
