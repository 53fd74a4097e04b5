"""Hard deletion of facts: the one place memory removes fact rows (a purge, a shred, a retention run).

Everything else only archives. Deleting goes through here so the deletion has its event and so
apps that follow memory (governance's review items) hear of it through `facts_deleted`, in the
same transaction, without memory knowing who they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memory.models import Fact
from memory.services.mutation import Mutation
from memory.services.recall import index_snapshots
from memory.services.writes.near_duplicates import unindex_facts
from memory.signals import facts_deleted

# Ids per statement: well under SQLite's bound-variable limit, and a bounded ORM collection.
_CHUNK = 500


def delete_facts(m: Mutation, memory_ids: Sequence[str], *, kind: str = "purged", reason: str = "",
                 progress: Callable[[int], Any] | None = None, **data: Any) -> list[str]:  # fmt: skip
    """Delete the facts of `m.workspace` named in `memory_ids`, inside mutation `m`.

    Records one `kind` event ("purged", "shredded") naming the deleted ids and carrying `data` (a
    purge's receipt fields), then sends `facts_deleted`; the event also counts the review items the
    receivers closed (`review_items_closed`). Ids that name no fact are ignored; returns the ids
    actually deleted. `progress(n)` is told of each chunk of ids done.
    """
    wanted = list(dict.fromkeys(memory_ids))
    deleted: list[str] = []
    for start in range(0, len(wanted), _CHUNK):
        facts = Fact.objects.filter(workspace=m.workspace, memory_id__in=wanted[start : start + _CHUNK])
        rows = list(facts.values_list("pk", "memory_id"))
        if progress is not None:
            progress(len(wanted[start : start + _CHUNK]))
        if not rows:
            continue
        # Postings carry term counts: dropping them through the index keeps the counts right.
        unindex_facts([pk for pk, _ in rows])
        Fact.objects.filter(pk__in=[pk for pk, _ in rows]).delete()
        deleted += [memory_id for _, memory_id in rows]
    if deleted:
        # A snapshot of a recall index still holds the deleted facts' text: gone with them.
        index_snapshots.discard(m.workspace.pk)
        event = m.record(kind, fact_ids=deleted, reason=reason, **data)
        responses = facts_deleted.send(sender=Fact, workspace=m.workspace, memory_ids=deleted, kind=kind,
                                       reason=reason, mutation=m)  # fmt: skip
        event.data["review_items_closed"] = sum(
            v for _, v in responses if isinstance(v, int) and not isinstance(v, bool))
    return deleted
