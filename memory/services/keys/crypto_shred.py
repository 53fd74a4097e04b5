"""Crypto-shred of one origin: destroy its data key, keep its facts as content-free tombstones.

Everything an origin wrote is sealed under its own data key (`memory.sealing`), so destroying that
key makes the content, metadata, link reasons and vectors unreadable here and in every backup of the
database. The fact rows stay, as tombstones: ids, timestamps, segment and origin remain (the event
log and review items still name them), and nothing can open what they held.

A shred is two commits, so a crash anywhere leaves either no shred or one a retry finishes. First
a `ShredIntent` row is committed (the decision: origin, who, why). Then one mutation does the rest:
the derived data that could be inverted into text (near-duplicate postings, learned vectors) goes,
one `shredded` event (the receipt) names every fact, `origin_shredded` lets apps that follow memory
(the review queue, pending console uploads) close what they hold about the origin, the key is
destroyed last, and the intent row is deleted, all in the same transaction. A process killed after
the intent committed (before or after the key file went) leaves the intent: running the shred again
(`shred_origin`, the console's shred page, `tideline shred`) finishes it and writes the receipt,
even though the key is gone by then. The `shredded` event makes each process's recall index touch
the facts on its next sync and drop the origin (see `recall_index`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q

from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, FactTerm, FactVector, Link, MemoryEvent, ShredIntent, TermStat, Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.keys import binding as key_binding
from memory.services.mutation import mutate
from memory.services.recall import index_snapshots
from memory.signals import origin_shredded
from tideline_kit import telemetry

_CHUNK = 5000  # ids per read: a flat list of strings, never ORM objects


@dataclass(frozen=True)
class ShredPreview:
    """What a shred of one origin would make unreadable, counted (nothing is read in the clear)."""

    workspace: str
    origin_key: str
    facts: int
    links: int  # links from or to the origin's facts (their reasons sealed under it die with it)
    vectors: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ShredReport:
    workspace: str
    origin_key: str
    label: str
    facts: int
    links: int
    vectors: int
    postings: int
    review_items_closed: int
    revision: int
    actor: str
    reason: str
    finished_unfinished: bool = False  # True: this run finished a shred a killed process had begun
    begun_by: str = ""

    def to_dict(self) -> dict:
        out = asdict(self)
        if not self.finished_unfinished:  # said only of a shred that a stopped process had begun
            del out["finished_unfinished"], out["begun_by"]
        return out


def origins_with_counts(workspace: Workspace) -> list[tuple[str, str, int]]:
    """(origin key, its short label, facts) of every origin of the workspace with facts, most first."""
    from django.db.models import Count

    # The key is derived from these fields, so grouping by all of them is grouping by the key.
    fields = ("origin_key", "origin_kind", "channel_id", "conversation_id", "session_key", "account_id")
    rows = Fact.objects.filter(workspace=workspace).values(*fields).annotate(n=Count("pk")).order_by("-n", "origin_key")
    return [(row["origin_key"], R.Origin(*(row[f] for f in fields[1:])).label(), row["n"]) for row in rows]


def resolve_origin(value: str) -> str:
    """The origin key `value` names: a key as stored, or any form `parse_origin` reads (a label such
    as channel:slack/C1/t1@acct). Unparseable text is returned as it is (and names no origin)."""
    value = (value or "").strip()
    if value == "owner" or value.startswith("channel:["):
        return value
    try:
        return R.parse_origin(value).key
    except R.OriginError:
        return value


def shred_event(workspace: Workspace, origin_key: str) -> MemoryEvent | None:
    """The `shredded` event of this origin, if it was shredded already."""
    return (MemoryEvent.objects.filter(workspace=workspace, kind=MemoryEvent.Kind.SHREDDED, data__origin_key=origin_key)
            .order_by("revision").first())  # fmt: skip


def unfinished_shreds(workspace: Workspace) -> list[ShredIntent]:
    """The shreds of this workspace that were begun (the decision committed) but never finished."""
    return list(ShredIntent.objects.filter(workspace=workspace))


def unfinished_shred(workspace: Workspace, origin_key: str) -> ShredIntent | None:
    """The unfinished shred of this origin, if a process was stopped in the middle of one."""
    return ShredIntent.objects.filter(workspace=workspace, origin_key=origin_key).first()


def preview_shred(workspace: Workspace, origin_key: str) -> ShredPreview:
    """Counts of what `shred_origin` would make unreadable; refuses what it would refuse."""
    _refuse(workspace, origin_key)
    facts = Fact.objects.filter(workspace=workspace, origin_key=origin_key)
    links = Link.objects.filter(Q(from_fact__in=facts.values("pk")) | Q(to_fact__in=facts.values("pk")), workspace=workspace)
    vectors = FactVector.objects.filter(workspace=workspace, fact__origin_key=origin_key)
    return ShredPreview(workspace.name, origin_key, facts.count(), links.count(), vectors.count())


def _refuse(workspace: Workspace, origin_key: str) -> None:
    """Refuse an origin with no facts, one shredded already, or a key store that is not this database's."""
    if not isinstance(origin_key, str) or not origin_key.strip():
        raise RequestError("name the origin to shred (for example owner or channel:slack/C1/t1)", kind="validation")
    begun = unfinished_shred(workspace, origin_key)
    # An unfinished shred is finished even if its facts were purged since: its key still has to go.
    if begun is None and not Fact.objects.filter(workspace=workspace, origin_key=origin_key).exists():
        raise NotFoundError(f"workspace {workspace.name!r} has no facts from origin {origin_key!r}; nothing to shred")
    done = shred_event(workspace, origin_key)
    if done is not None:
        raise RequestError(
            f"origin {origin_key!r} was already shredded (revision {done.revision}, by {done.actor or 'unknown'}, "
            f"{done.at:%Y-%m-%d %H:%M} UTC); nothing was changed",
            kind="conflict",
        )
    # A missing key file only means "destroyed" once the key store is known to be the right one.
    key_binding.verify(bind=False)
    # An unfinished shred may have destroyed the key already: running it again finishes it.
    if not sealing.keyring.exists(workspace.pk, origin_key) and begun is None:
        raise RequestError(
            f"origin {origin_key!r} has no data key in the key store: its facts are unreadable already "
            "(destroyed outside Tideline, or the key file was lost); nothing was changed",
            kind="conflict",
        )


