"""The Python facade agents use: `Tideline.for_workspace("demo").add(...)` (ARCHITECTURE.md §6).

Needs Django set up (DJANGO_SETTINGS_MODULE configured and `django.setup()` called). Refusals raise
the typed errors of the write path, each with `.kind`, `.message` and `.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.engine.facts import fields as F
from memory.engine.facts import records as R
from memory.models import Fact, Workspace
from memory.services.lifecycle import retract_and_purge as purging
from memory.services.lifecycle.retract_and_purge import PurgeReport
from memory.services.recall import embedding
from memory.services.recall import verbs as recall_service
from memory.services.recall.verbs import RecallFilters, RecallHit
from memory.services.workspaces import get_workspace
from memory.services.writes.interchange import export_facts
from memory.services.writes.policy import (  # noqa: F401 - re-exported for callers
    FactValidationError,
    MemoryThreatError,
    TidelineError,
    UnworthyFactError,
    WriteGateError,
)
from memory.services.writes.write_path import NewFact, WriteResult, write_fact


@dataclass(frozen=True)
class FactRecord:
    """A fact as the facade returns it: plain data, safe to keep after the call."""

    id: str
    content: str
    segment: str
    tier: str
    importance: float
    lifecycle: str
    origin: str
    source_type: str | None
    subject_key: str | None
    classification: str
    intent_scope: str | None
    status: str | None
    access_count: int
    created_at: datetime
    outcome: str = "stored"
    superseded: tuple[str, ...] = ()
    review_item_id: int | None = None
    rules: tuple[str, ...] = ()  # held: the rules that held the write
    detected: tuple[str, ...] = ()  # kinds of personal data and secrets the write found (never values)

    @property
    def deduplicated(self) -> bool:
        return self.outcome == "reinforced"

    def to_dict(self) -> dict:
        """The record as JSON (the API's Fact object): its fields in order, then `deduplicated`."""
        out = {spec.attr("read"): spec.as_json(getattr(self, spec.attr("read"))) for spec in _READ_FIELDS}
        out.update(outcome=self.outcome, superseded=list(self.superseded), review_item_id=self.review_item_id,
                   rules=list(self.rules), detected=list(self.detected), deduplicated=self.deduplicated)  # fmt: skip
        return out

    @classmethod
    def from_fact(cls, fact: Fact, result: WriteResult | None = None) -> FactRecord:
        values = F.shape_values("read", lambda name: getattr(fact, name), skip=("origin",))
        return cls(
            **values, origin=fact.origin.label(), outcome=result.outcome if result else "stored",
            superseded=tuple(result.superseded) if result else (),
            review_item_id=result.review_item_id if result else None,
            rules=tuple(result.rules) if result else (), detected=tuple(result.detected) if result else (),
        )  # fmt: skip


_READ_FIELDS = F.fields_for("read")


class Tideline:
    """One workspace's memory, as an agent sees it."""

    def __init__(self, workspace: Workspace, *, actor: str = "facade", embedder: Any = embedding.CONFIGURED) -> None:
        """`embedder`: the learned embedder adapter (anything with `dims`, `fingerprint`, `min_sim`,
        `embed(texts)` and `embed_one(text)`) whose vectors new facts get and recall uses; by default
        the one `TIDELINE_EMBEDDER` configures, None for model-free recall."""
        self.workspace = workspace
        self.actor = actor
        self._embedder = embedder

    @property
    def embedder(self) -> Any | None:
        return embedding.resolve(self._embedder)

    @property
    def has_vectors(self) -> bool:
        """Whether a learned embedder is wired (ENGINE-SPEC §9's `hasVectors`)."""
        return self.embedder is not None

    @classmethod
    def for_workspace(cls, name: str, *, create: bool = False, actor: str = "facade") -> Tideline:
        return cls(get_workspace(name, create=create or None, actor=actor), actor=actor)

    def add(
        self,
        content: str,
        *,
        segment: str,
        origin: R.Origin | str | None = "owner",
        source_type: str | None = None,
        subject_key: str | None = None,
        supersedes: Iterable[str] = (),
        importance: float | None = None,
        tier: str | None = None,
        classification: str | None = None,
        intent_scope: str | None = None,
        force: bool = False,
        metadata: dict | None = None,
        links: Iterable[tuple[str, str] | tuple[str, str, str]] = (),
        source_turn: str | None = None,
        now: datetime | None = None,
    ) -> FactRecord:
        """Remember a fact through the full write path; returns what was stored or reinforced."""
        try:
            parsed_origin = R.parse_origin(origin)
        except R.OriginError as exc:
            raise FactValidationError(str(exc), rules=("origin",)) from exc
        new = NewFact(
            content=content, segment=segment, origin=parsed_origin, source_type=source_type,
            subject_key=subject_key, supersedes=tuple(supersedes), importance=importance, tier=tier,
            classification=classification, intent_scope=intent_scope, force=force, metadata=metadata,
            links=tuple((link[0], link[1], link[2] if len(link) > 2 else "") for link in links),
            source_turn=source_turn,
        )  # fmt: skip
        result = write_fact(workspace=self.workspace, new=new, actor=self.actor, now=now, embedder=self.embedder)
        return FactRecord.from_fact(result.fact, result)

    remember = add

    # ---------------------------------------------------------------- recall

    def recall(self, query: str, *, origin: R.Origin | str | None = "owner", k: int = 8,
               as_of: datetime | None = None, reinforce: bool = True, clearance: str = "PII",
               intent: str | None = None) -> list[RecallHit]:  # fmt: skip
        """Hybrid + graph recall, best first; each hit has .id, .content, .relevance (0–1, the same scale
        for every query), .why (that relevance in words), .score (what ranks) and .components.

        Only hits reaching the workspace's relevance floor come back, so `k` is a maximum and a
        question the memory holds nothing for gets an empty list."""
        filters = RecallFilters(clearance=clearance, intent=intent, as_of=as_of)
        return recall_service.recall(workspace=self.workspace, query=query, origin=origin, k=k, filters=filters,
                                     reinforce=reinforce, embedder=self.embedder)  # fmt: skip

    search = recall

    def explain(self, query: str, *, origin: R.Origin | str | None = "owner", k: int = 8,
                as_of: datetime | None = None, clearance: str = "PII", intent: str | None = None) -> list[RecallHit]:  # fmt: skip
        """Recall with every score component spelled out; never reinforces."""
        filters = RecallFilters(clearance=clearance, intent=intent, as_of=as_of)
        return recall_service.explain(workspace=self.workspace, query=query, origin=origin, k=k, filters=filters,
                                      embedder=self.embedder)  # fmt: skip

    def explain_selection(self, query: str, *, origin: R.Origin | str | None = "owner", k: int = 8,
                          as_of: datetime | None = None, clearance: str = "PII",
                          intent: str | None = None) -> recall_service.Recalled:  # fmt: skip
        """`explain`, with the candidates recall left out (most relevant first), each saying why in
        `components["left_out_because"]`, and how many per reason (floor, cut, limit)."""
        filters = RecallFilters(clearance=clearance, intent=intent, as_of=as_of)
        return recall_service.explain_selection(workspace=self.workspace, query=query, origin=origin, k=k,
                                                filters=filters, embedder=self.embedder)  # fmt: skip

    def context(self, query: str, *, origin: R.Origin | str | None = "owner", max_chars: int = 1200, k: int = 8,
                clearance: str = "PII", intent: str | None = None) -> str | None:  # fmt: skip
        """Recall packed into a prompt-ready block of at most `max_chars`; passive. None when nothing
        reaches the relevance floor: paste nothing rather than something unrelated."""
        filters = RecallFilters(clearance=clearance, intent=intent)
        return recall_service.context(workspace=self.workspace, query=query, origin=origin, max_chars=max_chars,
                                      k=k, filters=filters, embedder=self.embedder)  # fmt: skip

    def feedback(self, fact_id: str, signal: str, *, query: str | None = None) -> FactRecord | None:
        """Up- or down-vote an active fact; None when it is archived or unknown. With the `query` whose
        hit you judge, the vote also becomes a gold-case candidate a person may accept."""
        fact = recall_service.feedback(workspace=self.workspace, fact_id=fact_id, signal=signal, actor=self.actor,
                                       query=query)  # fmt: skip
        return FactRecord.from_fact(fact) if fact else None

    def export(self, origin: R.Origin | str | None = None) -> Iterator[dict]:
        """Every fact (every lifecycle), or one origin's, as facts.jsonl dicts."""
        return export_facts(workspace=self.workspace, origin=R.parse_origin(origin) if origin else None)

    # ---------------------------------------------------------------- governance

    def purge(self, ids: Iterable[str], *, hard: bool = False, reason: str = "", cascade: bool = True) -> PurgeReport:
        """Retract the facts (soft: archived with status retracted, restorable) or, with `hard=True`,
        delete them and what was derived only from them (`cascade`), with a content-free `purged`
        receipt. RequestError (nothing changed) when no id names a fact."""
        if hard:
            report = purging.purge_facts(self.workspace, list(ids), actor=self.actor, reason=reason, cascade=cascade)
        else:
            report = purging.retract_facts(self.workspace, list(ids), actor=self.actor, reason=reason)
        return report
