"""Self-improvement proposals: propose → evaluate → approve → apply → revert (ENGINE-SPEC §7, Decision 11).

Nothing a proposal changes reaches recall before three things happened, in order: an evaluation on
the workspace's approved gold sets cleared the proposal's bar (governance.engine.proposals), a
second person (an approver or admin who is not its author) approved it, and someone applied it.
Applying writes a new tuning version (memory.services.tuning) or retracts facts through memory's
primitives; reverting restores exactly what was there before. Every step is a `proposal` event.

Who may do what: owners and admins propose; approvers and admins approve or reject, never their
own; any member evaluates, applies an approved proposal, or reverts an applied one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince

from governance.engine import permissions
from governance.engine import proposals as rules
from governance.engine import settings_search as search_rules
from governance.engine.proposals import ANSWERS_FIRST
from governance.models import Proposal
from governance.services import notifications, proposal_bar, proposal_eval, recall_log, run_locks, webhooks
from governance.services.acting import acting_name, event_actor, require_role, row_id
from memory.engine import tuning as T
from memory.models import Fact, MemoryEvent, Workspace
from memory.permissions import roles_in
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import fact_states, set_fact_states
from memory.services.mutation import mutate
from memory.services.queueing import QueueUnavailableError, enqueue
from tideline_kit import telemetry

TELEMETRY = "telemetry"
PROPOSE_ROLES = permissions.roles_for("propose")
DECIDE_ROLES = permissions.roles_for("decide_proposal")
MAX_FACTS = 200  # facts one retract proposal may name


# ---------------------------------------------------------------- helpers


def get(workspace: Workspace, proposal_id: Any) -> Proposal:
    pk = row_id(proposal_id, "proposal")
    found = Proposal.objects.filter(workspace=workspace, pk=pk).select_related("workspace").first()
    if found is None:
        raise RequestError(f"no proposal #{pk} in {workspace.name}", kind="not_found")
    return found


def _event(workspace: Workspace, proposal: Proposal, action: str, *, actor: str, reason: str = "", **data) -> None:
    with mutate(workspace, actor=event_actor(actor)) as m:
        m.record("proposal", fact_ids=list(proposal.fact_ids)[:MAX_FACTS], reason=reason, proposal=proposal.pk,
                 action=action, change=proposal.change, source=proposal.source, **data)  # fmt: skip


def _fingerprint(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:40]


def _create(workspace: Workspace, *, actor: str, author=None, event_reason: str = "", **fields) -> Proposal | None:
    """Create and log a proposal; None when an open one with the same fingerprint already exists."""
    try:
        with transaction.atomic():
            proposal = Proposal.objects.create(workspace=workspace, author=author, **fields)
    except IntegrityError:
        return None
    _event(workspace, proposal, "proposed", actor=actor, reason=event_reason or proposal.title,
           diff=describe_change(proposal))  # fmt: skip
    notifications.approval_awaits(workspace, what=f"proposal #{proposal.pk}", author=author,
                                  path=reverse("governance:proposal-detail", args=[workspace.name, proposal.pk]))  # fmt: skip
    return proposal


def describe_change(proposal: Proposal) -> list[dict[str, Any]]:
    """The diff, before → after: knob values for a tuning proposal, lifecycles for a retraction."""
    if proposal.change == Proposal.Change.RETRACT:
        return [{"fact": mid, "before": "active", "after": "retracted (archived)"} for mid in proposal.fact_ids]
    before = tuning_service.values_of(proposal.workspace, proposal.base_version) if proposal.base_version else T.DEFAULT
    try:
        after = T.parse(proposal.tuning)
    except T.TuningError:
        return []
    return [{"name": c["name"], "label": c["label"], "group": c["group"], "before": c["before"], "after": c["after"]}
            for c in T.diff(before, after)]  # fmt: skip


def _protected_ids(workspace: Workspace, memory_ids: list[str]) -> list[str]:
    rows = Fact.objects.filter(workspace=workspace, memory_id__in=memory_ids).values_list("memory_id", "segment", "tier")
    return [mid for mid, segment, tier in rows if rules.protected(segment, tier)]


# ---------------------------------------------------------------- proposing


@telemetry.operation("governance.proposal.propose_retraction")
def propose_retraction(workspace: Workspace, memory_ids: list[str], *, rationale: str, user=None, actor: str,
                       source: str = Proposal.Source.MANUAL) -> Proposal:  # fmt: skip
    """A proposal to retract facts (manual: by an owner or admin)."""
    if source == Proposal.Source.MANUAL:
        require_role(user, workspace, "propose", "propose changes")
    ids = list(dict.fromkeys(str(m).strip() for m in memory_ids if str(m).strip()))
    if not ids:
        raise RequestError("name at least one fact to retract", kind="validation")
    if len(ids) > MAX_FACTS:
        raise RequestError(f"a proposal retracts at most {MAX_FACTS} facts", kind="validation")
    active = set(Fact.objects.filter(workspace=workspace, memory_id__in=ids, lifecycle="active")
                 .values_list("memory_id", flat=True))  # fmt: skip
    missing = [m for m in ids if m not in active]
    if missing:
        raise RequestError(f"no active fact {missing[0]!r} in {workspace.name}", kind="not_found")
    guarded = _protected_ids(workspace, ids)
    if guarded:
        raise RequestError(f"{guarded[0]} is protected (pinned or identity): a proposal cannot retract it",
                           kind="protected")  # fmt: skip
    if not rationale.strip():
        raise RequestError("say why: a proposal needs a rationale", kind="validation")
    title = f"Retract {len(ids)} fact{'s' if len(ids) != 1 else ''}"
    proposal = _create(workspace, actor=actor, author=user, change=Proposal.Change.RETRACT, source=source, title=title,
                       rationale=rationale.strip()[:5000], fact_ids=ids, author_name=acting_name(user, actor),
                       fingerprint=_fingerprint("retract", sorted(ids)))  # fmt: skip
    if proposal is None:
        raise RequestError("an open proposal to retract exactly these facts exists already", kind="conflict")
    return proposal


@telemetry.operation("governance.proposal.propose")
def propose_tuning(workspace: Workspace, values: dict[str, Any], *, rationale: str, user=None, actor: str,
                   source: str = Proposal.Source.MANUAL, title: str = "") -> Proposal:  # fmt: skip
    """A proposal to change knobs (values: only the knobs that change, on top of the version in force)."""
    if source == Proposal.Source.MANUAL:
        require_role(user, workspace, "propose", "propose changes")
    version, in_force = tuning_service.current(workspace)
    if not isinstance(values, dict) or not values:
        raise RequestError("name at least one setting to change, e.g. ngram_weight=0.3", kind="validation")
    after = tuning_service.parse_or_refuse({**in_force.as_dict(), **values})
    changes = T.diff(in_force, after)
    if not changes:
        raise RequestError("these values are the ones in force already: nothing would change", kind="validation")
    if not rationale.strip():
        raise RequestError("say why: a proposal needs a rationale", kind="validation")
    title = title or "Change " + ", ".join(f"{c['label']} {c['before']:g} → {c['after']:g}" for c in changes[:3])
    fingerprint = _fingerprint("tuning", version, after.as_dict())
    proposal = _create(workspace, actor=actor, author=user, change=Proposal.Change.TUNING, source=source,
                       title=title[:300], rationale=rationale.strip()[:5000], tuning=after.as_dict(), base_version=version,
                       author_name=acting_name(user, actor), fingerprint=fingerprint)  # fmt: skip
    if proposal is None:
        twin = Proposal.objects.filter(workspace=workspace, fingerprint=fingerprint, status__in=(
            Proposal.Status.PENDING, Proposal.Status.APPROVED)).values_list("pk", flat=True).first()  # fmt: skip
        raise RequestError("an open proposal with exactly these settings exists already"
                           + (f": #{twin} (decide or reject that one)" if twin else ""), kind="conflict")  # fmt: skip
    return proposal


def downvotes(workspace: Workspace) -> Counter:
    """How many times each fact was down-voted (feedback events)."""
    counts: Counter = Counter()
    for fact_ids, data in MemoryEvent.objects.filter(workspace=workspace, kind="feedback").values_list("fact_ids", "data"):
        if isinstance(data, dict) and data.get("signal") == "down" and not data.get("ignored"):
            counts.update(fact_ids or [])
    return counts


def propose_from_telemetry(workspace: Workspace, *, min_downvotes: int = rules.DEFAULT_MIN_DOWNVOTES,
                           actor: str = TELEMETRY) -> list[Proposal]:  # fmt: skip
    """One retract proposal per active, unprotected fact down-voted at least `min_downvotes` times."""
    if min_downvotes < 1:
        raise RequestError("--min-downvotes must be at least 1", kind="validation")
    counts = downvotes(workspace)
    chosen = rules.telemetry_retractions(counts, min_downvotes=min_downvotes)
    active = dict(Fact.objects.filter(workspace=workspace, memory_id__in=chosen, lifecycle="active")
                  .values_list("memory_id", "segment"))  # fmt: skip
    guarded = set(_protected_ids(workspace, chosen))
    made = []
    for mid in chosen:
        if mid not in active or mid in guarded:
            continue
        rationale = (f"People down-voted this fact {counts[mid]} times (the threshold is {min_downvotes}): it "
                     "keeps coming back in recall where it is not wanted. Retracting archives it; revert restores it.")  # fmt: skip
        proposal = _create(workspace, actor=actor, change=Proposal.Change.RETRACT, source=Proposal.Source.TELEMETRY,
                           title=f"Retract a {active[mid]} fact down-voted {counts[mid]} times", rationale=rationale,
                           fact_ids=[mid], author_name=TELEMETRY, fingerprint=_fingerprint("retract", [mid]))  # fmt: skip
        if proposal is not None:
            made.append(proposal)
    return made


def propose_from_recall_misses(workspace: Workspace, *, user=None, actor: str = TELEMETRY, max_cases: int = 300,
                               progress=None, live_bar=None) -> tuple[Proposal | None, str]:  # fmt: skip
    """Search the recall settings around those in force (`proposal_eval.search_settings`) and propose
    the best only when it does better on gold cases it was not fitted to. (the proposal, or None; what
    the search found, in words: why nothing was proposed, or what the proposal expects). The person
    who asked for the search (`user`, or their name as `actor`) is the proposal's author, so a second
    person approves it; with neither it is telemetry's."""
    require_role(user, workspace, "propose", "propose changes")  # before the search: a refusal costs no minutes
    found = proposal_eval.search_settings(workspace, max_cases=max_cases, progress=progress, live_bar=live_bar)
    if found.chosen is None:
        return None, found.reason
    version, in_force = tuning_service.current(workspace)
    before, after, gain = found.before, found.after, found.cv.gain
    rationale = (f"{found.misses} of {before.answerable} approved gold cases do not find their fact in the top "
                 f"{search_rules.K}. Of {found.tried} settings tried around those in force, these did best: MRR "
                 f"{before.mrr:.3f} → {after.mrr:.3f} and hit@{search_rules.K} {before.hit_at_k:.3f} → "
                 f"{after.hit_at_k:.3f} on those cases; precision {before.precision:.3f} → {after.precision:.3f}, "
                 f"{before.hits_per_question:.1f} → {after.hits_per_question:.1f} facts per question. Fitted on part of "
                 f"the cases and checked on the rest ({search_rules.FOLDS}-fold cross-validation), the search's "
                 f"expected MRR gain on questions it has not seen is {gain.mean:+.3f} (95% CI [{gain.lo:+.3f}, "
                 f"{gain.hi:+.3f}]). The evaluation decides; a second person approves.")  # fmt: skip
    changes = {c["name"]: c["after"] for c in T.diff(in_force, found.chosen)}
    try:
        made = propose_tuning(workspace, changes, rationale=rationale, user=user, actor=actor,
                              source=Proposal.Source.RECALL_MISSES)  # fmt: skip
    except RequestError as error:
        if error.kind == "conflict":
            return None, "the search found the settings of a proposal that is open already: decide that one"
        raise
    return made, found.reason


