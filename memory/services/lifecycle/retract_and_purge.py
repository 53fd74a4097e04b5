"""Retract (soft) and purge (hard) facts: the memory primitive behind governance's purge page.

A retraction archives facts with status `retracted` and the reason; the console's restore brings
them back. A hard purge removes rows, inside one mutation: the seeds plus their provenance cascade
(`memory.engine.lifecycle.provenance`), every link from or to a purged fact, the near-duplicate postings and
vectors (through `deletion.delete_facts`, the one hard-delete path, whose `facts_deleted` signal
lets governance close the review items in the same transaction). Every process's recall index and
graph cache drops the facts on its next sync, from the receipt's `fact_ids`.

The receipt is ONE `purged` event, content-free: who (the mutation's actor), when, why, counts, the
opaque ids (replay and other processes find the receipt by them) and, per fact, a keyed hash of its
id and of its content (`hashes`, in the order of `fact_ids`: HMAC-SHA256 cut to 128 bits; the
content's is null for a fact whose origin was shredded). The hash key is derived from
TIDELINE_MASTER_KEY, not SECRET_KEY: it lives outside the database like the data keys, so a dump of
the event log cannot be checked against guessed contents, and a leaked SECRET_KEY (web sessions)
does not open it either; whoever holds the master key can prove that a given text was purged
(`receipt_matches`). `hash_key` in the receipt names the key (a fingerprint), since rotating the
master key makes older receipts verifiable only with the old one.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db.models import Q

from memory import sealing
from memory.engine.lifecycle import provenance
from memory.models import Fact, Link, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.services.lifecycle.deletion import delete_facts
from memory.services.mutation import Mutation, mutate
from memory.signals import facts_retracted

_CHUNK = 500  # ids per IN (...): under SQLite's bound-variable limit
_LABEL = b"tideline purge receipt"


@dataclass(frozen=True)
class PurgeReport:
    workspace: str
    hard: bool
    facts: int
    cascaded: int  # of `facts`, those that went only because they were derived from the others
    links: int
    review_items_closed: int
    revision: int
    actor: str
    reason: str
    purged_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- the cascade


def plan(workspace: Workspace, memory_ids: Sequence[str], *, cascade: bool = True,
         eligible: Collection[str] | Callable[[str], bool] | None = None) -> provenance.Cascade:  # fmt: skip
    """The facts a hard purge of `memory_ids` removes (seeds naming no fact are dropped), read from
    the database: each fact's source pointers, the `derived_from` links, and which facts are live."""
    seeds = list(dict.fromkeys(memory_ids))
    known = _existing(workspace, seeds)
    if not cascade:
        return provenance.cascade(seeds, {}, set(), known=known, follow=False)
    pointers = dict(
        Fact.objects.filter(workspace=workspace).exclude(source_pointers=[]).exclude(source_pointers__isnull=True)
        .values_list("memory_id", "source_pointers")
    )  # fmt: skip
    links = list(
        Link.objects.filter(workspace=workspace, kind="derived_from", to_fact__isnull=False)
        .values_list("from_fact__memory_id", "to_fact__memory_id")
    )  # fmt: skip
    if not pointers and not links:
        return provenance.Cascade(tuple(s for s in seeds if s in known), ())
    sources = provenance.sources_of(pointers, links)
    states = _states(workspace, set(sources) | {s for srcs in sources.values() for s in srcs} | known)
    live = {mid for mid, lifecycle in states.items() if lifecycle == "active"}
    return provenance.cascade(seeds, sources, live, known=set(states), eligible=eligible)


def _existing(workspace: Workspace, ids: Sequence[str]) -> set[str]:
    return set(_states(workspace, ids))


def _states(workspace: Workspace, ids) -> dict[str, str]:
    """memory id → lifecycle of the facts among `ids`; a shredded origin's facts are never live."""
    ids = sorted(ids)
    out: dict[str, str] = {}
    origins: dict[str, bool] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = Fact.objects.filter(workspace=workspace, memory_id__in=ids[start : start + _CHUNK]).values_list(
            "memory_id", "lifecycle", "origin_key")
        for memory_id, lifecycle, origin_key in rows:
            if origin_key not in origins:
                origins[origin_key] = sealing.keyring.exists(workspace.pk, origin_key)
            out[memory_id] = lifecycle if origins[origin_key] else "shredded"
    return out


# ---------------------------------------------------------------- hard purge


def purge_in_mutation(m: Mutation, memory_ids: Sequence[str], *, reason: str, cascade: bool = True,
                      eligible: Collection[str] | Callable[[str], bool] | None = None,
                      progress: Callable[[int], Any] | None = None) -> PurgeReport:  # fmt: skip
    """Hard-delete `memory_ids` of `m.workspace` and their cascade inside the caller's mutation.

    Ids naming no fact are ignored. Records one `purged` receipt (nothing when nothing matched).
    `progress(n)` hears of the facts deleted, chunk by chunk."""
    chosen = plan(m.workspace, memory_ids, cascade=cascade, eligible=eligible)
    ids = list(chosen.purged)
    if not ids:
        return PurgeReport(m.workspace.name, True, 0, 0, 0, 0, m.revision, m.actor, reason, [])
    rows = _rows(m.workspace, ids)  # (pk, memory_id, origin_key, sealed_content) in the order of `ids`
    pks = [row[0] for row in rows]
    links = 0
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start : start + _CHUNK]
        links += Link.objects.filter(Q(from_fact_id__in=chunk) | Q(to_fact_id__in=chunk), workspace=m.workspace).delete()[0]
    key, openers = _receipt_key(), {}
    hashes = [[_mac(key, "id", m.workspace.pk, memory_id), _content_mac(key, m.workspace.pk, origin, sealed, openers)]
              for _, memory_id, origin, sealed in rows]  # fmt: skip
    cascaded = set(chosen.cascaded)
    deleted = delete_facts(
        m, [row[1] for row in rows], kind=MemoryEvent.Kind.PURGED, reason=reason, facts=len(rows),
        cascaded=sum(1 for row in rows if row[1] in cascaded), links=links, hard=True,
        hash_key=_fingerprint(key), hashes=hashes, progress=progress,
    )  # fmt: skip
    receipt = next(e for e in reversed(m.events) if e.kind == MemoryEvent.Kind.PURGED)
    return PurgeReport(m.workspace.name, True, len(deleted), receipt.data["cascaded"], links,
                       receipt.data.get("review_items_closed", 0), m.revision, m.actor, reason, deleted)  # fmt: skip


