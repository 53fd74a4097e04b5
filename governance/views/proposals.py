"""The proposals pages: /w/<ws>/proposals/ (inbox, new proposals) and /w/<ws>/proposals/<id>/ (ENGINE-SPEC §7).

Every member reads them. Owners and admins propose; approvers and admins approve or reject (never
their own); any member evaluates, applies an approved proposal or reverts an applied one. Apply and
revert change what recall returns, so each asks once more before it acts. The work is
`governance.services.proposals`'; a refusal comes back as a message on the page, never an error page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.engine import proposals as rules
from governance.forms import (
    ProposalBarForm,
    ProposalDecisionForm,
    ProposalFilterForm,
    RetractionProposalForm,
    TelemetryProposalForm,
    TuningProposalForm,
    parsed,
)
from governance.models import Proposal
from governance.services import proposal_bar, proposal_eval, proposals, recall_log, settings_searches
from governance.services.acting import Actor
from memory.engine import tuning as T
from memory.models import MemoryEvent
from memory.permissions import get_workspace_for_user
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError
from tideline_kit.filters import refused
from tideline_kit.htmx import wants_partial
from tideline_kit.paging import numbered_pager

PAGE_SIZE = 25
STATUSES = [s.value for s in Proposal.Status]


@login_required
def proposals_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each source has its own view
        return SOURCES.get(request.POST.get("action", ""), propose_unknown)(request, workspace)
    ws = get_workspace_for_user(request, workspace)
    form = ProposalFilterForm(request.GET or None)
    refusal = refused(form)  # an unknown status lists nothing (400), never every proposal as if it applied
    status = form.cleaned_data["status"] if form.is_valid() else ""
    found = Proposal.objects.filter(workspace=ws).order_by("-created_at", "-pk")
    counts = {s: 0 for s in STATUSES}
    for value in found.values_list("status", flat=True):
        counts[value] += 1
    listed = found.none() if refusal else found.filter(status=status) if status else found
    page = Paginator(listed, PAGE_SIZE).get_page(request.GET.get("page"))
    version, in_force = tuning_service.current(ws)
    roles = request.workspace_roles
    return render(request, "governance/proposals.html", {
        "workspace": ws, "page": page, "pager": numbered_pager(request, page), "status": status, "counts": counts,
        "total": sum(counts.values()),
        "can_propose": permissions.allows(roles, "propose"), "version": version,
        "knobs": [(k, f"{getattr(in_force, k.name):g}", f"{k.low:g}–{k.high:g}") for k in T.KNOBS], "min_downvotes": rules.DEFAULT_MIN_DOWNVOTES,
        "gate": None if proposal_eval.usable_sets(ws) else proposal_eval.gate_refusal(ws), "form": request.POST,
        "search": settings_searches.latest(ws), "filter_errors": form.errors if refusal else {}, **_bar_context(ws, roles),
    }, status=400 if refusal else 200)  # fmt: skip


def _bar_context(ws, roles) -> dict:
    asks = proposal_bar.asks(ws)
    return {"asks": asks, "can_set_bar": permissions.allows(roles, "set_proposal_bar"),
            "noise_weights": sorted({*rules.Bar.NOISE_WEIGHTS, asks.noise_weight}),
            "hit_allowances": sorted({*rules.Bar.HIT_ALLOWANCES, asks.hit_allowance})}  # fmt: skip


@require_POST
@login_required
def proposal_bar_set(request: HttpRequest, workspace: str) -> HttpResponse:
    """An admin sets what recall-settings proposals must show; a refusal is a message on the page."""
    ws = get_workspace_for_user(request, workspace)
    data = parsed(ProposalBarForm, request.POST)
    try:
        asks = proposal_bar.set_bar(ws, noise_weight=data["noise_weight"], hit_allowance=data["hit_allowance"],
                                    user=request.user, actor=Actor.person(request.user))  # fmt: skip
    except RequestError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"The bar is now {asks.words()}.")
    return redirect(f"{reverse('governance:proposals', args=[ws.name])}#proposal-bar")


@login_required
def proposal_search(request: HttpRequest, workspace: str, search_id: int) -> HttpResponse:
    """The settings search's part of the proposals page, which polls it while the worker runs it."""
    ws = get_workspace_for_user(request, workspace)
    try:
        search = settings_searches.get(ws, search_id)
    except RequestError:
        raise Http404("no such search") from None
    return render(request, "governance/proposals.html#search", {"workspace": ws, "search": search,
                                                                "can_propose": permissions.allows(request.workspace_roles, "propose")})  # fmt: skip


