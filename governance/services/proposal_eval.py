"""Evaluate a proposal on the workspace's approved gold sets: baseline against candidate, case by case.

The baseline is the workspace as it is (the tuning in force); the candidate is the same with the
proposal applied: other tuning values, or some facts taken away (a retraction, or what a maintenance
pass with the proposed thresholds would archive). Live gold sets are ranked against the workspace
itself, read-only (nothing is reinforced); a standalone set is seeded into a throwaway workspace
inside a transaction that is rolled back. Every capability is compared, the bar is judged on
`default` (what recall serves), and the report is plain JSON for the page and the CLI.

`score_live_set` uses the same ranking and metrics to show, in the console, what recall returns on
one live set now and how well.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import close_old_connections, connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from governance.engine import proposals as rules
from governance.engine import settings_search as search_rules
from governance.models import GoldSet, Proposal
from governance.services import proposal_bar
from governance.services.acting import require_role
from memory import sealing
from memory.engine import tuning as T
from memory.engine.recall.metrics import evaluate
from memory.models import Fact, Workspace
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError
from memory.services.recall import capabilities as caps
from memory.services.recall import evaluation as harness
from memory.services.recall import verbs as recall_service

K = 10
REFERENCE = ("bm25", "hybrid", "graph", "vector")  # compared for the record; the bar is judged on default
CAPABILITIES = ("default", *REFERENCE)
POOL = 20  # ranked per query before the facts a trial takes away are dropped


@dataclass(frozen=True)
class Trial:
    """One side of the comparison: the tuning to rank with and the facts taken away (memory ids)."""

    tuning: T.Tuning
    removed: frozenset[str] = frozenset()


@dataclass
class _Scored:
    cases: list[dict] = field(default_factory=list)  # {"id", "relevant_ids", "category"}, pooled over sets
    rankings: dict[str, dict[str, dict[str, list[str]]]] = field(default_factory=dict)  # cap → side → case → ids
    needed_taken: list[str] = field(default_factory=list)


def usable_sets(workspace: Workspace, *, with_cases: bool = False) -> list[GoldSet]:
    """Approved sets with at least one case and no placeholder query: what the gate counts. Counted in
    the database (pages ask on every request); `with_cases` also loads the cases, for scoring."""
    sets = (GoldSet.objects.filter(workspace=workspace, approved_at__isnull=False)
            .annotate(case_total=Count("cases"),
                      placeholders=Count("cases", filter=Q(cases__query__contains=harness.PLACEHOLDER)))
            .filter(case_total__gt=0, placeholders=0).order_by("name", "pk"))  # fmt: skip
    return list(sets.prefetch_related("cases") if with_cases else sets)


def gold_fingerprint(sets: Sequence[GoldSet]) -> str:
    """Which sets, in which state, an evaluation used (an edit or re-approval changes it)."""
    parts = [f"{s.pk}:{s.approved_at.isoformat() if s.approved_at else ''}:{s.updated_at.isoformat()}" for s in sets]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def trials(proposal: Proposal, in_force: T.Tuning) -> tuple[Trial, Trial, str]:
    """(baseline, candidate, bar) for the proposal, against the tuning in force."""
    if proposal.change == Proposal.Change.RETRACT:
        return Trial(in_force), Trial(in_force, frozenset(proposal.fact_ids)), rules.NOT_LOSE
    proposed = tuning_service.parse_or_refuse(proposal.tuning)
    return Trial(in_force), Trial(proposed), rules.bar_for("tuning", in_force, proposed)


def maintenance_removals(workspace: Workspace, tuning: T.Tuning, now) -> frozenset[str]:
    """The facts a decay GC and a dream with these thresholds would take out of recall now."""
    from memory.engine.maintenance.decay_gc import plan_decay_gc
    from memory.engine.maintenance.dream import plan_dream
    from memory.services.maintenance.passes import maint_facts, workspace_links
    from memory.timestamps import to_ms

    now_ms = int(to_ms(now))
    gc = plan_decay_gc(maint_facts(workspace), now_ms, archive_below=tuning.gc_archive_below,
                       prune_below=tuning.gc_prune_below)  # fmt: skip
    dream = plan_dream(maint_facts(workspace, lifecycles=None), workspace_links(workspace), now_ms,
                       consolidate_threshold=tuning.dream_merge_similarity, evict_below_score=tuning.dream_evict_below)
    taken = {a.memory_id for a in (*gc.archived, *gc.pruned)}
    for change in dream.fact_changes():
        if change.after.get("lifecycle") not in (None, "active"):
            taken.add(change.memory_id)
    return frozenset(taken)


def _maintenance_changed(base: Trial, cand: Trial) -> bool:
    return any(c["group"] == "maintenance" for c in T.diff(base.tuning, cand.tuning))


class _Progress:
    """Counts ranked queries; a live bar (`write(done, total)`, a row update) is written by a thread
    with its own connection, since a standalone set is ranked inside a transaction that is rolled
    back (its writes never show)."""

    def __init__(self, write: Callable[[int, int], Any] | None, total: int,
                 report: Callable[[int, int], None] | None) -> None:  # fmt: skip
        self.done, self.total, self.report = 0, total, report
        self._stop = threading.Event()
        self._thread = None
        if write is not None and not connection.in_atomic_block:
            self._thread = threading.Thread(target=self._write_loop, args=(write,), daemon=True)
            self._thread.start()

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.report:
            self.report(self.done, self.total)

    def _write_loop(self, write: Callable[[int, int], Any]) -> None:
        written = -1
        try:
            while not self._stop.wait(0.5):
                if self.done != written:
                    written = self.done
                    try:
                        write(written, self.total)
                    except Exception:  # best effort: a busy SQLite file only delays the bar
                        close_old_connections()
        finally:
            connection.close()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def _proposal_bar(proposal_id: int) -> Callable[[int, int], Any]:
    return lambda done, total: Proposal.objects.filter(pk=proposal_id).update(eval_done=done, eval_total=total)


def evaluate_proposal(proposal: Proposal, *, progress: Callable[[int, int], None] | None = None,
                      live_bar: bool = False) -> dict[str, Any]:  # fmt: skip
    """The report: per capability the baseline and candidate metrics and the paired CIs of their
    deltas, the default's per-category figures, the cases that changed, and the verdict."""
    started = time.perf_counter()
    workspace = proposal.workspace
    sets = usable_sets(workspace, with_cases=True)
    if not sets:
        raise RequestError(gate_refusal(workspace), kind="unapproved")
    version, in_force = tuning_service.current(workspace)
    base, cand, bar = trials(proposal, in_force)
    now = timezone.now()
    passes = sum(2 if cap == "default" or base.removed != cand.removed or _maintenance_changed(base, cand) else 1
                 for cap in CAPABILITIES)  # fmt: skip
    total = passes * sum(len(s.cases.all()) for s in sets)
    bar_writer = _Progress(_proposal_bar(proposal.pk) if live_bar else None, total, progress)
    scored = _Scored()
    try:
        for gold in sets:
            _score_set(gold, workspace, base, cand, now, scored, bar_writer)
    finally:
        bar_writer.stop()
    report = _report(scored, bar, proposal, sets, version, proposal_bar.asks(workspace))
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def gate_refusal(workspace: Workspace) -> str:
    """Why there is nothing to evaluate on, in words (the gate refuses unapproved and placeholder sets)."""
    sets = list(GoldSet.objects.filter(workspace=workspace)
                .annotate(placeholders=Count("cases", filter=Q(cases__query__contains=harness.PLACEHOLDER))))
    if not sets:
        return ("this workspace has no gold set: upload one or make a scaffold on the Gold sets page, rewrite its "
                "queries, and have an approver approve it")  # fmt: skip
    placeholder = [s.name for s in sets if s.placeholders]
    if placeholder:
        return (f"gold set(s) {', '.join(placeholder)} still have the placeholder query; rewrite every case, then "
                "have an approver approve the set (no approved gold set to evaluate on)")  # fmt: skip
    return "no gold set of this workspace is approved yet: an approver must approve one before anything is evaluated"


