"""Contradiction candidates become review items (ENGINE-SPEC §4.3, Decision 24).

Governance's own detector (`governance.engine.contradiction_rules`: a pair must share its frame and
diverge in one slot — negation, antonym, another number, date, place or name, the same subject key)
judges the active facts of memory's maintenance read (`maint_facts`), never across origins. This
service keeps the review queue: the strongest `limit` pairs per run and never more than the
workspace's daily cap per UTC day, one item per pair, never twice across runs (a dismissed pair
stays dismissed), all in one mutation with a `reviewed` event (action `opened`) per item.
"""

from __future__ import annotations

from governance.engine.contradiction_rules import ClaimRecord, find_candidates
from governance.engine.contradiction_vectors import find_candidates_learned
from governance.models import ReviewItem
from governance.services import webhooks
from memory.engine.facts import records as R
from memory.models import Fact, Workspace
from memory.services.maintenance.passes import RunReport, maint_facts
from memory.services.mutation import mutate
from memory.services.recall import embedding
from tideline_kit import telemetry

REVIEW_LIMIT = 50  # the strongest pairs per run: a review queue people can actually work through


@telemetry.operation("governance.contradictions.reconcile")
def find_contradictions(workspace: Workspace, *, actor: str = "contradictions", dry_run: bool = False,
                        limit: int = REVIEW_LIMIT) -> RunReport:  # fmt: skip
    """Open a review item for each new contradicting pair; `dry_run` counts without writing."""
    records = [
        ClaimRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                   subject_key=f.subject_key or "", trusted=f.source_type not in R.UNTRUSTED_SOURCE_TYPES,
                   created_ms=int(f.created_at))
        for f in maint_facts(workspace)
    ]  # fmt: skip
    embedder = embedding.resolve(embedding.CONFIGURED)
    counts = {"found": 0, "opened": 0}
    if embedder is None:
        found = find_candidates(records).candidates
    else:  # the learned embedder's stored vectors join in; facts without one are judged on words alone
        vectors = stored_vectors(workspace, records, embedder.fingerprint)
        found = find_candidates_learned(records, vectors).candidates
        counts["without_vector"] = len(records) - len(vectors)
    counts["found"] = len(found)
    report = RunReport("contradictions", workspace.name, dry_run, counts)
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
        # The workspace's daily cap counts what today's earlier runs opened too (the lock serialises runs).
        today = m.now.replace(hour=0, minute=0, second=0, microsecond=0)
        opened_today = ReviewItem.objects.filter(workspace=workspace, kind="contradiction", created_at__gte=today).count()
        limit = min(limit, max(0, m.workspace.review_daily_cap - opened_today))
        for candidate in found:
            pair = (pks[candidate.b], pks[candidate.a])  # the newer fact is the one under review
            if pair in seen or pair[::-1] in seen or (hashes.get(pair[0]), pair[1]) in blocked:
                continue
            if report.counts["opened"] >= limit:  # the run's cap counts new items: old ones never crowd out new
                report.unfinished = True  # a new pair waits for a later run
                break
            review = ReviewItem.objects.create(
                workspace=workspace, kind="contradiction", fact_id=pair[0], other_fact_id=pair[1],
                reason=candidate.reason[:1000],
                details={"score": round(candidate.confidence, 4), "signal": candidate.kind,
                         "trust_mismatch": candidate.trust_mismatch,
                         **({} if candidate.cosine is None else {"cosine": candidate.cosine})},
            )  # fmt: skip
            seen.add(pair)
            report.counts["opened"] += 1
            m.record("reviewed", fact_ids=[candidate.b, candidate.a], reason="contradiction review opened",
                     review_item=review.pk, review_kind="contradiction", review_action="opened")  # fmt: skip
            webhooks.emit(workspace, "review.opened", review_item=review.pk, kind="contradiction", facts=2,
                          revision=m.revision)  # fmt: skip
    return report


def stored_vectors(workspace: Workspace, records: list[ClaimRecord], fingerprint: str) -> dict:
    """The stored vectors of these facts made by the embedder with this fingerprint, by memory id.

    Nothing is embedded here: a fact without a current vector (written before the embedder was
    configured, or by other weights) is left to the word rules until `tideline reembed` gives it one."""
    wanted = {record.id for record in records}
    vectors = {}
    for origin in sorted({record.origin_key for record in records}):
        for memory_id, stamp, vector in embedding.vectors_of(workspace.pk, origin):
            if stamp == fingerprint and memory_id in wanted:
                vectors[memory_id] = vector
    return vectors


def open_demo_contradictions(sender, *, workspace: Workspace, **kwargs) -> None:
    """The demo's first contradiction pass (memory's `demo_loaded` signal)."""
    find_contradictions(workspace, actor="demo")
