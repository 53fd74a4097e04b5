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
from django.views.decorators.http import require_POST

from governance.services import gold
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER
from tideline_site.paging import numbered_pager

CASES_PER_PAGE = 50


def _clean(value: str | None, limit: int = 1000) -> str:
    return (value or "").replace("\x00", "")[:limit]


@login_required
def gold_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    if request.method == "POST":
        return _make(request, ws)
    return render(request, "governance/gold_list.html", {
        "workspace": ws, "sets": gold.sets(ws), "can_edit": bool(request.workspace_roles & set(gold.EDIT_ROLES)),
        "scaffold_default": gold.SCAFFOLD_DEFAULT, "max_cases": gold.MAX_CASES,
    })  # fmt: skip


def _make(request: HttpRequest, ws) -> HttpResponse:
    user, actor = request.user, request.user.get_username()
    try:
        if request.POST.get("action") == "upload":
            upload = request.FILES.get("file")
            if upload is None:
                raise RequestError("choose a gold JSON file to upload", kind="validation")
            if upload.size > gold.MAX_UPLOAD_BYTES:
                raise RequestError(f"{upload.name} is larger than 5 MB", kind="invalid_input")
            made = gold.upload(ws, upload.read(), filename=_clean(upload.name, 200), name=_clean(request.POST.get("name"), 100),
                               user=user, actor=actor)  # fmt: skip
            messages.success(request, f"Uploaded {made.name!r}: {made.cases.count()} cases. Check the queries, then an "
                                      "approver approves it.")  # fmt: skip
        elif request.POST.get("action") == "scaffold":
            try:
                size = int(request.POST.get("size") or gold.SCAFFOLD_DEFAULT)
            except ValueError:
                raise RequestError("the number of cases must be a whole number", kind="validation") from None
            made = gold.scaffold(ws, size=size, name=_clean(request.POST.get("name"), 100), user=user, actor=actor)
            messages.success(request, f"Made {made.name!r} with {made.cases.count()} cases: rewrite each query the way a "
                                      "person would ask for the fact.")  # fmt: skip
        else:
            raise RequestError("choose what to do", kind="validation")
    except RequestError as error:
        messages.error(request, error.message)
        return redirect("governance:gold", ws.name)
    return redirect("governance:gold-detail", ws.name, made.pk)


@login_required
def gold_detail(request: HttpRequest, workspace: str, gold_id: int) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    try:
        found = gold.get(ws, gold_id)
    except RequestError:
        raise Http404("no such gold set") from None
    confirm = None
    if request.method == "POST":
        outcome = _change(request, ws, found)
        if isinstance(outcome, HttpResponse):
            return outcome
        confirm = outcome
    cases = found.cases.all()
    page = Paginator(cases, CASES_PER_PAGE).get_page(request.GET.get("page"))
    for case in page.object_list:  # a query lifted from the fact grades recall on its own answer key
        case.copied = bool(case.hint) and PLACEHOLDER not in case.query and _words(case.query) <= _words(case.hint)
    roles = request.workspace_roles
    user = request.user
    return render(request, "governance/gold_detail.html", {
        "workspace": ws, "gold": found, "page": page, "pager": numbered_pager(request, page), "placeholder": PLACEHOLDER,
        "confirm": confirm,
        "placeholders": cases.filter(query__contains=PLACEHOLDER).count(), "total": cases.count(),
        "can_edit": bool(roles & set(gold.EDIT_ROLES)), "can_approve": bool(roles & set(gold.APPROVE_ROLES)),
        "blocker": gold.approval_blocker(found, user, user.get_username()),
    })  # fmt: skip


def _change(request: HttpRequest, ws, found):
    """Carry out the POST; a redirect when done, or the name of what needs confirming first."""
    user, actor = request.user, request.user.get_username()
    action = request.POST.get("action", "")
    page = request.POST.get("page") or "1"
    try:
        was_approved = found.approved
        if action == "edit":
            gold.edit_case(found, request.POST.get("case"), query=_clean(request.POST.get("query")),
                           category=_clean(request.POST.get("category"), 100), user=user, actor=actor)  # fmt: skip
            messages.success(request, "Saved the case." + (" The set needs approving again." if was_approved else ""))
        elif action == "add":
            gold.add_case(found, query=_clean(request.POST.get("query")), relevant_keys=_clean(request.POST.get("keys"), 5000),
                          category=_clean(request.POST.get("category"), 100), user=user, actor=actor)  # fmt: skip
            messages.success(request, "Added the case.")
        elif action == "delete-case":
            if request.POST.get("confirmed") != "yes":
                return f"delete-case:{gold.get_case(found, request.POST.get('case')).pk}"
            gone = gold.delete_case(found, request.POST.get("case"), user=user, actor=actor)
            messages.success(request, f"Deleted case {gone}.")
        elif action == "approve":
            gold.approve(found, user=user, actor=actor)
            messages.success(request, f"Approved {found.name!r}: proposals are evaluated on it from now on.")
        elif action == "delete-set":
            if request.POST.get("confirmed") != "yes":
                return "delete-set"
            name = gold.delete_set(found, user=user, actor=actor)
            messages.success(request, f"Deleted the gold set {name!r}.")
            return redirect("governance:gold", ws.name)
        else:
            raise RequestError("choose what to do", kind="validation")
    except RequestError as error:
        messages.error(request, error.message)
    url = redirect("governance:gold-detail", ws.name, found.pk)
    url["Location"] += f"?page={page}" if page.isdigit() and page != "1" else ""
    return url


@require_POST
@login_required
def gold_from_playground(request: HttpRequest, workspace: str) -> HttpResponse:
    """The playground's "should have found" button: a case in the live set "playground"."""
    ws = get_workspace_for_user(request, workspace)
    query = _clean(request.POST.get("query"))
    try:
        case = gold.add_from_playground(ws, query=query, memory_id=_clean(request.POST.get("memory_id"), 100),
                                        user=request.user, actor=request.user.get_username())  # fmt: skip
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
