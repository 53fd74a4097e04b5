"""What a person does to facts from the console: archive, restore, and correct (never edit in place)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from memory.engine import records as R
from memory.models import Fact, Link, Workspace
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.near_duplicates import index_facts, unindex_facts
from memory.services.policy import TidelineError
from memory.services.writes import NewFact, WriteResult, write_fact


def set_lifecycle(*, workspace: Workspace, memory_ids: Sequence[str], lifecycle: str, actor: str) -> int:
    """Archive active facts or restore archived ones; one event per fact; returns how many changed."""
    if lifecycle not in ("archived", "active"):
        raise RequestError("lifecycle must be 'archived' or 'active'", kind="validation")
    changed = 0
    with mutate(workspace, actor=actor) as m:
        wanted_from = "active" if lifecycle == "archived" else "archived"
        facts = list(Fact.objects.filter(workspace=workspace, memory_id__in=list(memory_ids), lifecycle=wanted_from))
        for fact in facts:
            fact.lifecycle = lifecycle
            fact.archived_at = m.now if lifecycle == "archived" else None
            fact.save(update_fields=["lifecycle", "archived_at"])
            m.record("archived" if lifecycle == "archived" else "restored", fact_ids=[fact.memory_id],
                     before={"lifecycle": wanted_from}, after={"lifecycle": lifecycle})  # fmt: skip
            changed += 1
        if lifecycle == "archived":
            unindex_facts([f.pk for f in facts])
        else:
            index_facts(facts)
    return changed


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
                      intent_scope=fact.intent_scope, force=True,
                      links=(("corrects", memory_id, "corrected in the console"),))  # fmt: skip
        try:
            result = write_fact(workspace=workspace, new=new, actor=actor)
        except TidelineError as error:
            refusal = error  # raised below, after the refusal's `blocked` event has committed
    if refusal is not None:
        raise refusal
    return result


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