def _cases_of(gold: GoldSet, resolve: Callable[[str], str]) -> list[dict]:
    return [{"id": f"{gold.pk}:{c.case_id}", "query": c.query, "category": c.category or "uncategorized",
             "relevant_ids": tuple(dict.fromkeys(resolve(k) for k in c.relevant_keys))}
            for c in gold.cases.all()]  # fmt: skip


@contextmanager
def _ranked_in(gold: GoldSet, workspace: Workspace, now):
    """(workspace to rank in, cases with relevant ids resolved, (parsed set, ids by key) or None).

    A live set ranks in the workspace itself. A standalone set is seeded through the write path into
    a throwaway workspace whose rows are rolled back and whose keys are destroyed afterwards."""
    if gold.kind == GoldSet.Kind.LIVE:
        yield workspace, _cases_of(gold, lambda key: key), None
        return
    parsed = harness.parse_gold({"name": gold.name, "facts": gold.facts,
                                 "cases": [{"id": c.case_id, "query": c.query, "relevantKeys": c.relevant_keys,
                                            "category": c.category} for c in gold.cases.all()]},
                                gold.name)  # fmt: skip
    seeded = None
    try:
        with transaction.atomic():
            seeded = harness.seed_gold(parsed, now=now)
            ids = seeded.ids_by_key
            yield seeded.workspace, _cases_of(gold, lambda key: ids.get(key, f"missing:{key}")), (parsed, ids)
            raise _Rollback
    except _Rollback:
        pass
    finally:
        harness.forget_seeded(parsed, seeded)