def _propose(request: HttpRequest, workspace: str, make) -> HttpResponse:
    """Check the role, make the proposal(s); a refusal is a message on the proposals page."""
    ws = get_workspace_for_user(request, workspace)
    try:
        if not permissions.allows(request.workspace_roles, "propose"):
            raise RequestError("only owners or admins make proposals", kind="forbidden")
        response = make(ws)
    except RequestError as error:
        messages.error(request, error.message)
        return redirect("governance:proposals", ws.name)
    return response or redirect("governance:proposals", ws.name)


@require_POST
@login_required
def propose_telemetry(request: HttpRequest, workspace: str) -> HttpResponse:
    def make(ws):
        min_downvotes = parsed(TelemetryProposalForm, request.POST)["min_downvotes"]
        made = proposals.propose_from_telemetry(ws, min_downvotes=min_downvotes)
        made += [p for p in (proposals.propose_thresholds(ws),) if p is not None]
        _said(request, made, "no fact has enough down-votes and no restored facts point at a threshold")

    return _propose(request, workspace, make)


@require_POST
@login_required
def propose_misses(request: HttpRequest, workspace: str) -> HttpResponse:
    def make(ws):
        search = settings_searches.request(ws, user=request.user, actor=Actor.person(request.user))
        if search.running:
            messages.info(request, "Searching the recall settings in the worker: the bar below shows how far it is.")
        return redirect(reverse("governance:proposals", args=[ws.name]) + "#settings-search")

    return _propose(request, workspace, make)


@require_POST
@login_required
def propose_tuning(request: HttpRequest, workspace: str) -> HttpResponse:
    def make(ws):
        form = TuningProposalForm(request.POST, knobs=[k.name for k in T.KNOBS])
        form.is_valid()
        changed = tuning_service.changes_from_text(ws, form.typed())
        made = proposals.propose_tuning(ws, changed, rationale=form.cleaned_data["rationale"], user=request.user,
                                        actor=Actor.person(request.user))  # fmt: skip
        return redirect("governance:proposal-detail", ws.name, made.pk)

    return _propose(request, workspace, make)


@require_POST
@login_required
def propose_retraction(request: HttpRequest, workspace: str) -> HttpResponse:
    def make(ws):
        form = parsed(RetractionProposalForm, request.POST)
        made = proposals.propose_retraction(ws, form["fact_ids"], rationale=form["rationale"], user=request.user,
                                            actor=Actor.person(request.user))  # fmt: skip
        return redirect("governance:proposal-detail", ws.name, made.pk)

    return _propose(request, workspace, make)


def propose_unknown(request: HttpRequest, workspace: str) -> HttpResponse:
    def make(ws):
        raise RequestError("choose what to propose", kind="validation")

    return _propose(request, workspace, make)


SOURCES = {"telemetry": propose_telemetry, "misses": propose_misses, "tuning": propose_tuning,
           "retract": propose_retraction}  # fmt: skip


def _said(request: HttpRequest, made: list[Proposal], none: str) -> None:
    if made:
        messages.success(request, f"Proposed {len(made)}: " + ", ".join(f"#{p.pk} {p.title}" for p in made[:5]))
    else:
        messages.info(request, f"Nothing to propose: {none}.")


def _proposal(request: HttpRequest, workspace: str, proposal_id: int):
    ws = get_workspace_for_user(request, workspace)
    proposal = Proposal.objects.filter(workspace=ws, pk=proposal_id).first() if proposal_id < 2**31 else None
    if proposal is None:
        raise Http404("no such proposal")
    return ws, proposal


