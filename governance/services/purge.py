"""Purge, as governance offers it: choose facts, preview everything that goes, confirm by typing, receipt.

The acts are memory's (`memory.services.lifecycle.retract_and_purge`): a retraction archives the chosen facts with a
reason (restorable), a hard purge deletes them and their provenance cascade in one mutation with
one content-free `purged` receipt. Governance adds the choosing and the care: a selection (fact
ids, an origin, a recall query, a creation date range, a segment; what is given is ANDed), a
preview that lists every fact, link and open review item that will go (cascade members marked),
and a confirmation that must be typed (the number of facts, or the workspace's name). Who may do it
(admins) is checked by the console view and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, time
from typing import Any

from django.db.models import Q
from django.utils.dateparse import parse_date, parse_datetime

from governance.models import ReviewItem
from governance.services.acting import actor_text, require_role
from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact, Link, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import origins_with_counts, resolve_origin
from memory.services.lifecycle import retract_and_purge as purging
from memory.services.lifecycle.retract_and_purge import PurgeReport
from memory.services.recall import verbs as recall_service
from tideline_kit import telemetry

PAGE = 50  # rows per page of each list of a preview
QUERY_MAX = 100  # facts a query selects at most, best first (the caller may ask for fewer or up to QUERY_CAP)
QUERY_CAP = 1000
_CHUNK = 500  # ids per IN (...)
_ORIGIN_FIELDS = ("origin_kind", "channel_id", "conversation_id", "session_key", "account_id")


# ---------------------------------------------------------------- what to purge


@dataclass(frozen=True)
class Selection:
    """What a person chose; every criterion given must hold (AND)."""

    fact_ids: tuple[str, ...] = ()
    origin: str = ""  # an origin key or label, as the console and `tideline shred` take it
    query: str = ""
    limit: int = QUERY_MAX  # how many recall hits a query selects at most
    after: datetime | None = None  # created at or after
    before: datetime | None = None  # created strictly before
    segment: str = ""

    @classmethod
    def parse(cls, *, facts=(), origin: str = "", query: str = "", limit=None, after=None, before=None,
              segment: str = "") -> Selection:  # fmt: skip
        """A selection from what a form or the command line sent (strings); RequestError for bad input."""
        ids = []
        for value in facts or ():
            ids += [part.strip() for part in str(value).replace(",", " ").split()]
        ids = list(dict.fromkeys(i for i in ids if i and "\x00" not in i and len(i) <= 128))
        origin, query, segment = (str(v or "").replace("\x00", "").strip() for v in (origin, query, segment))
        if segment and segment not in R.SEGMENTS:
            raise RequestError(f"unknown segment {R.shown(segment)}: one of {', '.join(R.SEGMENTS)}", kind="validation")
        try:
            limit = QUERY_MAX if limit in (None, "") else int(limit)
        except (TypeError, ValueError):
            raise RequestError(f"--max must be a whole number, not {R.shown(limit)}", kind="validation") from None
        if not 1 <= limit <= QUERY_CAP:
            raise RequestError(f"a query selects between 1 and {QUERY_CAP} facts, not {limit}", kind="validation")
        after, before = parse_moment(after, "after"), parse_moment(before, "before")
        if after and before and after >= before:
            raise RequestError("the date range is empty: 'after' must come before 'before'", kind="validation")
        made = cls(tuple(ids), origin[:900], query[:1000], limit, after, before, segment)
        if made.empty:
            raise RequestError("say what to purge: fact ids, an origin, a query, a date range or a segment",
                               kind="validation")  # fmt: skip
        return made

    @property
    def empty(self) -> bool:
        return not (self.fact_ids or self.origin or self.query or self.after or self.before or self.segment)

    def words(self) -> str:
        parts = []
        if self.fact_ids:
            parts.append(f"{len(self.fact_ids)} named fact{'s' if len(self.fact_ids) != 1 else ''}")
        if self.origin:
            parts.append(f"origin {self.origin}")
        if self.query:
            parts.append(f"the best {self.limit} recall hits for {self.query!r}")
        if self.after:
            parts.append(f"created on or after {self.after:%Y-%m-%d %H:%M} UTC")
        if self.before:
            parts.append(f"created before {self.before:%Y-%m-%d %H:%M} UTC")
        if self.segment:
            parts.append(f"segment {self.segment}")
        return " and ".join(parts)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["fact_ids"] = list(self.fact_ids)
        d["after"] = self.after.isoformat() if self.after else None
        d["before"] = self.before.isoformat() if self.before else None
        return d


def parse_moment(value, name: str) -> datetime | None:
    """A date (midnight UTC) or an ISO datetime (naive = UTC); RequestError when it is neither."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    text = str(value).strip()
    try:
        moment = parse_datetime(text)
        day = None if moment else parse_date(text)
    except ValueError:
        moment = day = None
    if day is not None:
        moment = datetime.combine(day, time.min)
    if moment is None:
        raise RequestError(f"--{name}: {R.shown(text)} is not a date (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM)",
                           kind="validation")  # fmt: skip
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def select(workspace: Workspace, selection: Selection) -> list[str]:
    """The ids of the facts `selection` names (any lifecycle; a query finds what recall finds), best
    first for a query, else oldest first. RequestError for an origin with no facts."""
    facts = Fact.objects.filter(workspace=workspace)
    origin_key = ""
    if selection.origin:
        origin_key = resolve_origin(selection.origin)
        facts = facts.filter(origin_key=origin_key)
        if not facts.exists():
            raise RequestError(f"workspace {workspace.name!r} has no facts from origin {R.shown(selection.origin)}; "
                               "nothing was changed", kind="not_found")  # fmt: skip
    if selection.segment:
        facts = facts.filter(segment=selection.segment)
    if selection.after:
        facts = facts.filter(created_at__gte=selection.after)
    if selection.before:
        facts = facts.filter(created_at__lt=selection.before)
    named = _ranked(workspace, selection, origin_key) if selection.query else list(selection.fact_ids)
    if selection.query and selection.fact_ids:
        wanted = set(selection.fact_ids)
        named = [i for i in named if i in wanted]
    if not (selection.query or selection.fact_ids):
        return list(facts.order_by("created_at", "pk").values_list("memory_id", flat=True))
    found: set[str] = set()
    for start in range(0, len(named), _CHUNK):
        found.update(facts.filter(memory_id__in=named[start : start + _CHUNK]).values_list("memory_id", flat=True))
    return [i for i in named if i in found]