class _Rollback(Exception):
    pass


def _score_set(gold, workspace, base: Trial, cand: Trial, now, scored: _Scored, bar: _Progress) -> None:
    with _ranked_in(gold, workspace, now) as (where, cases, standalone):
        base_removed, cand_removed = set(base.removed), set(cand.removed)
        if standalone is not None:
            parsed, ids = standalone
            base_removed = _map_removed(workspace, base.removed, parsed, ids)
            cand_removed = _map_removed(workspace, cand.removed, parsed, ids)
        if _maintenance_changed(base, cand):
            base_removed |= maintenance_removals(where, base.tuning, now)
            cand_removed |= maintenance_removals(where, cand.tuning, now)
        _rank_cases(where, cases, Trial(base.tuning, frozenset(base_removed)), Trial(cand.tuning, frozenset(cand_removed)),
                    now, scored, bar)  # fmt: skip


def search_settings(workspace: Workspace, *, max_cases: int = 300, progress: Callable[[int, int], None] | None = None,
                    live_bar: Callable[[int, int], Any] | None = None) -> search_rules.Outcome:  # fmt: skip
    """The search behind a recall-miss proposal (`governance.engine.settings_search`): the settings in
    force and their one-knob neighbours, each ranked once per case with no cut (every cut is then
    tried on that list), on the first `max_cases` approved gold cases, read-only; the choice is
    cross-validated inside the gold set. `progress(done, total)` counts ranked queries; `live_bar`
    writes them to a row from a thread of its own (the worker's bar)."""
    from memory.services.recall import embedding

    sets = usable_sets(workspace, with_cases=True)
    if not sets:
        raise RequestError(gate_refusal(workspace), kind="unapproved")
    _, in_force = tuning_service.current(workspace)
    now = timezone.now()
    learned = embedding.configured() is not None
    tunings = search_rules.ranking_candidates(in_force, learned=learned)
    planned = min(max_cases, sum(len(s.cases.all()) for s in sets))
    bar = _Progress(live_bar, planned * len(tunings), progress)
    cases: list[search_rules.Case] = []
    rankings: list[dict[str, list[tuple[str, float, float]]]] = [{} for _ in tunings]
    budget = max_cases
    try:
        for gold in sets:
            if budget <= 0:
                break
            with _ranked_in(gold, workspace, now) as (where, set_cases, _):
                set_cases = set_cases[:budget]
                budget -= len(set_cases)
                cases += [search_rules.Case(c["id"], frozenset(c["relevant_ids"])) for c in set_cases]
                for position, tuning in enumerate(tunings):
                    for case in set_cases:
                        # With no cut: the k best and every other candidate reaching the floor
                        # (the best match among them sets the match cut's bar).
                        found = recall_service.recall_selection(
                            workspace=where, query=case["query"], origin="owner", k=K, reinforce=False, now=now,
                            tuning=tuning, cut=0.0)  # fmt: skip
                        rankings[position][case["id"]] = [
                            (h.id, h.relevance, float(h.components.get("match", h.relevance)))
                            for h in [*found.hits, *found.left_out] if h.relevance >= tuning.relevance_floor]
                        bar.step()
    finally:
        bar.stop()
    return search_rules.search(search_rules.build_table(cases, rankings, tunings, learned=learned),
                               asks=proposal_bar.asks(workspace))


def _map_removed(workspace: Workspace, removed: frozenset[str], parsed, ids_by_key: dict[str, str]) -> set[str]:
    """A standalone set's own ids for workspace facts taken away: same key (a scaffold's ids) or same words."""
    if not removed:
        return set()
    out = {ids_by_key[mid] for mid in removed if mid in ids_by_key}
    contents = {f.content for f in Fact.objects.filter(workspace=workspace, memory_id__in=list(removed))}
    out |= {ids_by_key[f.key] for f in parsed.facts if f.content in contents and f.key in ids_by_key}
    return out