def propose_thresholds(workspace: Workspace, *, actor: str = TELEMETRY, min_restored: int = 3) -> Proposal | None:
    """When people restored at least `min_restored` facts that decay GC or the dream took out, propose
    taking out less: the GC archive threshold (or the dream's eviction floor) one step lower."""
    taken_by: dict[str, str] = {}
    restored: set[str] = set()
    for kind, actor_name, fact_ids in MemoryEvent.objects.filter(
        workspace=workspace, kind__in=("archived", "pruned", "evicted", "restored")
    ).order_by("revision", "pk").values_list("kind", "actor", "fact_ids"):
        machine = "gc" if "gc" in actor_name else ("dream" if "dream" in actor_name else "")
        for mid in fact_ids or []:
            if kind != "restored" and machine:
                taken_by[mid] = machine
            elif kind == "restored" and mid in taken_by and not ("gc" in actor_name or "dream" in actor_name):
                restored.add(mid)
    by_machine = Counter(taken_by[mid] for mid in restored)
    _, in_force = tuning_service.current(workspace)
    if by_machine["gc"] >= min_restored:
        value = round(max(in_force.gc_prune_below, in_force.gc_archive_below - 0.05), 4)
        changes, what = {"gc_archive_below": value}, "decay GC archived"
    elif by_machine["dream"] >= min_restored:
        changes, what = {"dream_evict_below": round(max(0.0, in_force.dream_evict_below - 0.02), 4)}, "the dream evicted"
    else:
        return None
    count = by_machine["gc"] if "gc_archive_below" in changes else by_machine["dream"]
    rationale = (f"People restored {count} facts that {what}: it takes out facts they still want. Taking out "
                 "less keeps them; the evaluation checks that nothing a gold case needs is lost.")  # fmt: skip
    try:
        return propose_tuning(workspace, changes, rationale=rationale, actor=actor, source=Proposal.Source.THRESHOLDS)
    except RequestError as error:
        if error.kind in ("conflict", "validation"):
            return None
        raise


