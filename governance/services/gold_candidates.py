"""Gold-case candidates from what happened: an agent's vote on a hit, with the query it judged; a
recall that found nothing, then the write that answered it, and a verdict that replaced what recall
served (both from `recall_log`).

Memory announces a vote that names its query (`memory.signals.feedback_given`); governance keeps it
here as a candidate, never as a case: a gold set is what every proposal is judged on, so a person
decides. An up-vote proposes "this query should find this fact", as do the write after a recall that
found nothing and the fact a verdict admitted; a down-vote says only that the hit was not the answer,
so accepting it needs the fact that is (or "nothing should come back"). An
accepted candidate becomes a case of the live set "from-signals", and adding it withdraws that set's
approval, as any edit does: an approver approves the set again before proposals are judged on it.
Candidates naming a fact that is purged or whose origin is shredded are deleted with it (their
query is about that fact).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from governance.models import GoldCandidate, GoldCase, GoldSet
from governance.services import gold as gold_service
from governance.services.acting import acting_name, require_role, row_id
from memory.engine.facts.validation import UNSTORABLE
from memory.models import Fact, Workspace
from memory.services.errors import RequestError

SET_NAME = "from-signals"
QUERY_LIMIT = 1000  # what a gold case holds
SOURCES = {"up": GoldCandidate.Source.UP_VOTE, "down": GoldCandidate.Source.DOWN_VOTE}
# Candidates whose fact is the proposed answer (a down-vote's fact is only not the answer).
ANSWERING = frozenset({GoldCandidate.Source.UP_VOTE, GoldCandidate.Source.WRITTEN_AFTER, GoldCandidate.Source.VERDICT})


def from_feedback(sender, *, workspace: Workspace, memory_id: str, vote: str, query: str, actor: str, **kwargs) -> None:
    """Keep a vote that names its query as a candidate (memory's `feedback_given`); once per open one."""
    source = SOURCES.get(vote)
    if source is not None:
        open_candidate(workspace, query, memory_id, source, actor)


def storable_query(query: str) -> str:
    """A query as a case or a log keeps it: whitespace collapsed, at most `QUERY_LIMIT` characters, and
    nothing a database refuses (NUL, unpaired surrogates: PostgreSQL takes neither in text)."""
    return " ".join(UNSTORABLE.sub("", str(query)).split())[:QUERY_LIMIT]


def open_candidate(workspace: Workspace, query: str, memory_id: str, source: str, actor: str) -> bool:
    """Open a candidate unless the same one is open already; False when it was (or the query is blank)."""
    wanted = storable_query(query)
    if not wanted:
        return False
    try:
        with transaction.atomic():
            GoldCandidate.objects.create(workspace=workspace, query=wanted, memory_id=memory_id, source=source,
                                         actor=(actor or "")[:200])  # fmt: skip
    except IntegrityError:  # the same candidate is open already
        return False
    return True


def forget_facts(sender, *, workspace: Workspace, memory_ids, **kwargs) -> None:
    """A purged or shredded fact takes the candidates about it along (`facts_deleted`, `origin_shredded`)."""
    GoldCandidate.objects.filter(workspace=workspace, memory_id__in=list(memory_ids)).delete()


def open_candidates(workspace: Workspace) -> QuerySet[GoldCandidate]:
    return GoldCandidate.objects.filter(workspace=workspace, status=GoldCandidate.Status.OPEN)


@dataclass(frozen=True)
class Shown:
    """A candidate as the page and the CLI show it: with the judged fact's words when they are readable."""

    candidate: GoldCandidate
    fact: str  # the judged hit's content ("" when unreadable or gone)
    fact_state: str  # its lifecycle, or "gone"

    def as_dict(self) -> dict:
        c = self.candidate
        return {"id": c.pk, "query": c.query, "fact_id": c.memory_id, "fact": self.fact, "fact_state": self.fact_state,
                "source": c.source, "why": c.get_source_display(), "actor": c.actor, "status": c.status,
                "created_at": c.created_at.isoformat()}  # fmt: skip


def shown(candidates) -> list[Shown]:
    rows = list(candidates)
    facts = {f.memory_id: f for f in Fact.objects.filter(workspace_id__in={c.workspace_id for c in rows},
                                                          memory_id__in={c.memory_id for c in rows})}  # fmt: skip
    out = []
    for c in rows:
        fact = facts.get(c.memory_id)
        words = fact.content if fact is not None and fact.is_readable else ""
        out.append(Shown(c, words, fact.lifecycle if fact is not None else "gone"))
    return out


def get(workspace: Workspace, candidate_id) -> GoldCandidate:
    pk = row_id(candidate_id, "candidate")
    found = GoldCandidate.objects.filter(workspace=workspace, pk=pk).first()
    if found is None:
        raise RequestError(f"no gold-case candidate #{pk} in {workspace.name}", kind="not_found")
    return found


def _open(candidate: GoldCandidate) -> GoldCandidate:
    locked = GoldCandidate.objects.select_for_update().get(pk=candidate.pk)
    if locked.status != GoldCandidate.Status.OPEN:
        raise RequestError(f"candidate #{locked.pk} is {locked.status} already", kind="conflict")
    return locked


def accept(candidate: GoldCandidate, *, user=None, actor: str, query: str | None = None, fact_id: str | None = None,
           nothing: bool = False) -> GoldCase:  # fmt: skip
    """Make the candidate a case of the live set "from-signals" (created when missing), with the query
    as written or as the person edited it. An up-vote's fact is the answer unless `fact_id` names
    another; a down-vote needs `fact_id` (the fact that answers) or `nothing` (nothing should come back)."""
    workspace = candidate.workspace
    require_role(user, workspace, "edit_gold", "accept gold-case candidates")
    if fact_id and nothing:
        raise RequestError("name the fact that answers, or say nothing should come back, not both", kind="validation")
    if nothing:
        relevant: list[str] = []
    elif fact_id:
        fact_id = fact_id.strip()
        if not Fact.objects.filter(workspace=workspace, memory_id=fact_id, lifecycle="active").exists():
            raise RequestError(f"no active fact {fact_id!r} in {workspace.name}", kind="not_found")
        relevant = [fact_id]
    elif candidate.source in ANSWERING:
        if not Fact.objects.filter(workspace=workspace, memory_id=candidate.memory_id, lifecycle="active").exists():
            raise RequestError(f"the candidate's fact {candidate.memory_id} is no longer active (archived, held again "
                               "or purged), so recall cannot return it: name the fact that answers, or reject the "
                               "candidate", kind="validation")  # fmt: skip
        relevant = [candidate.memory_id]
    else:
        raise RequestError("a down-voted hit is not the answer: name the fact that answers the query, or say that "
                           "nothing should come back", kind="validation")  # fmt: skip
    who = acting_name(user, actor)
    with transaction.atomic():
        locked = _open(candidate)
        gold = gold_service.live_set(workspace, SET_NAME, source=GoldSet.Source.SIGNALS, who=who, adding="candidates")
        case = gold_service.add_case(gold, query=query if query is not None else locked.query, relevant_keys=relevant,
                                     category="abstention" if nothing else "from-signals", user=user, actor=actor)  # fmt: skip
        locked.status, locked.decided_at, locked.decided_by_name, locked.case = (
            GoldCandidate.Status.ACCEPTED, timezone.now(), who, case)
        locked.save(update_fields=["status", "decided_at", "decided_by_name", "case"])
    return case


def reject(candidate: GoldCandidate, *, user=None, actor: str) -> GoldCandidate:
    require_role(user, candidate.workspace, "edit_gold", "reject gold-case candidates")
    with transaction.atomic():
        locked = _open(candidate)
        locked.status, locked.decided_at, locked.decided_by_name = (GoldCandidate.Status.REJECTED, timezone.now(),
                                                                     acting_name(user, actor))  # fmt: skip
        locked.save(update_fields=["status", "decided_at", "decided_by_name"])
    return locked