def _rank_cases(workspace, cases, base: Trial, cand: Trial, now, scored: _Scored, bar: _Progress) -> None:
    scored.cases += cases
    relevant = {rid for case in cases for rid in case["relevant_ids"]}
    taken = sorted((cand.removed - base.removed) & relevant)
    for rid in taken:
        needing = [c["id"].split(":", 1)[1] for c in cases if rid in c["relevant_ids"]]
        scored.needed_taken.append(f"{rid} (case {', '.join(needing[:2])})")
    same_lists = base.removed == cand.removed
    for cap in CAPABILITIES:
        sides = scored.rankings.setdefault(cap, {"baseline": {}, "candidate": {}})
        for case in cases:
            if cap == "default" and base.tuning == cand.tuning:
                # Same settings, different facts taken away (a retraction): one ranking serves both sides.
                both = Trial(base.tuning, base.removed | cand.removed)
                pool = [*_default(workspace, case["query"], both, now, keep=base.removed | cand.removed)]
                base_ids = [i for i in pool if i not in base.removed][:POOL]
                cand_ids = [i for i in pool if i not in cand.removed][:POOL]
                bar.step(2)
            elif cap == "default":
                base_ids = _default(workspace, case["query"], base, now)
                cand_ids = _default(workspace, case["query"], cand, now)
                bar.step(2)
            else:
                ranked = caps.rank(cap, workspace, case["query"], origin="owner", limit=POOL + len(base.removed | cand.removed),
                                   now=now)  # fmt: skip
                base_ids = [i for i in ranked if i not in base.removed][:POOL]
                cand_ids = base_ids if same_lists else [i for i in ranked if i not in cand.removed][:POOL]
                bar.step(1 if same_lists else 2)
            sides["baseline"][case["id"]] = base_ids
            sides["candidate"][case["id"]] = cand_ids


def _recalled(workspace, query: str, trial: Trial, now, k: int) -> list:
    """What the default recall returns to the owner under the trial's settings: read-only (nothing is
    reinforced), best first, at most k hits."""
    return recall_service.recall(workspace=workspace, query=query, origin="owner", k=k, reinforce=False, now=now,
                                 tuning=trial.tuning)  # fmt: skip


def _default(workspace, query: str, trial: Trial, now, *, keep: frozenset[str] = frozenset()) -> list[str]:
    """The default recall's ranking under the trial's settings, its removed facts left out (those in
    `keep` are kept, for a caller that filters each side itself)."""
    hits = _recalled(workspace, query, trial, now, POOL + len(trial.removed))
    left_out = trial.removed - keep
    return [h.id for h in hits if h.id not in left_out][: POOL + len(keep)]


def _summary(report) -> dict[str, Any]:
    return {"mrr": report.mrr, "recall_at_k": report.recall_at_k, "ndcg_at_k": report.ndcg_at_k,
            "hit_at_k": report.hit_rate, "precision": report.precision, "hits_per_question": report.hits_per_question,
            "scored": report.n_scored, "abstention_violations": report.abstention_violations}  # fmt: skip


def _report(scored: _Scored, bar: str, proposal: Proposal, sets, version: int, asks: rules.Bar) -> dict[str, Any]:
    cases = [{"id": c["id"], "relevant_ids": c["relevant_ids"], "category": c["category"]} for c in scored.cases]
    out: dict[str, Any] = {"k": K, "bar": bar, "asks": asks.as_dict(), "settings_version": version,
                           "gold_fingerprint": gold_fingerprint(sets),
                           "sets": [{"id": s.pk, "name": s.name, "kind": s.kind, "cases": len(s.cases.all())} for s in sets],
                           "cases": len(cases), "capabilities": {}}  # fmt: skip
    verdict = None
    for cap in CAPABILITIES:
        sides = scored.rankings.get(cap, {"baseline": {}, "candidate": {}})
        base = evaluate(cases, sides["baseline"], K)
        cand = evaluate(cases, sides["candidate"], K)
        found = rules.deltas(base, cand, asks=asks)
        out["capabilities"][cap] = {"baseline": _summary(base), "candidate": _summary(cand),
                                    "deltas": {name: d.as_dict() for name, d in found.items()}}  # fmt: skip
        if cap == "default":
            verdict = rules.judge(bar, found, needed_facts_taken=scored.needed_taken, moved=rules.movement(base, cand, asks),
                                  asks=asks)  # fmt: skip
            out["by_category"] = {
                name: {"baseline": base.by_category.get(name), "candidate": cand.by_category.get(name)}
                for name in sorted(set(base.by_category) | set(cand.by_category))
            }
            queries = {c["id"]: c["query"] for c in scored.cases}
            changed = [
                {"case": b.case_id, "query": queries.get(b.case_id, ""), "baseline_rr": b.reciprocal_rank,
                 "candidate_rr": c.reciprocal_rank, "category": b.category}
                for b, c in zip(base.per_case, cand.per_case, strict=True)
                if not b.abstention and b.reciprocal_rank != c.reciprocal_rank
            ]  # fmt: skip
            changed.sort(key=lambda row: row["candidate_rr"] - row["baseline_rr"])
            out["changed_cases"] = changed[:50]
            out["changed_count"] = len(changed)
    out["needed_facts_taken"] = scored.needed_taken
    out["verdict"] = {"clears": verdict.clears, "reason": verdict.reason}
    return out


