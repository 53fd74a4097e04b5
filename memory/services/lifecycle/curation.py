"""What a person does to facts from the console: archive, restore, and correct (never edit in place)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils.dateparse import parse_datetime

from memory import sealing
from memory.engine.facts import records as R
from memory.engine.facts.fields import fields_for
from memory.models import Fact, Link, Workspace
from memory.services.errors import RequestError
from memory.services.mutation import Mutation, mutate
from memory.services.writes.near_duplicates import index_facts, unindex_facts
from memory.services.writes.policy import TidelineError
from memory.services.writes.write_path import NewFact, WriteResult, write_fact
from memory.signals import restore_requested


def set_lifecycle(*, workspace: Workspace, memory_ids: Sequence[str], lifecycle: str, actor: str) -> int:
    """Archive active facts or restore archived ones; one event per fact; returns how many changed."""
    if lifecycle not in ("archived", "active"):
        raise RequestError("lifecycle must be 'archived' or 'active'", kind="validation")
    changed = 0
    with mutate(workspace, actor=actor) as m:
        wanted_from = "active" if lifecycle == "archived" else "archived"
        facts = list(Fact.objects.filter(workspace=workspace, memory_id__in=list(memory_ids), lifecycle=wanted_from))
        _refuse_changes(workspace, facts, lifecycle)
        for fact in facts:
            before, after = {"lifecycle": wanted_from}, {"lifecycle": lifecycle}
            fact.lifecycle = lifecycle
            fact.archived_at = m.now if lifecycle == "archived" else None
            if lifecycle == "active" and fact.status == "retracted":
                # Restoring a retraction (a purge's soft form, or a reviewer's block) takes it back:
                # the fact returns as a plain statement, its status unset like a fresh write's.
                before["status"], after["status"], fact.status = "retracted", None, None
            fact.save(update_fields=["lifecycle", "archived_at", "status"])
            m.record("archived" if lifecycle == "archived" else "restored", fact_ids=[fact.memory_id],
                     before=before, after=after)  # fmt: skip
            changed += 1
        if lifecycle == "archived":
            unindex_facts([f.pk for f in facts])
        else:
            index_facts(facts)
    return changed


def _refuse_changes(workspace: Workspace, facts: Sequence[Fact], lifecycle: str) -> None:
    """Refuse, changing nothing, when any of `facts` may not move to `lifecycle` from the console.

    A tombstone (its origin was crypto-shredded) has no content left to archive or bring back. A
    fact a reviewer blocked, or one still held, becomes recallable only through a verdict by someone
    allowed to decide it: apps that keep review items say which facts those are (`restore_requested`)."""
    refusals = _tombstones(workspace, facts)
    if lifecycle == "active" and facts:
        for _, answer in restore_requested.send(sender=Fact, workspace=workspace,
                                                 memory_ids=[f.memory_id for f in facts]):  # fmt: skip
            for memory_id, reason in (answer or {}).items():
                refusals.setdefault(memory_id, reason)
    _refuse(refusals, "archived" if lifecycle == "archived" else "restored")


def refuse_tombstones(workspace: Workspace, facts: Sequence[Fact], verb: str) -> None:
    """Refuse, changing nothing, when any of `facts` is a tombstone (its origin was crypto-shredded):
    a bulk action from the console never touches one. `verb`: what would be done ("voted on")."""
    _refuse(_tombstones(workspace, facts), verb)


def _tombstones(workspace: Workspace, facts: Sequence[Fact]) -> dict[str, str]:
    origins = {fact.origin_key for fact in facts}
    shredded = {origin for origin in origins if not sealing.keyring.exists(workspace.pk, origin)}
    return {fact.memory_id: "its origin was crypto-shredded; it stays an unreadable tombstone"
            for fact in facts if fact.origin_key in shredded}  # fmt: skip


def _refuse(refusals: dict[str, str], verb: str) -> None:
    if refusals:
        listed = "; ".join(f"{memory_id}: {reason}" for memory_id, reason in sorted(refusals.items())[:5])
        more = f" (and {len(refusals) - 5} more)" if len(refusals) > 5 else ""
        raise RequestError(f"{len(refusals)} fact(s) cannot be {verb}, so nothing was changed — {listed}{more}",
                           kind="conflict")  # fmt: skip


def correct_fact(*, workspace: Workspace, memory_id: str, content: str, actor: str) -> WriteResult:
    """Write the corrected statement as a new trusted fact in the same origin that supersedes the old one.

    Idempotent: the same correction submitted again (a double click, a re-sent form) returns the
    fact the first one made. A fact that was already superseded by a different statement, or that
    is archived or pruned, is not corrected again (that would give it two successors): the refusal
    names its successor. The check runs under the workspace lock, so two concurrent submissions
    see each other.
    """
    refusal: TidelineError | None = None
    with transaction.atomic():
        Workspace.objects.select_for_update().get(pk=workspace.pk)
        fact = Fact.objects.filter(workspace=workspace, memory_id=memory_id).first()
        if fact is None:
            raise RequestError(f"no fact {memory_id!r}", kind="not_found")
        if fact.lifecycle == "held":
            raise RequestError(f"{memory_id} is held for review; decide it in the review queue before correcting it",
                               kind="conflict")  # fmt: skip
        if fact.lifecycle != "active":
            successor = successor_of(fact)
            if successor is None:
                raise RequestError(f"{memory_id} is {fact.lifecycle}; restore it before correcting it", kind="conflict")
            if successor.content.strip() == content.strip():
                return WriteResult(successor, "unchanged", [memory_id])
            raise RequestError(
                f"{memory_id} is already superseded by {successor.memory_id}; correct {successor.memory_id} instead",
                kind="conflict",
            )
        new = NewFact(content=content, segment=fact.segment, origin=fact.origin, source_type="user_instruction",
                      subject_key=None, supersedes=(memory_id,), classification=fact.classification,
                      intent_scope=fact.intent_scope, made_by=f"made in the console by {_person(actor)}",
                      links=(("corrects", memory_id, "corrected in the console"),))  # fmt: skip
        # Not forced: a correction passes the worthiness gate like any write ("ok thanks!" typed
        # into the box must not supersede a real preference).
        try:
            result = write_fact(workspace=workspace, new=new, actor=actor)
        except TidelineError as error:
            refusal = error  # raised below, after the refusal's `blocked` event has committed
    if refusal is not None:
        raise refusal
    return result


def _person(actor: str) -> str:
    """The name in a console actor ("user:ada" → "ada")."""
    return actor.removeprefix("user:") or "a console user"


def successor_of(fact: Fact) -> Fact | None:
    """The newest fact that replaced `fact`: through a transition link (corrects, supersedes, a slot's
    transition) or by naming it in `supersedes`."""
    link = (Link.objects.filter(to_fact=fact, kind__in=R.TRANSITION_KINDS).select_related("from_fact")
            .order_by("-from_fact__created_at", "-from_fact_id").first())  # fmt: skip
    if link is not None:
        return link.from_fact
    named = Fact.objects.filter(workspace_id=fact.workspace_id, origin_key=fact.origin_key,
                                supersedes__icontains=f'"{fact.memory_id}"').order_by("-created_at", "-pk")  # fmt: skip
    return next((other for other in named if fact.memory_id in (other.supersedes or [])), None)


# ---------------------------------------------------------------- review verdicts' primitives
# A reviewer's verdict (governance) changes facts and links inside the caller's one mutation, so
# the change, its events and the review item's new status commit together. States travel as
# plain JSON (ISO timestamps) so an event can carry them and an undo can put them back exactly.

_REVIEW_STATE = fields_for("review_state")
REVIEW_STATE_FIELDS = tuple(spec.name for spec in _REVIEW_STATE)
_TIME_FIELDS = tuple(spec.name for spec in _REVIEW_STATE if spec.is_time)


def fact_states(workspace: Workspace, memory_ids: Sequence[str]) -> dict[str, dict]:
    """The reviewable state of each fact (lifecycle, status, valid_to, archived_at, admitted_at), JSON-ready."""
    rows = Fact.objects.filter(workspace=workspace, memory_id__in=list(memory_ids)).values("memory_id", *REVIEW_STATE_FIELDS)
    return {row["memory_id"]: {spec.name: spec.as_json(row[spec.name]) for spec in _REVIEW_STATE} for row in rows}


def set_fact_states(m: Mutation, states: dict[str, dict], *, reason: str) -> None:
    """Write each fact's state (a subset of REVIEW_STATE_FIELDS) in mutation `m`, with an event per fact
    carrying before and after; facts leaving or rejoining the active set are (un)indexed."""
    facts = {f.memory_id: f for f in Fact.objects.filter(workspace=m.workspace, memory_id__in=list(states))}
    left, returned = [], []
    for memory_id, after in states.items():
        fact = facts.get(memory_id)
        if fact is None:
            raise RequestError(f"no fact {memory_id!r}", kind="not_found")
        before = {name: _iso(getattr(fact, name)) for name in after}
        for name, value in after.items():
            setattr(fact, name, parse_datetime(value) if value and name in _TIME_FIELDS else value)
        fact.save(update_fields=list(after))
        if before.get("lifecycle") == "active" and fact.lifecycle != "active":
            left.append(fact.pk)
            kind = "held" if fact.lifecycle == "held" else "archived"
        elif before.get("lifecycle", "active") != "active" and fact.lifecycle == "active":
            returned.append(fact)
            kind = "restored"
        elif "lifecycle" in after and before.get("lifecycle") != fact.lifecycle:
            kind = "held" if fact.lifecycle == "held" else "archived"
        else:
            kind = "confirmed" if fact.status == "asserted" else "invalidated"
        m.record(kind, fact_ids=[memory_id], reason=reason, before=before, after=dict(after))
    unindex_facts(left)
    index_facts(returned)


def add_fact_links(m: Mutation, links: Sequence[tuple[str, str, str, str]]) -> list[list[str]]:
    """Add links `(from, kind, to, note)` in mutation `m`; returns `[from, kind, to]` of those that were
    new (an existing link is left alone, so removing what this returned undoes exactly this call)."""
    ids = {mid for src, _, dst, _ in links for mid in (src, dst)}
    facts = {f.memory_id: f for f in Fact.objects.filter(workspace=m.workspace, memory_id__in=list(ids))}
    added = []
    for src, kind, dst, note in links:
        if src not in facts or dst not in facts:
            raise RequestError(f"cannot link {src} to {dst}: a fact is missing", kind="not_found")
        if Link.objects.filter(from_fact=facts[src], to_fact=facts[dst], kind=kind).exists():
            continue
        link = Link(workspace=m.workspace, from_fact=facts[src], to_fact=facts[dst], kind=kind, created_by=m.actor)
        if note:
            link.reason = note
        link.save()
        added.append([src, kind, dst])
    if added:
        m.record("linked", fact_ids=sorted({src for src, _, _ in added}), links=added)
    return added


def remove_fact_links(m: Mutation, links: Sequence[Sequence[str]], *, reason: str = "") -> int:
    """Delete the links `(from, kind, to)` in mutation `m`; returns how many were there. One
    `unlinked` event names the links that were there and went."""
    gone = []
    for src, kind, dst in links:
        if Link.objects.filter(workspace=m.workspace, from_fact__memory_id=src, kind=kind,
                               to_fact__memory_id=dst).delete()[0]:  # fmt: skip
            gone.append([src, kind, dst])
    if gone:
        m.record("unlinked", fact_ids=sorted({src for src, _, _ in gone}), reason=reason, removed=gone)
    return len(gone)


def _iso(value):
    return value.isoformat() if hasattr(value, "isoformat") else value