@telemetry.operation("memory.shred")
def shred_origin(workspace: Workspace, origin_key: str, *, actor: str, reason: str = "") -> ShredReport:
    """Destroy `origin_key`'s data key in `workspace`; its facts stay as unreadable tombstones.

    Irreversible. Raises `RequestError` (nothing changed) for an origin without facts, one shredded
    already (kind "conflict"), or a key store that is not this database's. An unfinished shred of
    the origin (`unfinished_shred`) is finished, with the reason it was begun with.
    """
    _refuse(workspace, origin_key)
    intent, begun_now = _begin(workspace, origin_key, actor=actor, reason=reason)
    return _finish(workspace, intent, actor=actor, resumed=not begun_now)


def _begin(workspace: Workspace, origin_key: str, *, actor: str, reason: str) -> tuple[ShredIntent, bool]:
    """Commit the decision to shred before any key goes, or find the one a stopped process committed
    (then False: it is finished with the reason it was begun with)."""
    found = unfinished_shred(workspace, origin_key)
    if found is not None:
        return found, False
    label = Fact.objects.filter(workspace=workspace, origin_key=origin_key).order_by("pk").first().origin.label()
    try:
        with transaction.atomic():
            return ShredIntent.objects.create(workspace=workspace, origin_key=origin_key, origin_label=label[:1000],
                                              actor=actor[:200], reason=reason[:1000]), True  # fmt: skip
    except IntegrityError:  # another process began the same shred a moment ago: finish that one
        return ShredIntent.objects.get(workspace=workspace, origin_key=origin_key), False


def _finish(workspace: Workspace, intent: ShredIntent, *, actor: str, resumed: bool) -> ShredReport:
    origin_key, reason = intent.origin_key, intent.reason
    with mutate(workspace, actor=actor) as m:
        _refuse(m.workspace, origin_key)  # again under the workspace lock: two shreds race, one wins
        facts = Fact.objects.filter(workspace=m.workspace, origin_key=origin_key)
        memory_ids: list[str] = []
        last = 0
        while True:  # keyset pages of (pk, id) tuples: constant memory per page at any size
            page = list(facts.filter(pk__gt=last).order_by("pk").values_list("pk", "memory_id")[:_CHUNK])
            if not page:
                break
            memory_ids += [memory_id for _, memory_id in page]
            last = page[-1][0]
        pks = facts.values("pk")
        links = Link.objects.filter(Q(from_fact__in=pks) | Q(to_fact__in=pks), workspace=m.workspace).count()
        # Derived data that could be inverted into text goes with the key (postings are keyed hashes,
        # vectors are sealed; both dead after the shred, but a dump should not even hold them).
        vectors, _ = FactVector.objects.filter(workspace=m.workspace, fact__origin_key=origin_key).delete()
        postings, _ = FactTerm.objects.filter(workspace=m.workspace, origin_key=origin_key).delete()
        TermStat.objects.filter(workspace=m.workspace, origin_key=origin_key).delete()
        label = intent.origin_label or origin_key  # metadata, never sealed
        m.record(MemoryEvent.Kind.SHREDDED, fact_ids=memory_ids, reason=reason, origin_key=origin_key,
                 origin_label=label, facts=len(memory_ids), links=links, vectors=vectors, postings=postings,
                 # A shred finished after its first process stopped says who began it, and when.
                 **({"begun_by": intent.actor, "begun_at": intent.begun_at.isoformat()} if resumed else {}))  # fmt: skip
        responses = origin_shredded.send(sender=Fact, workspace=m.workspace, origin_key=origin_key,
                                         memory_ids=memory_ids, reason=reason, mutation=m)  # fmt: skip
        closed = sum(v for _, v in responses if isinstance(v, int) and not isinstance(v, bool))
        ShredIntent.objects.filter(pk=intent.pk).delete()  # the receipt above replaces it, in the same commit
        # Last step inside the transaction. A process killed after this and before the commit leaves
        # the intent and no key: running the shred again finishes it (see the module's docstring).
        sealing.keyring.destroy(m.workspace.pk, origin_key)
        index_snapshots.discard(m.workspace.pk, origin_key)  # unreadable without the key; gone anyway
        revision = m.revision
    return ShredReport(workspace.name, origin_key, label, len(memory_ids), links, vectors, postings, closed, revision,
                       actor, reason, resumed, intent.actor)  # fmt: skip
