"""Contradiction candidates become review items (ENGINE-SPEC §4.3).

Memory's engine finds the pairs (`memory.engine.contradictions`) over memory's maintenance read
(`maint_facts`); this service keeps the review queue: the strongest `limit` pairs per run, one item
per pair, never twice across runs (a dismissed pair stays dismissed), all in one mutation with a
`linked` event per opened item.
"""

from __future__ import annotations

from governance.models import ReviewItem
from memory.engine.contradictions import find_contradictions as detect
from memory.models import Fact, Workspace
from memory.services.maintenance import RunReport, maint_facts
from memory.services.mutation import mutate

REVIEW_LIMIT = 50  # the strongest pairs per run: a review queue people can actually work through


def find_contradictions(workspace: Workspace, *, actor: str = "contradictions", dry_run: bool = False,
                        limit: int = REVIEW_LIMIT) -> RunReport:  # fmt: skip
    """Open a review item for each new contradicting pair; `dry_run` counts without writing."""
    report_data = detect(maint_facts(workspace), limit=limit)
    report = RunReport("contradictions", workspace.name, dry_run, {"found": report_data.found, "opened": 0})
    if dry_run or not report_data.items:
        return report
    ids = {i.a for i in report_data.items} | {i.b for i in report_data.items}
    pks = dict(Fact.objects.filter(workspace=workspace, memory_id__in=ids).values_list("memory_id", "pk"))
    seen = set(ReviewItem.objects.filter(workspace=workspace, kind="contradiction").values_list("fact_id", "other_fact_id"))
    with mutate(workspace, actor=actor) as m:
        for item in report_data.items:
            pair = (pks[item.a], pks[item.b])
            if pair in seen or pair[::-1] in seen:
                continue
            review = ReviewItem.objects.create(
                workspace=workspace, kind="contradiction", fact_id=pair[0], other_fact_id=pair[1],
                reason=f"same {item.segment} facts share words (overlap {item.overlap:.2f}) but diverge ({item.divergence:.2f})",
                details={"score": item.score, "basis": item.basis},
            )  # fmt: skip
            seen.add(pair)
            report.counts["opened"] += 1
            m.record("linked", fact_ids=[item.a, item.b], reason="contradiction review opened", review_item=review.pk)
    return report