def _ranked(workspace: Workspace, selection: Selection, origin_key: str) -> list[str]:
    """Recall's best hits for the query, across the origins in play, merged by score (never reinforced).
    Every hit reaching the relevance floor counts, up to the limit: a purge by query is not cut to the
    few facts nearly as relevant as the best, as an agent's recall is."""
    fields = ("origin_key", *_ORIGIN_FIELDS)
    scopes = Fact.objects.filter(workspace=workspace).values_list(*fields).distinct()
    if origin_key:
        scopes = scopes.filter(origin_key=origin_key)
    hits = []
    for row in {r[0]: r for r in scopes}.values():
        origin = R.Origin(*row[1:])
        hits += recall_service.recall(workspace=workspace, query=selection.query, origin=origin, k=selection.limit,
                                      reinforce=False, cut=0.0)  # fmt: skip
    hits.sort(key=lambda h: -float(h.score))
    return list(dict.fromkeys(h.id for h in hits))[: selection.limit]


def origins(workspace: Workspace) -> list[tuple[str, str, int]]:
    """The workspace's origins (key, label, facts), for the page's origin list."""
    return origins_with_counts(workspace)


# ---------------------------------------------------------------- preview


@dataclass
class Preview:
    workspace: str
    selection: dict
    hard: bool
    facts: int  # that go (hard) or are retracted (soft)
    cascaded: int  # of `facts`, those that go only because they derive from the chosen ones
    links: int  # removed (hard); a retraction removes none
    open_review_items: int  # closed (hard)
    fact_rows: list[dict] = field(default_factory=list)
    link_rows: list[dict] = field(default_factory=list)
    item_rows: list[dict] = field(default_factory=list)
    pages: dict = field(default_factory=dict)  # list name → {"page", "pages", "per_page"}
    purged_ids: list[str] = field(default_factory=list)
    seed_ids: list[str] = field(default_factory=list)  # what was chosen (purged_ids adds the cascade)

    def to_dict(self) -> dict:
        return asdict(self)

    def accepts(self, typed: str) -> bool:
        """Whether `typed` confirms this purge: the number of facts, or the workspace's name."""
        typed = (typed or "").strip()
        return bool(typed) and (typed == self.workspace or typed.replace(",", "") == str(self.facts))


