"""The gold-set pages: /w/<ws>/gold/ (list, upload, scaffold) and /w/<ws>/gold/<id>/ (rewrite cases,
approve), plus the recall playground's "this query should have found that fact" (ENGINE-SPEC §8.1).

Every member reads them; owners and admins make and edit sets; approvers and admins approve a set
someone else made. The work is `governance.services.gold`'s; refusals come back as messages.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from governance.engine import permissions
from governance.forms import (
    CleanText,
    GoldCandidateForm,
    GoldCaseForm,
    GoldScaffoldForm,
    GoldScoreForm,
    GoldUploadForm,
    PlaygroundCaseForm,
    parsed,
    positive_id,
)
from governance.models import GoldSet
from governance.services import gold, proposal_eval
from governance.services import gold_candidates as candidates
from governance.services.acting import Actor
from memory.models import Fact
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER
from memory.services.writes.policy import TidelineError
from tideline_kit.filters import refused
from tideline_kit.paging import numbered_pager

CASES_PER_PAGE = 50
CANDIDATES_PER_PAGE = 25


@login_required
def gold_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        return MAKERS.get(request.POST.get("action"), gold_make_unknown)(request, workspace)
    ws = get_workspace_for_user(request, workspace)
    found = candidates.open_candidates(ws)
    page = Paginator(found, CANDIDATES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "governance/gold_list.html", {
        "workspace": ws, "sets": gold.sets(ws), "can_edit": permissions.allows(request.workspace_roles, "edit_gold"),
        "scaffold_default": gold.SCAFFOLD_DEFAULT, "max_cases": gold.MAX_CASES,
        "candidates": candidates.shown(page.object_list), "candidate_page": page,
        "candidate_pager": numbered_pager(request, page), "signals_set": candidates.SET_NAME,
    })  # fmt: skip


@require_POST
@login_required
def gold_candidate_accept(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    try:
        form = parsed(GoldCandidateForm, request.POST)
        found = candidates.get(ws, form["candidate"])
        case = candidates.accept(found, user=request.user, actor=Actor.person(request.user), query=form["query"] or None,
                                 fact_id=form["fact_id"] or None, nothing=form["nothing"])  # fmt: skip
    except RequestError as error:
        messages.error(request, error.message)
        return redirect(reverse("governance:gold", args=[ws.name]) + "#candidates")
    messages.success(request, f"Accepted: case {case.case_id} of {candidates.SET_NAME!r}. That set now waits for an "
                              "approver's approval before proposals are judged on it.")  # fmt: skip
    return redirect(reverse("governance:gold", args=[ws.name]) + "#candidates")


@require_POST
@login_required
def gold_candidate_reject(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    try:
        found = candidates.get(ws, request.POST.get("candidate"))
        candidates.reject(found, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Rejected candidate #{found.pk}.")
    return redirect(reverse("governance:gold", args=[ws.name]) + "#candidates")


def _make(request: HttpRequest, workspace: str, make) -> HttpResponse:
    """Make a set; its page next, or the list again with the refusal."""
    ws = get_workspace_for_user(request, workspace)
    try:
        made = make(ws, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        messages.error(request, error.message)
        return redirect("governance:gold", ws.name)
    return redirect("governance:gold-detail", ws.name, made.pk)


@require_POST
@login_required
def gold_upload(request: HttpRequest, workspace: str) -> HttpResponse:
    def upload(ws, **who):
        form = parsed(GoldUploadForm, request.POST, request.FILES)
        file = form["file"]
        if file is None:
            raise RequestError("choose a gold JSON file to upload", kind="validation")
        if file.size > gold.MAX_UPLOAD_BYTES:
            raise RequestError(f"{file.name} is larger than 5 MB", kind="invalid_input")
        made = gold.upload(ws, file.read(), filename=CleanText(200, strip=False).clean(file.name), name=form["name"], **who)
        messages.success(request, f"Uploaded {made.name!r}: {made.cases.count()} cases. Check the queries, then an "
                                  "approver approves it.")  # fmt: skip
        return made

    return _make(request, workspace, upload)


@require_POST
@login_required
def gold_scaffold(request: HttpRequest, workspace: str) -> HttpResponse:
    def scaffold(ws, **who):
        form = GoldScaffoldForm(request.POST, default=gold.SCAFFOLD_DEFAULT)
        if not form.is_valid():
            raise RequestError(form.errors["size"][0], kind="validation")
        made = gold.scaffold(ws, size=form.cleaned_data["size"], name=form.cleaned_data["name"], **who)
        messages.success(request, f"Made {made.name!r} with {made.cases.count()} cases: rewrite each query the way a "
                                  "person would ask for the fact.")  # fmt: skip
        return made

    return _make(request, workspace, scaffold)


def gold_make_unknown(request: HttpRequest, workspace: str) -> HttpResponse:
    def unknown(ws, **who):
        raise RequestError("choose what to do", kind="validation")

    return _make(request, workspace, unknown)


MAKERS = {"upload": gold_upload, "scaffold": gold_scaffold}


def _gold(request: HttpRequest, workspace: str, gold_id: int):
    ws = get_workspace_for_user(request, workspace)
    try:
        return ws, gold.get(ws, gold_id)
    except RequestError:
        raise Http404("no such gold set") from None


@login_required
def gold_detail(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        return CHANGES.get(request.POST.get("action", ""), gold_change_unknown)(request, workspace, gold_id)
    ws, found = _gold(request, workspace, gold_id)
    return _detail(request, ws, found)


def _detail(request: HttpRequest, ws, found, *, confirm: str | None = None) -> HttpResponse:
    cases = found.cases.all()
    # A confirmation answers a POST to the verb's own URL: its page links are the set page's.
    request.path = reverse("governance:gold-detail", args=[ws.name, found.pk])
    page = Paginator(cases, CASES_PER_PAGE).get_page(request.GET.get("page"))
    for case in page.object_list:  # a query lifted from the fact grades recall on its own answer key
        case.copied = bool(case.hint) and PLACEHOLDER not in case.query and _words(case.query) <= _words(case.hint)
    roles = request.workspace_roles
    user = request.user
    return render(request, "governance/gold_detail.html", {
        "workspace": ws, "gold": found, "page": page, "pager": numbered_pager(request, page), "placeholder": PLACEHOLDER,
        "confirm": confirm,
        "placeholders": cases.filter(query__contains=PLACEHOLDER).count(), "total": cases.count(),
        "can_edit": permissions.allows(roles, "edit_gold"), "can_approve": permissions.allows(roles, "approve_gold"),
        "blocker": gold.approval_blocker(found, user, user.get_username()),
    })  # fmt: skip


def _change(request: HttpRequest, workspace: str, gold_id: int, change) -> HttpResponse:
    """Carry out one change of the set; back to its page (the same page of cases), with a message."""
    ws, found = _gold(request, workspace, gold_id)
    form = GoldCaseForm(request.POST)
    form.is_valid()
    try:
        outcome = change(ws, found, form.cleaned_data, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        messages.error(request, error.message)
    else:
        if isinstance(outcome, str):  # what needs confirming first
            return _detail(request, ws, found, confirm=outcome)
        if isinstance(outcome, HttpResponse):
            return outcome
    url = redirect("governance:gold-detail", ws.name, found.pk)
    url["Location"] += form.page_suffix()
    return url


@require_POST
@login_required
def gold_case_edit(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def edit(ws, found, form, **who):
        was_approved = found.approved
        gold.edit_case(found, form["case"], query=form["query"], category=form["category"], **who)
        messages.success(request, "Saved the case." + (" The set needs approving again." if was_approved else ""))

    return _change(request, workspace, gold_id, edit)


@require_POST
@login_required
def gold_case_add(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def add(ws, found, form, **who):
        gold.add_case(found, query=form["query"], relevant_keys=form["keys"], category=form["category"], **who)
        messages.success(request, "Added the case.")

    return _change(request, workspace, gold_id, add)


@require_POST
@login_required
def gold_case_delete(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def delete(ws, found, form, **who):
        if not form["confirmed"]:
            return f"delete-case:{gold.get_case(found, form['case']).pk}"
        gone = gold.delete_case(found, form["case"], **who)
        messages.success(request, f"Deleted case {gone}.")

    return _change(request, workspace, gold_id, delete)


@require_POST
@login_required
def gold_approve(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def approve(ws, found, form, **who):
        gold.approve(found, **who)
        messages.success(request, f"Approved {found.name!r}: proposals are evaluated on it from now on.")

    return _change(request, workspace, gold_id, approve)


@require_POST
@login_required
def gold_delete(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def delete(ws, found, form, **who):
        if not form["confirmed"]:
            return "delete-set"
        name = gold.delete_set(found, **who)
        messages.success(request, f"Deleted the gold set {name!r}.")
        return redirect("governance:gold", ws.name)

    return _change(request, workspace, gold_id, delete)


def gold_change_unknown(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    def unknown(ws, found, form, **who):
        raise RequestError("choose what to do", kind="validation")

    return _change(request, workspace, gold_id, unknown)


CHANGES = {"edit": gold_case_edit, "add": gold_case_add, "delete-case": gold_case_delete, "approve": gold_approve,
           "delete-set": gold_delete}  # fmt: skip


@require_POST
@login_required
def gold_from_playground(request: HttpRequest, workspace: str) -> HttpResponse:
    """The playground's "should have found" button: a case in the live set "playground"."""
    ws = get_workspace_for_user(request, workspace)
    form = parsed(PlaygroundCaseForm, request.POST)
    query = form["query"]
    try:
        case = gold.add_from_playground(ws, query=query, memory_id=form["memory_id"],
                                        user=request.user, actor=Actor.person(request.user))  # fmt: skip
        messages.success(request, f"Added to the gold set “playground” as case {case.case_id}. An approver approves "
                                  "the set before proposals are judged on it.")  # fmt: skip
    except RequestError as error:
        messages.error(request, error.message)
    response = redirect("memory:recall-playground", ws.name)
    response["Location"] += "?" + _query_string(query)
    return response