# ---------------------------------------------------------------- evaluating


def request_evaluation(proposal: Proposal, *, user=None, actor: str, inline: bool = False,
                       progress=None) -> Proposal:  # fmt: skip
    """Queue an evaluation in the worker (or run it now when tasks run synchronously). `inline` runs
    it in this process instead (the CLI, which shows its own progress bar through `progress`)."""
    require_role(user, proposal.workspace, "evaluate_proposal", "evaluate proposals")
    if proposal.status not in (Proposal.Status.PENDING, Proposal.Status.APPROVED):
        raise RequestError(f"proposal #{proposal.pk} is {proposal.status}: only pending proposals are evaluated",
                           kind="conflict")  # fmt: skip
    refusal = None if proposal_eval.usable_sets(proposal.workspace) else proposal_eval.gate_refusal(proposal.workspace)
    if refusal:
        raise RequestError(refusal, kind="unapproved")
    # Run here, an evaluation queued for a worker that never came may be taken over; a running one never.
    busy = ["running"] if inline else ["queued", "running"]
    queued = Proposal.objects.filter(pk=proposal.pk).exclude(evaluation__in=busy).update(
        evaluation=Proposal.Evaluation.QUEUED, eval_done=0, eval_total=0, eval_error="")
    if not queued:
        raise RequestError(f"proposal #{proposal.pk} is being evaluated already", kind="conflict")
    _event(proposal.workspace, proposal, "evaluation_requested", actor=actor)
    if inline:
        run_evaluation(proposal.pk, progress=progress, actor=actor)
    else:
        try:
            enqueue("governance.tasks.evaluate_proposal", proposal.pk)
        except QueueUnavailableError:  # put back what the proposal said before: nothing was started
            Proposal.objects.filter(pk=proposal.pk, evaluation=Proposal.Evaluation.QUEUED).update(
                evaluation=proposal.evaluation, eval_done=proposal.eval_done, eval_total=proposal.eval_total,
                eval_error=proposal.eval_error)  # fmt: skip
            raise
    proposal.refresh_from_db()
    return proposal