@login_required
def proposal_detail(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        return VERBS.get(request.POST.get("action", ""), proposal_unknown)(request, workspace, proposal_id)
    ws, proposal = _proposal(request, workspace, proposal_id)
    if wants_partial(request):
        return render(request, "governance/proposal_detail.html#evaluation", _context(request, ws, proposal))
    return render(request, "governance/proposal_detail.html", _context(request, ws, proposal))


def _act(request: HttpRequest, workspace: str, proposal_id: int, act, *, confirm: str | None = None) -> HttpResponse:
    """Carry out one verb on the proposal; a refusal is a message. With `confirm`, an unconfirmed POST
    shows the page again asking once more."""
    ws, proposal = _proposal(request, workspace, proposal_id)
    form = parsed(ProposalDecisionForm, request.POST)
    if confirm and not form["confirmed"]:
        proposal.refresh_from_db()
        return render(request, "governance/proposal_detail.html", _context(request, ws, proposal, confirm=confirm))
    try:
        act(proposal, form, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        messages.error(request, error.message)
    return redirect("governance:proposal-detail", ws.name, proposal.pk)


@require_POST
@login_required
def proposal_evaluate(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def evaluate(proposal, form, **who):
        done = proposals.request_evaluation(proposal, **who)
        # A queued evaluation is said inside the part of the page that refreshes itself, so the words
        # go when the report arrives; a message here would stay beside the report.
        if done.evaluation == Proposal.Evaluation.DONE:
            messages.success(request, "Evaluated: the report is below.")

    return _act(request, workspace, proposal_id, evaluate)


@require_POST
@login_required
def proposal_approve(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def approve(proposal, form, **who):
        proposals.approve(proposal, reason=form["reason"], **who)
        messages.success(request, f"Approved #{proposal.pk}. It changes nothing until someone applies it.")

    return _act(request, workspace, proposal_id, approve)


@require_POST
@login_required
def proposal_reject(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def reject(proposal, form, **who):
        proposals.reject(proposal, reason=form["reason"], **who)
        messages.success(request, f"Rejected #{proposal.pk}.")

    return _act(request, workspace, proposal_id, reject)


@require_POST
@login_required
def proposal_apply(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def apply(proposal, form, **who):
        done = proposals.apply(proposal, **who).applied or {}
        messages.success(request, f"Applied #{proposal.pk}: " + (
            f"the settings are now version {done['to_version']}." if "to_version" in done
            else f"{len(done.get('retracted', []))} fact(s) retracted."))  # fmt: skip

    return _act(request, workspace, proposal_id, apply, confirm="apply")


@require_POST
@login_required
def proposal_revert(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def revert(proposal, form, **who):
        proposals.revert(proposal, reason=form["reason"], **who)
        messages.success(request, f"Reverted #{proposal.pk}: recall is as it was before it was applied.")

    return _act(request, workspace, proposal_id, revert, confirm="revert")


def proposal_unknown(request: HttpRequest, workspace: str, proposal_id: int) -> HttpResponse:
    def unknown(proposal, form, **who):
        raise RequestError("choose an action", kind="validation")

    return _act(request, workspace, proposal_id, unknown)


VERBS = {"evaluate": proposal_evaluate, "approve": proposal_approve, "reject": proposal_reject,
         "apply": proposal_apply, "revert": proposal_revert}  # fmt: skip


def _context(request: HttpRequest, ws, proposal: Proposal, *, confirm: str | None = None) -> dict:
    roles = request.workspace_roles
    user = request.user
    report = proposal.report or {}
    default = (report.get("capabilities") or {}).get("default") or {}
    history = MemoryEvent.objects.filter(workspace=ws, kind="proposal", data__proposal=proposal.pk).order_by("revision")
    return {
        "workspace": ws, "proposal": proposal, "diff": [{k: _num(v) for k, v in c.items()} for c in proposals.describe_change(proposal)],
        "report": report,
        "chart": delta_chart(default.get("deltas") or {}), "capabilities": _capability_rows(report),
        "metric_names": [METRIC_LABELS.get(n, n) for n in (default.get("deltas") or {})]
                        + [label for name, label in NOISE_LABELS.items() if name in (default.get("baseline") or {})],
        "percent": _percent(proposal), "history": history[:100], "confirm": confirm,
        "can_decide": permissions.allows(roles, "decide_proposal") and proposal.status == Proposal.Status.PENDING,
        "blocker": proposals.approval_blocker(proposal, user, user.get_username()),
        "stale": proposals.stale_reason(proposal) if proposal.evaluation == Proposal.Evaluation.DONE
                 and proposal.status in (Proposal.Status.PENDING, Proposal.Status.APPROVED) else None,
        "is_author": proposals.is_author(proposal, user, user.get_username()),
        "traffic": proposals.traffic_since_applied(proposal), "recall_log_days": recall_log.kept_days(),
        "waiting": proposals.waiting_for_worker(proposal),
        "asks": rules.Bar(**report["asks"]) if "asks" in (report or {}) else proposal_bar.asks(ws),
    }  # fmt: skip


def _num(value):
    """A knob's value as a person writes it (0.5, not 0.5000); anything else as it is."""
    return f"{value:g}" if isinstance(value, float) else value


def _percent(proposal: Proposal) -> int:
    if proposal.evaluation == Proposal.Evaluation.DONE:
        return 100
    return min(100, int(100 * proposal.eval_done / proposal.eval_total)) if proposal.eval_total else 0


METRIC_LABELS = {"mrr": "MRR", "recall_at_k": "recall@k", "ndcg_at_k": "nDCG@k", "hit_at_k": "hit@k", "value": "value"}
# How much comes back with the answer (an evaluation made before these were measured has none): pooled
# over the cases, so there is no per-case interval, only the change.
NOISE_LABELS = {"precision": "precision", "hits_per_question": "hits/question"}


def _capability_rows(report: dict) -> list[dict]:
    """One row per capability, one cell per metric: in force → proposed, and the delta with its CI;
    then precision and hits per question, in force → proposed, and their change."""
    rows = []
    for cap, found in (report.get("capabilities") or {}).items():
        cells = [{"baseline": d["baseline"], "candidate": d["candidate"], "mean": d["mean"], "lo": d["ci95"][0],
                  "hi": d["ci95"][1]} for d in (found.get("deltas") or {}).values()]  # fmt: skip
        base, cand = found.get("baseline") or {}, found.get("candidate") or {}
        cells += [{"baseline": base[name], "candidate": cand[name], "mean": cand[name] - base[name], "lo": None,
                   "hi": None, "metric": name} for name in NOISE_LABELS if name in base and name in cand]  # fmt: skip
        rows.append({"capability": cap, "cells": cells})
    return rows


def delta_chart(deltas: dict, *, width: int = 640, row: int = 34) -> dict | None:
    """Coordinates for the SVG of each metric's delta with its 95% CI around a zero line (no JS needed)."""
    if not deltas:
        return None
    span = max([0.05] + [abs(v) for d in deltas.values() for v in (d["ci95"][0], d["ci95"][1], d["mean"])
                         if v == v])  # fmt: skip
    left, plot = 80, width - 80 - 200  # labels on the left, the numbers in the last 200 px
    zero = left + plot / 2

    def x(value: float) -> float:
        return round(zero + (value / span) * (plot / 2), 1) if value == value else zero

    rows = []
    for i, (name, d) in enumerate(deltas.items()):
        y = 24 + i * row
        lo, hi, mean = d["ci95"][0], d["ci95"][1], d["mean"]
        tone = "up" if lo == lo and lo > 0 else ("down" if hi == hi and hi < 0 else "flat")
        rows.append({"label": METRIC_LABELS.get(name, name), "y": y, "x_lo": x(lo), "x_hi": x(hi), "x_mean": x(mean),
                     "text": f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]" if mean == mean else "n/a", "tone": tone})  # fmt: skip
    return {"width": width, "height": 24 + len(rows) * row, "zero": zero, "rows": rows, "span": f"{span:.2f}",
            "left": left, "right": left + plot, "text_x": width - 4}  # fmt: skip