def preview(workspace: Workspace, selection: Selection, *, hard: bool = False, page: int = 1,
            link_page: int = 1, item_page: int = 1, per_page: int = PAGE, lists: bool = True) -> Preview:  # fmt: skip
    """Everything a purge of `selection` takes, counted, with one page of each list.

    RequestError "nothing matches" when the selection names no fact (nothing changes)."""
    seeds = select(workspace, selection)
    if not hard:  # a retraction skips what is retracted already
        seeds = _not_retracted(workspace, seeds)
    if not seeds:
        raise RequestError(f"nothing matches the selection ({selection.words()}) in workspace {workspace.name!r}; nothing was changed",
                           kind="not_found")  # fmt: skip
    if hard:
        chosen = purging.plan(workspace, seeds)
        ids, cascaded = list(chosen.purged), set(chosen.cascaded)
    else:
        ids, cascaded = seeds, set()
    pks = _pks(workspace, ids)
    link_ids = _links(workspace, pks) if hard else []
    item_ids = _items(workspace, ids) if hard else []
    result = Preview(workspace.name, selection.to_dict(), hard, len(ids), len(cascaded), len(link_ids), len(item_ids),
                     purged_ids=ids, seed_ids=seeds)  # fmt: skip
    if lists:
        fact_page, result.pages["facts"] = _page(ids, page, per_page)
        result.fact_rows = _fact_rows(workspace, fact_page, cascaded)
        some_links, result.pages["links"] = _page(link_ids, link_page, per_page)
        result.link_rows = _link_rows(some_links, set(ids))
        some_items, result.pages["items"] = _page(item_ids, item_page, per_page)
        result.item_rows = _item_rows(some_items, set(ids))
    return result


def _not_retracted(workspace: Workspace, ids: list[str]) -> list[str]:
    done: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        done.update(Fact.objects.filter(workspace=workspace, memory_id__in=ids[start : start + _CHUNK],
                                        lifecycle="archived", status="retracted").values_list("memory_id", flat=True))  # fmt: skip
    return [i for i in ids if i not in done]