@telemetry.operation("governance.proposal.evaluate")
def run_evaluation(proposal_id: int, *, live_bar: bool = True, progress=None,
                   actor: str = "worker:evaluation") -> dict[str, Any]:  # fmt: skip
    """The worker's part: evaluate, keep the report and the verdict on the proposal, log it. It holds
    the proposal's run lock throughout, so a killed run is told from a live one (`fail_interrupted`)."""
    with run_locks.holding("evaluation", proposal_id) as mine:
        if not mine:
            return {"proposal": proposal_id, "error": "it is being evaluated by another worker"}
        return _run_evaluation(proposal_id, live_bar=live_bar, progress=progress, actor=actor)


def fail_interrupted() -> list[int]:
    """Evaluations that say "running" while no live process runs them (their worker was killed) are
    failed with the reason, so that they can be requested again (they refused it before, for ever).
    Called as each django-q2 worker starts (governance.apps)."""
    failed = []
    for pk in Proposal.objects.filter(evaluation=Proposal.Evaluation.RUNNING).values_list("pk", flat=True):
        with run_locks.holding("evaluation", pk) as free:
            if free and Proposal.objects.filter(pk=pk, evaluation=Proposal.Evaluation.RUNNING).update(
                    evaluation=Proposal.Evaluation.FAILED,
                    eval_error="the worker stopped during the evaluation: evaluate it again"):  # fmt: skip
                failed.append(pk)
    return failed