def purge_facts(workspace: Workspace, memory_ids: Sequence[str], *, actor: str, reason: str = "",
                cascade: bool = True, eligible: Collection[str] | Callable[[str], bool] | None = None,
                progress: Callable[[int], Any] | None = None) -> PurgeReport:  # fmt: skip
    """Hard purge as one mutation; refuses (nothing changed) when no id names a fact."""
    with mutate(workspace, actor=actor) as m:
        report = purge_in_mutation(m, memory_ids, reason=reason, cascade=cascade, eligible=eligible,
                                   progress=progress)  # fmt: skip
        if not report.facts:
            raise RequestError("nothing matches: no fact of this workspace has those ids; nothing was changed",
                               kind="not_found")  # fmt: skip
    return report


def _rows(workspace: Workspace, ids: Sequence[str]) -> list[tuple]:
    found: dict[str, tuple] = {}
    for start in range(0, len(ids), _CHUNK):
        for row in Fact.objects.filter(workspace=workspace, memory_id__in=ids[start : start + _CHUNK]).values_list(
                "pk", "memory_id", "origin_key", "sealed_content"):  # fmt: skip
            found[row[1]] = row
    return [found[i] for i in ids if i in found]


# ---------------------------------------------------------------- soft retraction


def retract_facts(workspace: Workspace, memory_ids: Sequence[str], *, actor: str, reason: str = "") -> PurgeReport:
    """Archive the facts (any lifecycle but archived already) with status `retracted` and `reason`.

    Reversible: the console's restore (`curation.set_lifecycle(..., "active")`) brings them back.
    One `archived` event per fact carries before/after, as a reviewer's block does."""
    from memory.services.lifecycle.curation import set_fact_states

    with mutate(workspace, actor=actor) as m:
        rows = []
        wanted = list(dict.fromkeys(memory_ids))
        for start in range(0, len(wanted), _CHUNK):
            rows += Fact.objects.filter(workspace=m.workspace, memory_id__in=wanted[start : start + _CHUNK]).exclude(
                lifecycle="archived", status="retracted").values_list("memory_id", flat=True)  # fmt: skip
        if not rows:
            raise RequestError("nothing matches: no fact left to retract among those ids; nothing was changed",
                               kind="not_found")  # fmt: skip
        now = m.now.isoformat()
        set_fact_states(m, {mid: {"lifecycle": "archived", "status": "retracted", "archived_at": now} for mid in rows},
                        reason=reason or "retracted")  # fmt: skip
        facts_retracted.send(sender=Fact, workspace=m.workspace, memory_ids=list(rows), kind="retracted",
                             reason=reason, mutation=m)  # fmt: skip
        revision = m.revision
    return PurgeReport(workspace.name, False, len(rows), 0, 0, 0, revision, actor, reason, list(rows))


# ---------------------------------------------------------------- receipts


def _receipt_key() -> bytes:
    return hmac.new(sealing._master_key(), _LABEL, hashlib.sha256).digest()


def _fingerprint(key: bytes) -> str:
    return hmac.new(key, b"fingerprint", hashlib.sha256).hexdigest()[:16]


def _mac(key: bytes, what: str, workspace_id: int, value: str) -> str:
    # HMAC-SHA256 cut to 128 bits (32 hex): ample against forgery and guessing, and half the size
    # of a receipt that names 100,000 facts.
    return hmac.new(key, f"{what}|{workspace_id}|{value}".encode(), hashlib.sha256).hexdigest()[:32]


def _content_mac(key: bytes, workspace_id: int, origin_key: str, sealed: bytes, openers: dict) -> str | None:
    """The keyed hash of the content, or None when the origin was shredded (nothing left to hash)."""
    if origin_key not in openers:
        try:
            openers[origin_key] = sealing.unsealer(workspace_id, origin_key, "content")
        except sealing.KeyDestroyedError:
            openers[origin_key] = None
    if openers[origin_key] is None:
        return None
    return _mac(key, "content", workspace_id, openers[origin_key](sealed).decode("utf-8"))


def receipt_matches(event: MemoryEvent, memory_id: str, content: str | None = None) -> bool:
    """Whether the `purged` receipt `event` names `memory_id` (and, given, that it held exactly `content`)."""
    key = _receipt_key()
    if event.data.get("hash_key") != _fingerprint(key) or memory_id not in event.fact_ids:
        return False
    id_mac, content_mac = event.data["hashes"][event.fact_ids.index(memory_id)]
    if not hmac.compare_digest(id_mac, _mac(key, "id", event.workspace_id, memory_id)):
        return False
    return content is None or (content_mac is not None and hmac.compare_digest(
        content_mac, _mac(key, "content", event.workspace_id, content)))  # fmt: skip


