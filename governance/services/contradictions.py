"""Contradiction candidates become review items (ENGINE-SPEC §4.3, issue 12).

Governance's own detector (`governance.engine.contradiction_rules`: a pair must share its frame and
diverge in one slot — negation, antonym, another number, date, place or name, the same subject key)
judges the active facts of memory's maintenance read (`maint_facts`), never across origins. This
service keeps the review queue: the strongest `limit` pairs per run, one item per pair, never twice
across runs (a dismissed pair stays dismissed), all in one mutation with a `linked` event per item.
"""

from __future__ import annotations

from governance.engine.contradiction_rules import FactRecord, find_candidates
from governance.models import ReviewItem
from memory.engine import records as R
from memory.models import Fact, Workspace
from memory.services.maintenance import RunReport, maint_facts
from memory.services.mutation import mutate

REVIEW_LIMIT = 50  # the strongest pairs per run: a review queue people can actually work through


def find_contradictions(workspace: Workspace, *, actor: str = "contradictions", dry_run: bool = False,
                        limit: int = REVIEW_LIMIT) -> RunReport:  # fmt: skip
    """Open a review item for each new contradicting pair; `dry_run` counts without writing."""
    records = [
        FactRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                   subject_key=f.subject_key or "", trusted=f.source_type not in R.UNTRUSTED_SOURCE_TYPES,
                   created_ms=int(f.created_at))
        for f in maint_facts(workspace)
    ]  # fmt: skip
    found = find_candidates(records).candidates
    report = RunReport("contradictions", workspace.name, dry_run, {"found": len(found), "opened": 0})
    if dry_run or not found:
        return report
    ids = sorted({c.a for c in found} | {c.b for c in found})
    pks: dict[str, int] = {}
    for start in range(0, len(ids), 2000):
        chunk = ids[start : start + 2000]
        pks.update(Fact.objects.filter(workspace=workspace, memory_id__in=chunk).values_list("memory_id", "pk"))
    seen = set(ReviewItem.objects.filter(workspace=workspace, kind="contradiction").values_list("fact_id", "other_fact_id"))
    # A blocked fact written again (a new fact, the same words) against the same fact is not reopened.
    blocked = set(ReviewItem.objects.filter(workspace=workspace, kind="contradiction", details__verdict="block")
                  .values_list("fact__content_hash", "other_fact_id"))  # fmt: skip
    hashes = dict(Fact.objects.filter(pk__in=[pks[c.b] for c in found]).values_list("pk", "content_hash")) if blocked else {}
    with mutate(workspace, actor=actor) as m:
        for candidate in found:
            if report.counts["opened"] >= limit:  # the run's cap counts new items: old ones never crowd out new
                break
            pair = (pks[candidate.b], pks[candidate.a])  # the newer fact is the one under review
            if pair in seen or pair[::-1] in seen or (hashes.get(pair[0]), pair[1]) in blocked:
                continue
            review = ReviewItem.objects.create(
                workspace=workspace, kind="contradiction", fact_id=pair[0], other_fact_id=pair[1],
                reason=candidate.reason[:1000],
                details={"score": round(candidate.confidence, 4), "signal": candidate.kind,
                         "trust_mismatch": candidate.trust_mismatch},
            )  # fmt: skip
            seen.add(pair)
            report.counts["opened"] += 1
            m.record("linked", fact_ids=[candidate.b, candidate.a], reason="contradiction review opened",
                     review_item=review.pk)  # fmt: skip
    return report


def open_demo_contradictions(sender, *, workspace: Workspace, **kwargs) -> None:
    """The demo's first contradiction pass (memory's `demo_loaded` signal)."""
    find_contradictions(workspace, actor="demo")