def _run_evaluation(proposal_id: int, *, live_bar: bool, progress, actor: str) -> dict[str, Any]:
    proposal = Proposal.objects.select_related("workspace").get(pk=proposal_id)
    Proposal.objects.filter(pk=proposal.pk).update(evaluation=Proposal.Evaluation.RUNNING, eval_done=0)
    try:
        report = proposal_eval.evaluate_proposal(proposal, live_bar=live_bar, progress=progress)
    except RequestError as error:
        Proposal.objects.filter(pk=proposal.pk).update(evaluation=Proposal.Evaluation.FAILED, eval_error=error.message[:1000])
        return {"proposal": proposal.pk, "error": error.message}
    except Exception as error:  # the page must say it failed, not spin forever
        Proposal.objects.filter(pk=proposal.pk).update(evaluation=Proposal.Evaluation.FAILED,
                                                       eval_error=f"the evaluation failed: {type(error).__name__}")  # fmt: skip
        raise
    verdict = report["verdict"]
    Proposal.objects.filter(pk=proposal.pk).update(
        evaluation=Proposal.Evaluation.DONE, report=report, clears_bar=verdict["clears"], bar_reason=verdict["reason"],
        evaluated_at=timezone.now(), evaluated_version=report["settings_version"],
        evaluated_gold=report["gold_fingerprint"], eval_done=report["cases"], eval_total=report["cases"],
    )  # fmt: skip
    _event(proposal.workspace, proposal, "evaluated", actor=actor, reason=verdict["reason"],
           clears_bar=verdict["clears"], cases=report["cases"], settings_version=report["settings_version"])  # fmt: skip
    return {"proposal": proposal.pk, "clears_bar": verdict["clears"], "cases": report["cases"]}


def stale_reason(proposal: Proposal) -> str | None:
    """Why the stored evaluation no longer speaks for the proposal (None: it still does)."""
    if proposal.evaluation != Proposal.Evaluation.DONE or proposal.clears_bar is None:
        return "it has not been evaluated yet"
    version, _ = tuning_service.current(proposal.workspace)
    if proposal.evaluated_version != version:
        return (f"the settings moved to version {version} after it was evaluated (on version "
                f"{proposal.evaluated_version}): evaluate it again")  # fmt: skip
    if proposal.evaluated_gold != proposal_eval.gold_fingerprint(proposal_eval.usable_sets(proposal.workspace)):
        return "the approved gold sets changed after it was evaluated: evaluate it again"
    report = proposal.report or {}
    judged_by = report.get("asks", ANSWERS_FIRST.as_dict())
    if report.get("bar") == rules.BEAT and judged_by != proposal_bar.asks(proposal.workspace).as_dict():
        return "the bar proposals must clear changed after it was evaluated: evaluate it again"
    return None


WORKER_WAIT_SECONDS = 60  # a queued evaluation this old asks whether a worker runs at all