# ---------------------------------------------------------------- one live set, scored now

MAX_SCORED_CASES = 200  # a console score runs in the request: one recall per case


SCORE_K = 8  # the k a live set is scored at when none is given (the recall playground's)


def score_live_set(gold: GoldSet, *, k: int, max_cases: int = MAX_SCORED_CASES, user=None) -> dict[str, Any]:
    """What recall returns on one live gold set now, and how well: the workspace's facts and its
    settings in force, the default capability as an owner's agent asks it, read-only (nothing is
    reinforced). The evaluation's own ranking and metrics, at `k`. Cases still holding the
    placeholder query are left out; past `max_cases` written cases, the rest are left out too.

    A standalone set carries its own facts, so it cannot be scored against this memory (a proposal's
    evaluation seeds them into a throwaway workspace)."""
    require_role(user, gold.workspace, "score_gold", "score gold sets")
    if gold.kind != GoldSet.Kind.LIVE:
        raise RequestError(f"gold set {gold.name!r} carries its own facts (an uploaded set), so it is not scored "
                           "against this memory; proposals' evaluations score it", kind="validation")  # fmt: skip
    started = time.perf_counter()
    workspace = gold.workspace
    version, in_force = tuning_service.current(workspace)
    now = timezone.now()
    all_cases = list(gold.cases.all())
    written = [c for c in all_cases if harness.PLACEHOLDER not in c.query]
    kept = {f"{gold.pk}:{c.case_id}" for c in written[:max_cases]}
    rankings: dict[str, list[str]] = {}
    returned: dict[str, list] = {}
    with _ranked_in(gold, workspace, now) as (where, cases, _):
        cases = [c for c in cases if c["id"] in kept]
        for case in cases:
            hits = _recalled(where, case["query"], Trial(in_force), now, k)
            rankings[case["id"]] = [h.id for h in hits]
            returned[case["id"]] = hits
    report = evaluate([{"id": c["id"], "relevant_ids": c["relevant_ids"], "category": c["category"]} for c in cases],
                      rankings, k)  # fmt: skip
    wanted = {rid for c in cases for rid in c["relevant_ids"]}
    facts = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace, memory_id__in=list(wanted))}

    def words(memory_id: str) -> str:
        fact = facts.get(memory_id)
        if fact is None:
            return ""
        try:
            return fact.content
        except sealing.KeyDestroyedError:
            return ""

    rows = []
    for number, (case, result) in enumerate(zip(cases, report.per_case, strict=True), 1):
        hits = returned[case["id"]][:k]
        relevant = set(case["relevant_ids"])
        ranks = {h.id: position for position, h in enumerate(hits, 1)}
        rows.append({
            "n": number, "case": case["id"].split(":", 1)[1], "query": case["query"], "category": case["category"],
            "abstention": result.abstention, "violation": result.abstention_violation,
            "reciprocal_rank": result.reciprocal_rank, "hit": result.hit_at_k == 1.0,
            "first": min((ranks[rid] for rid in relevant if rid in ranks), default=None),
            "relevant": [{"id": rid, "state": facts[rid].lifecycle if rid in facts else "gone", "rank": ranks.get(rid),
                          "content": "" if rid in ranks else words(rid)} for rid in case["relevant_ids"]],
            "returned": [{"rank": position, "id": h.id, "content": h.content, "relevance": h.relevance,
                          "relevant": h.id in relevant} for position, h in enumerate(hits, 1)],
        })  # fmt: skip
    return {"gold_set": gold.pk, "name": gold.name, "k": k, "settings_version": version, "summary": _summary(report),
            "by_category": report.by_category, "cases": rows, "total": len(all_cases), "abstentions": report.n_abstention,
            "placeholders": len(all_cases) - len(written), "left_out": max(0, len(written) - max_cases),
            "max_cases": max_cases, "seconds": round(time.perf_counter() - started, 2)}  # fmt: skip
