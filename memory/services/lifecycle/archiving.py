"""Archiving many facts at once inside a caller's mutation (a retention run, say).

`curation.set_lifecycle` saves and records fact by fact, right for a person's few clicks; a policy
that ages out 100,000 facts needs set-wise UPDATEs and one `archived` event per chunk of ids (each
names its facts, so replay, the inspector and every process's recall index see them as archived).
The caller's mutation holds the workspace lock, so nothing changes the facts between its selection
and this update; only facts still active are archived, so a repeated call archives nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memory.models import Fact
from memory.services.maintenance.passes import _unindex
from memory.services.mutation import Mutation

CHUNK = 1000  # ids per UPDATE and per event: under SQLite's variable limit, events of a readable size


def archive_in_mutation(
    m: Mutation, rows: Sequence[tuple[int, str]], *, reason: str, progress: Callable[[int], Any] | None = None,
    **data: Any,
) -> list[str]:  # fmt: skip
    """Archive the active facts among `rows` (pk, memory_id) of `m.workspace`, stamped `m.now`.

    One `archived` event per chunk carries `reason`, before/after and `data`; the facts leave the
    near-duplicate postings. Returns the memory ids archived (facts no longer active are skipped)."""
    archived: list[str] = []
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        live = Fact.objects.filter(workspace=m.workspace, pk__in=[pk for pk, _ in chunk], lifecycle="active")
        found = list(live.values_list("pk", "memory_id"))
        if found:
            Fact.objects.filter(pk__in=[pk for pk, _ in found]).update(lifecycle="archived", archived_at=m.now)
            ids = [memory_id for _, memory_id in found]
            m.record("archived", fact_ids=ids, reason=reason, before={"lifecycle": "active"},
                     after={"lifecycle": "archived"}, **data)  # fmt: skip
            _unindex([pk for pk, _ in found])
            archived += ids
        if progress is not None:
            progress(len(chunk))
    return archived