def waiting_for_worker(proposal: Proposal, now: datetime | None = None) -> str | None:
    """For an evaluation queued over `WORKER_WAIT_SECONDS` ago that no worker has started: a sentence
    saying how long it waited and how to start a worker (None otherwise)."""
    if proposal.evaluation != Proposal.Evaluation.QUEUED:
        return None
    asked = MemoryEvent.objects.filter(workspace=proposal.workspace, kind="proposal", data__proposal=proposal.pk,
                                       data__action="evaluation_requested").order_by("-revision").values_list(
        "at", flat=True).first()  # fmt: skip
    if asked is None:
        return None
    waited = ((now or timezone.now()) - asked).total_seconds()
    if waited < WORKER_WAIT_SECONDS:
        return None
    minutes = max(1, int(waited // 60))
    return (f"It has waited {minutes} minute{'s' if minutes != 1 else ''} for a worker: is one running? “tideline serve” "
            "runs one beside the web processes, “python manage.py qcluster” runs one alone")  # fmt: skip


def approval_blocker(proposal: Proposal, user=None, actor: str = "") -> str | None:
    """Why this person may not approve this proposal now (None: they may)."""
    if proposal.status != Proposal.Status.PENDING:
        return f"it is {proposal.status} already"
    if user is not None and not permissions.allows(roles_in(user, proposal.workspace), "decide_proposal"):
        return "only approvers or admins approve proposals"
    if is_author(proposal, user, actor):
        return "its author cannot approve it: a second person must"
    stale = stale_reason(proposal)
    if stale:
        return stale
    if not proposal.clears_bar:
        return f"it does not clear the bar: {proposal.bar_reason}"
    return None


def is_author(proposal: Proposal, user, actor: str) -> bool:
    if user is not None and proposal.author_id is not None:
        return proposal.author_id == user.pk
    name = user.get_username() if user is not None else actor
    return bool(name) and name == proposal.author_name and proposal.author_name != TELEMETRY


def _locked(proposal: Proposal) -> Proposal:
    return Proposal.objects.select_for_update().select_related("workspace").get(pk=proposal.pk)


# ---------------------------------------------------------------- deciding


@telemetry.operation("governance.proposal.approve")
def approve(proposal: Proposal, *, user=None, actor: str, reason: str) -> Proposal:
    if not reason.strip():
        raise RequestError("give a reason for the approval", kind="validation")
    with transaction.atomic():
        current = _locked(proposal)
        blocker = approval_blocker(current, user, actor)
        if blocker:
            kind = "forbidden" if "author" in blocker or "only" in blocker else "conflict"
            raise RequestError(f"proposal #{current.pk} cannot be approved: {blocker}", kind=kind)
        current.status, current.decided_by, current.decided_by_name = Proposal.Status.APPROVED, user, acting_name(user, actor)
        current.decided_at, current.decision_reason = timezone.now(), reason.strip()[:1000]
        current.save(update_fields=["status", "decided_by", "decided_by_name", "decided_at", "decision_reason"])
    _event(current.workspace, current, "approved", actor=acting_name(user, actor), reason=current.decision_reason)
    return current


@telemetry.operation("governance.proposal.reject")
def reject(proposal: Proposal, *, user=None, actor: str, reason: str) -> Proposal:
    if not reason.strip():
        raise RequestError("give a reason for the rejection", kind="validation")
    with transaction.atomic():
        current = _locked(proposal)
        if current.status != Proposal.Status.PENDING:
            raise RequestError(f"proposal #{current.pk} is {current.status} already: only a pending one is rejected",
                               kind="conflict")  # fmt: skip
        require_role(user, current.workspace, "decide_proposal", "reject proposals")
        if is_author(current, user, actor):
            raise RequestError("its author cannot decide it: a second person must (withdrawing is not built yet)",
                               kind="forbidden")  # fmt: skip
        current.status, current.decided_by, current.decided_by_name = Proposal.Status.REJECTED, user, acting_name(user, actor)
        current.decided_at, current.decision_reason = timezone.now(), reason.strip()[:1000]
        current.save(update_fields=["status", "decided_by", "decided_by_name", "decided_at", "decision_reason"])
    _event(current.workspace, current, "rejected", actor=acting_name(user, actor), reason=current.decision_reason)
    return current


# ---------------------------------------------------------------- applying and reverting


@telemetry.operation("governance.proposal.apply")
def apply(proposal: Proposal, *, user=None, actor: str) -> Proposal:
    """Carry out an approved proposal: a new tuning version, or the retraction. Refused twice."""
    workspace = proposal.workspace
    require_role(user, workspace, "apply_proposal", "apply proposals")
    with transaction.atomic():
        current = _locked(proposal)
        if current.status == Proposal.Status.APPLIED:
            raise RequestError(f"proposal #{current.pk} is applied already", kind="conflict")
        if current.status != Proposal.Status.APPROVED:
            raise RequestError(f"proposal #{current.pk} is {current.status}: only an approved proposal is applied",
                               kind="conflict")  # fmt: skip
        stale = stale_reason(current)
        if stale:
            raise RequestError(f"proposal #{current.pk} cannot be applied: {stale}", kind="conflict")
        name = acting_name(user, actor)
        if current.change == Proposal.Change.TUNING:
            before_version, _ = tuning_service.current(workspace)
            version = tuning_service.set_tuning(workspace, current.tuning, actor=event_actor(name), source=f"proposal #{current.pk}",
                                                reason=current.title, expect_version=before_version)  # fmt: skip
            done = {"from_version": before_version, "to_version": version}
        else:
            guarded = _protected_ids(workspace, current.fact_ids)
            if guarded:
                raise RequestError(f"{guarded[0]} is protected now (pinned or identity): not retracted", kind="protected")
            before = fact_states(workspace, current.fact_ids)
            live = {mid: state for mid, state in before.items() if state.get("lifecycle") == "active"}
            if not live:
                raise RequestError("none of its facts is active any more: nothing to retract", kind="conflict")
            with mutate(workspace, actor=event_actor(name)) as m:
                set_fact_states(m, {mid: {"lifecycle": "archived", "status": "retracted",
                                          "archived_at": m.now.isoformat()} for mid in live},
                                reason=f"retracted by proposal #{current.pk}")  # fmt: skip
            done = {"retracted": sorted(live), "before": live}
        current.status, current.applied, current.applied_at, current.applied_by_name = (
            Proposal.Status.APPLIED, done, timezone.now(), name)
        current.save(update_fields=["status", "applied", "applied_at", "applied_by_name"])
        webhooks.emit(workspace, "proposal.applied", proposal=current.pk, change=current.change)
    _event(workspace, current, "applied", actor=name, **{k: v for k, v in done.items() if k != "before"})
    return current


@telemetry.operation("governance.proposal.revert")
def revert(proposal: Proposal, *, user=None, actor: str, reason: str = "") -> Proposal:
    """Undo an applied proposal: the prior tuning version comes back as a new version, or the
    retracted facts return to the state they had. Refused when something changed them since."""
    workspace = proposal.workspace
    require_role(user, workspace, "revert_proposal", "revert proposals")
    with transaction.atomic():
        current = _locked(proposal)
        if current.status != Proposal.Status.APPLIED:
            raise RequestError(f"proposal #{current.pk} is {current.status}: only an applied proposal is reverted",
                               kind="conflict")  # fmt: skip
        name = acting_name(user, actor)
        done = current.applied or {}
        if current.change == Proposal.Change.TUNING:
            version, _ = tuning_service.current(workspace)
            if version != done.get("to_version"):
                raise RequestError(f"the settings moved on to version {version} after this proposal wrote version "
                                   f"{done.get('to_version')}: revert the later change first", kind="conflict")  # fmt: skip
            prior = tuning_service.values_of(workspace, done["from_version"])
            restored = tuning_service.set_tuning(workspace, prior.as_dict(), actor=event_actor(name), expect_version=version,
                                                 source=f"revert of proposal #{current.pk}",
                                                 reason=reason or f"revert of proposal #{current.pk}")  # fmt: skip
            undone = {"restored_version": done["from_version"], "new_version": restored}
        else:
            before = done.get("before") or {}
            now_states = fact_states(workspace, list(before))
            back = {mid: state for mid, state in before.items()
                    if now_states.get(mid, {}).get("status") == "retracted"}  # fmt: skip
            if back:
                with mutate(workspace, actor=event_actor(name)) as m:
                    set_fact_states(m, back, reason=reason or f"revert of proposal #{current.pk}")
            undone = {"restored": sorted(back), "skipped": sorted(set(before) - set(back))}
        current.status, current.reverted_at, current.reverted_by_name = Proposal.Status.REVERTED, timezone.now(), name
        current.save(update_fields=["status", "reverted_at", "reverted_by_name"])
        webhooks.emit(workspace, "proposal.reverted", proposal=current.pk, change=current.change)
    _event(workspace, current, "reverted", actor=name, reason=reason, **undone)
    return current


def traffic_since_applied(proposal: Proposal) -> dict[str, Any] | None:
    """What agents said of recall since a settings proposal was applied, beside the same length of time
    before it: their up- and down-votes on facts recall served under each settings version (feedback
    events name the version in force). None for a proposal that changed no settings or is not applied."""
    done = proposal.applied or {}
    if proposal.change != Proposal.Change.TUNING or not proposal.applied_at or "to_version" not in done:
        return None
    until = proposal.reverted_at or timezone.now()
    span = until - proposal.applied_at
    votes = MemoryEvent.objects.filter(workspace=proposal.workspace, kind="feedback")

    def counted(version: int, start, end) -> dict[str, int]:
        # A vote on a fact no longer active names no settings version: it is not counted.
        served = votes.filter(at__gte=start, at__lt=end, data__settings_version=version)
        return {signal: served.filter(data__signal=signal).count() for signal in ("up", "down")}

    moved = recall_log.first_hits_moved(proposal.workspace, from_version=done["from_version"],
                                        to_version=done["to_version"], start=proposal.applied_at, end=until)  # fmt: skip
    return {"after": counted(done["to_version"], proposal.applied_at, until),
            "before": counted(done["from_version"], proposal.applied_at - span, proposal.applied_at),
            "span": timesince(proposal.applied_at, until) if span.total_seconds() >= 60 else "less than a minute",
            "to_version": done["to_version"],
            "from_version": done["from_version"], "asked_both": moved["asked_both"],
            "moved": _with_words(proposal.workspace, moved["moved"])}  # fmt: skip


MOVED_SHOWN = 20


def _with_words(workspace, moved: list[dict[str, str]]) -> list[dict[str, str]]:
    """The first `MOVED_SHOWN` moved recalls, each fact id with its words when they are readable."""
    shown = moved[:MOVED_SHOWN]
    ids = {row[side] for row in shown for side in ("before", "after") if row[side]}
    words = {f.memory_id: f.content if f.is_readable else "" for f in Fact.objects.filter(workspace=workspace,
                                                                                          memory_id__in=ids)}  # fmt: skip
    return [{**row, "before_text": words.get(row["before"], ""), "after_text": words.get(row["after"], "")}
            for row in shown]  # fmt: skip


def to_dict(proposal: Proposal, *, with_report: bool = False) -> dict[str, Any]:
    """What the CLI and the API show of a proposal."""
    out = {"id": proposal.pk, "workspace": proposal.workspace.name, "title": proposal.title, "change": proposal.change,
           "source": proposal.source, "status": proposal.status, "author": proposal.author_name,
           "rationale": proposal.rationale, "diff": describe_change(proposal), "fact_ids": list(proposal.fact_ids),
           "base_version": proposal.base_version, "created_at": proposal.created_at.isoformat(),
           "evaluation": proposal.evaluation, "clears_bar": proposal.clears_bar, "bar_reason": proposal.bar_reason,
           "evaluated_version": proposal.evaluated_version,
           "decided_by": proposal.decided_by_name or None, "decision_reason": proposal.decision_reason or None,
           "applied": proposal.applied or None, "applied_by": proposal.applied_by_name or None,
           "reverted_by": proposal.reverted_by_name or None}  # fmt: skip
    if with_report:
        out["report"] = proposal.report or None
    return out
