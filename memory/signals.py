"""Hooks other apps use to follow memory without memory knowing them (ARCHITECTURE.md §1).

`demo_loaded` is sent once the demo workspace's facts are in (keyword argument `workspace`), so
other apps can do their first pass over it (governance opens the demo's contradictions).

`write_held` is sent inside the write's mutation (same transaction, workspace lock held) when a write
is held for review (`memory.engine.writes.holds`): stored with lifecycle `held`, out of recall until a
verdict admits it. Keyword arguments: `workspace`, `fact` (the held fact), `hold_kind`
("quarantine" or "promotion"), `held_by` (the fact it disputes or would replace, or None),
`replaces` (the memory ids it would replace if admitted), `rules`, `reason` (in words),
`detector_score` (the injection detector's 0–1 score for an untrusted write, or None) and
`mutation` (its `actor`, `now` and `record()`). A receiver that opens a review item returns that
item's id; the write reports the first id returned. A receiver that raises rolls the write back, so
a hold is never stored without whatever its receivers keep about it.
"""

from __future__ import annotations

import logging

from django.dispatch import Signal

log = logging.getLogger("tideline.signals")

write_held = Signal()
demo_loaded = Signal()

# Sent by `memory.services.recall.verbs.feedback` inside the feedback's mutation, after a vote on an
# active fact was recorded, when the caller named the query whose hit it judged. Keyword arguments:
# `workspace`, `memory_id`, `vote` ("up" or "down"), `query` and `actor`. Governance keeps it as a
# gold-case candidate for a person to accept or reject; memory keeps no query.
feedback_given = Signal()

# Sent (robustly: a receiver's error is logged, never the caller's) by
# `memory.services.recall.verbs.recall_selection` after a recall served as an agent's answer: one that
# reinforces what it returns, read now, with the workspace's own settings (the playground, `explain`,
# `context` and evaluations send nothing). Keyword arguments: `workspace`, `query`, `origin_key` (the
# scope that asked), `memory_ids` (what came back, best first; [] when nothing was relevant),
# `settings_version` (the tuning version that ranked them) and `at`. Memory keeps no query.
recall_served = Signal()

# Sent (robustly) by `memory.services.writes.write_path.write_fact` after a write stored a new active
# fact and committed. Keyword arguments: `workspace` and `fact`.
fact_written = Signal()

# Sent by `memory.services.lifecycle.deletion.delete_facts` inside the deleting mutation, after the fact rows
# are gone (purged, shredded or otherwise hard-deleted). Keyword arguments: `workspace`,
# `memory_ids` (the ids actually deleted), `kind` ("purged", "shredded", ...), `reason` (in words,
# may be empty) and `mutation` (to record events in the same revision). A receiver that raises rolls
# the deletion back, so nobody following memory is left pointing at a fact that silently vanished.
facts_deleted = Signal()

# Sent by `memory.services.keys.crypto_shred.shred_origin` inside the shredding mutation, after the origin's
# vectors and postings are gone and just before its data key is destroyed. The fact rows stay as
# tombstones (metadata only, content unreadable). Keyword arguments: `workspace`, `origin_key`,
# `memory_ids` (every fact of the origin), `reason` (in words, may be empty) and `mutation`. A
# receiver that closes review items returns how many; one that raises rolls the mutation back (the
# key is then left intact, and the shred stays recorded as unfinished until it is run again). The
# signal may come a second time for an origin whose first shred was stopped before its commit.
origin_shredded = Signal()

# Sent by `memory.services.lifecycle.retract_and_purge.retract_facts` inside the retracting mutation, after the facts
# were archived with status `retracted`. Keyword arguments as for `facts_deleted` (`kind` is
# "retracted"): nothing is left to decide about a retracted fact, so its open review items close.
facts_retracted = Signal()

# Sent by `memory.services.lifecycle.curation.set_lifecycle` inside its mutation before archived facts are
# restored by a person (the console's Restore, one fact or many). Keyword arguments: `workspace`,
# `memory_ids`. A receiver returns {memory_id: reason} for the facts that only a verdict may bring
# back (a held write a reviewer blocked, say); any answer refuses the whole restore, nothing changed.
restore_requested = Signal()


def first_id(responses: list[tuple[object, object]]) -> int | None:
    """The first integer a receiver returned (a review item's id), if any."""
    return next((value for _, value in responses if isinstance(value, int) and not isinstance(value, bool)), None)


def send_after(signal: Signal, sender: object, **kwargs: object) -> None:
    """Send `signal` for what already happened: a receiver's error is logged, never raised, so what
    other apps keep about a recall or a write never fails the recall or the write."""
    for receiver, outcome in signal.send_robust(sender=sender, **kwargs):
        if isinstance(outcome, Exception):
            log.error("%s failed on %s: %r", getattr(receiver, "__qualname__", receiver), sender, outcome)
