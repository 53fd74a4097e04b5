"""What a person does to facts from the console: archive, restore, and correct (never edit in place)."""

from __future__ import annotations

from collections.abc import Sequence

from memory.models import Fact, Workspace
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.near_duplicates import index_facts, unindex_facts
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
    """Write the corrected statement as a new trusted fact in the same origin that supersedes the old one."""
    fact = Fact.objects.filter(workspace=workspace, memory_id=memory_id).first()
    if fact is None:
        raise RequestError(f"no fact {memory_id!r}", kind="not_found")
    new = NewFact(content=content, segment=fact.segment, origin=fact.origin, source_type="user_instruction",
                  subject_key=None, supersedes=(memory_id,), classification=fact.classification,
                  intent_scope=fact.intent_scope, force=True, links=(("corrects", memory_id, "corrected in the console"),))  # fmt: skip
    return write_fact(workspace=workspace, new=new, actor=actor)