def _words(text: str) -> set[str]:
    return {w.strip(".,;:!?\"'()").lower() for w in text.split()} - {""}


def _query_string(query: str) -> str:
    return urlencode({"q": query})


SCORE_K = proposal_eval.SCORE_K


@require_GET
@login_required
def gold_score(request: HttpRequest, workspace: str) -> HttpResponse:
    """What recall returns on one of the workspace's live gold sets now, and how well (the recall
    playground's "Score"): figures overall and per category, then each case's hits, relevant ones marked."""
    ws = get_workspace_for_user(request, workspace, roles=permissions.roles_for("score_gold"))
    form = GoldScoreForm(request.GET or None)
    choices = list(gold.sets(ws))
    live = [s for s in choices if s.kind == GoldSet.Kind.LIVE]
    for s in live:
        s.written = s.case_count - s.placeholder_count
    scorable = [s for s in live if s.written]
    chosen, result, error, k = None, None, None, SCORE_K
    refusal = refused(form)
    if form.is_bound:
        if refusal:
            error = "; ".join(f"{'k is a whole number from 1 to 50' if name == 'k' else f'{name}: ' + ' '.join(errors)}"
                              for name, errors in form.errors.items())  # fmt: skip
        else:
            k = form.cleaned_data["k"] or SCORE_K
            set_id = positive_id(form.cleaned_data["set"])
            chosen = next((s for s in choices if s.pk == set_id), None)
            if chosen is None:
                error = "choose a gold set of this workspace" if not form.cleaned_data["set"] else "no such gold set here"
            elif chosen.kind == GoldSet.Kind.LIVE and chosen.case_count == chosen.placeholder_count:
                error = (f"every case of {chosen.name!r} still has the placeholder query: write its queries first"
                         if chosen.case_count else f"{chosen.name!r} has no cases yet")  # fmt: skip
            else:
                try:
                    result = proposal_eval.score_live_set(chosen, k=k, max_cases=proposal_eval.MAX_SCORED_CASES,
                                                          user=request.user)  # fmt: skip
                except (TidelineError, RequestError) as problem:  # an index that failed to build: say so
                    error = problem.message
    result_cases = result["cases"] if result else []
    misses = [c for c in result_cases if not c["abstention"] and not c["hit"]]
    only_missed = form.is_bound and not refusal and form.cleaned_data["only"] == "missed" and bool(misses)
    return render(request, "governance/gold_score.html", {
        "workspace": ws, "live_sets": live, "scorable": scorable, "uploaded": len(choices) - len(live), "chosen": chosen,
        "k": k, "result": result, "error": error, "misses": misses, "only_missed": only_missed,
        "has_facts": bool(live) or Fact.objects.filter(workspace=ws, lifecycle="active").exists(),
        "shown_cases": misses if only_missed else result_cases, "max_cases": proposal_eval.MAX_SCORED_CASES,
    }, status=400 if refusal else 200)  # fmt: skip