def _page(values: list, page, per_page: int) -> tuple[list, dict]:
    pages = max(1, -(-len(values) // per_page))
    try:
        page = min(max(1, int(page)), pages)
    except (TypeError, ValueError):
        page = 1
    return values[(page - 1) * per_page : page * per_page], {"page": page, "pages": pages, "per_page": per_page,
                                                             "total": len(values)}  # fmt: skip


def _pks(workspace: Workspace, ids: list[str]) -> list[int]:
    pks = []
    for start in range(0, len(ids), _CHUNK):
        pks += Fact.objects.filter(workspace=workspace, memory_id__in=ids[start : start + _CHUNK]).values_list("pk", flat=True)
    return pks


def _links(workspace: Workspace, pks: list[int]) -> list[int]:
    """Ids of the links from or to the facts, in link order."""
    found: set[int] = set()
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start : start + _CHUNK]
        found.update(Link.objects.filter(Q(from_fact_id__in=chunk) | Q(to_fact_id__in=chunk), workspace=workspace)
                     .values_list("pk", flat=True))  # fmt: skip
    return sorted(found)


def _items(workspace: Workspace, ids: list[str]) -> list[int]:
    found: set[int] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        found.update(ReviewItem.objects.filter(Q(fact_memory_id__in=chunk) | Q(other_memory_id__in=chunk),
                                               workspace=workspace, status=ReviewItem.Status.OPEN)
                     .values_list("pk", flat=True))  # fmt: skip
    return sorted(found)


def _fact_rows(workspace: Workspace, ids: list[str], cascaded: set[str]) -> list[dict]:
    facts = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace, memory_id__in=ids)}
    rows = []
    for memory_id in ids:
        fact = facts.get(memory_id)
        if fact is None:
            continue
        try:
            content = fact.content  # the admin's own view of what goes; never written to the receipt
        except sealing.KeyDestroyedError:
            content = None
        rows.append({"memory_id": memory_id, "segment": fact.segment, "origin": fact.origin.label(),
                     "created_at": fact.created_at.isoformat(), "lifecycle": fact.lifecycle, "status": fact.status,
                     "cascade": memory_id in cascaded, "content": content})  # fmt: skip
    return rows


def _link_rows(pks: list[int], going: set[str]) -> list[dict]:
    links = Link.objects.filter(pk__in=pks).values_list("pk", "from_fact__memory_id", "kind", "to_fact__memory_id")
    return [{"id": pk, "from": src, "kind": kind, "to": dst, "from_goes": src in going, "to_goes": dst in going}
            for pk, src, kind, dst in sorted(links)]  # fmt: skip


def _item_rows(pks: list[int], going: set[str]) -> list[dict]:
    items = ReviewItem.objects.filter(pk__in=pks).order_by("pk")
    return [{"id": item.pk, "kind": item.get_kind_display(), "reason": item.reason,
             "facts": [i for i in (item.fact_memory_id, item.other_memory_id) if i and i in going],
             "created_at": item.created_at.isoformat()} for item in items]  # fmt: skip


# ---------------------------------------------------------------- applying


@telemetry.operation("governance.purge.apply")
def apply(workspace: Workspace, selection: Selection, *, user=None, hard: bool, typed: str, actor: str,
          reason: str = "", progress: Callable[[int], Any] | None = None) -> PurgeReport:  # fmt: skip
    """Retract or hard-purge after checking the typed confirmation against a fresh preview."""
    require_role(user, workspace, "purge", "purge facts")
    actor = actor_text(actor)
    current = preview(workspace, selection, hard=hard, lists=False)
    if not current.accepts(typed):
        raise RequestError(
            f"the confirmation did not match: type the number of facts ({current.facts}) or the workspace's name "
            f"({workspace.name}); nothing was changed",
            kind="confirmation",
        )
    # The previewed choice itself: a query is not re-run (reinforcement meanwhile could reorder its hits).
    if hard:
        return purging.purge_facts(workspace, current.seed_ids, actor=actor, reason=reason, cascade=True,
                                   progress=progress)  # fmt: skip
    return purging.retract_facts(workspace, current.purged_ids, actor=actor, reason=reason)


def receipts(workspace: Workspace, limit: int = 20):
    """The newest `purged` events (receipts): when, who, why, counts."""
    # Only the counts are read: a receipt's ids and hashes can run to megabytes.
    rows = (MemoryEvent.objects.filter(workspace=workspace, kind=MemoryEvent.Kind.PURGED).order_by("-revision")
            .values("revision", "at", "actor", "reason", "data__facts", "data__cascaded", "data__links",
                    "data__review_items_closed")[:limit])  # fmt: skip
    return [{"revision": r["revision"], "at": r["at"], "actor": r["actor"], "reason": r["reason"],
             "facts": r["data__facts"], "cascaded": r["data__cascaded"], "links": r["data__links"],
             "review_items_closed": r["data__review_items_closed"]} for r in rows]  # fmt: skip
