"""Governance's console pages: thin views over `governance.selectors`, and verdicts through its services."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from governance import selectors
from governance.engine import permissions
from governance.engine.verdicts import VERDICTS_BY_KIND
from governance.forms import KIND_LABELS, ReviewFilterForm, ReviewSettingsForm, VerdictForm, parsed
from governance.services import admitted, verdicts
from governance.services.acting import Actor
from governance.views import review_bulk as views_bulk
from memory.permissions import get_workspace_for_user
from memory.selectors import page_number
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import fact_states
from memory.services.workspaces import REVIEW_SETTINGS, set_review_settings
from tideline_kit.filters import refused
from tideline_kit.htmx import wants_partial
from tideline_kit.paging import numbered_pager, page_link

# Who may decide each kind, in words (the rule itself is governance.engine.verdicts.DECIDERS_BY_KIND).
DECIDERS_LABEL = {"contradiction": "owners and admins", "quarantine": "owners and admins",
                  "promotion": "approvers and admins"}


@require_GET
@login_required
@vary_on_headers("HX-Request")
def review_list(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    form = ReviewFilterForm(request.GET or None)
    refusal = refused(form)  # an unknown filter lists nothing (400), rather than every item as if it applied
    data = form.cleaned_data if form.is_valid() else {}
    items = selectors.filtered_review_items(ws, data)
    if refusal:
        items = items.none()
    truncated = False
    if data.get("q"):
        items, truncated = selectors.search_items(items, data["q"])
    page = Paginator(items, selectors.QUEUE_PAGE_SIZE).get_page(page_number(request.GET.get("page")))
    page.object_list = selectors.with_facts(page.object_list)
    counts = selectors.open_counts_by_kind(ws)
    total = f"{page.paginator.count:,} item{pluralize(page.paginator.count)}"
    tabs = [{"kind": "", "label": "all", "count": sum(counts.values())}]
    tabs += [{"kind": kind, "label": KIND_LABELS[kind], "count": n} for kind, n in counts.items()]
    for tab in tabs:
        tab["url"] = page_link(request, kind=tab["kind"] or None, page=None)
    context = {"workspace": ws, "form": form, "page": page, "tabs": tabs, "kind": data.get("kind", ""),
               "truncated": truncated, "search_cap": selectors.SEARCH_CAP, "kind_labels": KIND_LABELS,
               "origins": selectors.queue_origins(ws), "pager": numbered_pager(request, page, total),
               "open_review_count": tabs[0]["count"]}  # fmt: skip
    # (`open_review_count` is the navigation's badge: the context processor would count again.)
    if not refusal:  # nothing listed: nothing to select
        context.update(_bulk_context(request, ws, data, items if data.get("q") else None))
    template = "governance/review_list.html" + ("#review-table" if wants_partial(request) else "")
    return render(request, template, context, status=400 if refusal else 200)


def _bulk_context(request: HttpRequest, ws, data: dict, searched) -> dict:
    """What the list needs for row links that keep its filters and for bulk verdicts (this user's kinds)."""
    kinds = views_bulk.deciding_kinds(request.user, ws)
    return {"queue_query": views_bulk.filter_query(data), "queue_filters": views_bulk.filter_pairs(data),
            "bulk_kinds": kinds, "bulk_cap": views_bulk.BULK_CAP,
            "bulk_verdicts": list(dict.fromkeys(v for kind in kinds for v in VERDICTS_BY_KIND.get(kind, ()))),
            "bulk_matching": views_bulk.selection_count(ws, data, kinds, searched) if kinds else 0}  # fmt: skip


@require_GET
@login_required
def review_detail(request: HttpRequest, workspace: str, item_id: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    item = _item_or_404(ws, item_id)
    sides = selectors.item_sides(ws, item)
    held = admitted.why_held(item)
    shown_apart = admitted.SHOWN_DETAILS if held else ()
    details = selectors.detail_rows({k: v for k, v in item.details.items() if k not in shown_apart})
    ids = [f.memory_id for f in (item.fact, item.other_fact) if f is not None]
    context = {"workspace": ws, "item": item, "sides": sides, "kind_label": KIND_LABELS.get(item.kind, item.kind),
               "score": item.details.get("score"), "signal": item.details.get("signal"), "details": details,
               "closed_reason": item.details.get("closed_reason"), "held": held,
               "can_decide": permissions.allows(request.workspace_roles, f"decide_{item.kind}"),
               "deciders": DECIDERS_LABEL[item.kind],
               "is_author": item.kind == "promotion" and item.fact is not None
               and item.fact.written_by == str(Actor.person(request.user)),
               "verdicts": [(v, _VERDICT_HELP[v]) for v in VERDICTS_BY_KIND.get(item.kind, ())],
               "verdict": item.details.get("verdict"), "verdict_reason": item.details.get("verdict_reason"),
               # What the reviewer saw: a verdict on facts that changed since is refused, not applied.
               "seen": json.dumps(fact_states(ws, ids), sort_keys=True)}  # fmt: skip
    context.update(views_bulk.queue_navigation(request, ws, item), keyed_verdicts=views_bulk.with_keys(context["verdicts"]))
    return render(request, "governance/review_detail.html", context)


_VERDICT_HELP = {
    "supersede": "the fact under review wins; the other is archived and linked as superseded",
    "coexist": "both can be true (different scope or time); they are linked and never reopened",
    "block": "reject the fact under review: it is archived and not reopened by the same words",
    "dismiss": "not a real conflict; nothing changes (a held write is let into recall)",
    "approve": "let the held write into recall; what it corrects is archived and linked as superseded",
}


def _deciding(request: HttpRequest, workspace: str, item_id: str):
    """The workspace and item, if this user's role decides items of its kind (403 otherwise)."""
    ws = get_workspace_for_user(request, workspace)
    item = _item_or_404(ws, item_id)
    if not permissions.allows(request.workspace_roles, f"decide_{item.kind}"):
        raise PermissionDenied(f"{DECIDERS_LABEL[item.kind]} decide {KIND_LABELS[item.kind]} items")
    return ws, item


@require_POST
@login_required
def review_decide(request: HttpRequest, workspace: str, item_id: str) -> HttpResponse:
    """One verdict from the item page; every outcome is a message, never a 500."""
    if request.POST.get("verdict") == "undo":  # the item page's former single form target for the undo too
        return review_undo(request, workspace, item_id)
    ws, item = _deciding(request, workspace, item_id)
    form = parsed(VerdictForm, request.POST)
    try:
        if form["seen"] is None:
            raise RequestError("the form was incomplete; reload the item and decide again (nothing was changed)",
                               kind="validation")  # fmt: skip
        verdicts.decide(ws, item.pk, form["verdict"], actor=Actor.person(request.user), user=request.user,
                        reason=form["reason"], expected=form["seen"])  # fmt: skip
        messages.success(request, f"Decided: {form['verdict']}.")
    except RequestError as error:
        messages.error(request, error.message)
    return redirect("governance:review-detail", ws.name, item.pk)


@require_POST
@login_required
def review_undo(request: HttpRequest, workspace: str, item_id: str) -> HttpResponse:
    """Undo the item's verdict: both facts as they were, the item open again."""
    ws, item = _deciding(request, workspace, item_id)
    try:
        verdicts.undo(ws, item.pk, user=request.user, actor=Actor.person(request.user))
        messages.success(request, "Verdict undone: both facts are as they were, and the item is open again.")
    except RequestError as error:
        messages.error(request, error.message)
    return redirect("governance:review-detail", ws.name, item.pk)


def _item_or_404(ws, item_id: str):
    item = selectors.review_item_or_none(ws, item_id)
    if item is None:
        raise Http404("no such review item")
    return item



@login_required
def review_settings(request: HttpRequest, workspace: str) -> HttpResponse:
    """What the write path holds for review in this workspace; admins change it (an event records it)."""
    ws = get_workspace_for_user(request, workspace)
    can_change = permissions.allows(request.workspace_roles, "review_settings")
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("admins change the review settings")
        form = ReviewSettingsForm(request.POST, settings=REVIEW_SETTINGS, default_cap=ws.review_daily_cap)
        if not form.is_valid():
            messages.error(request, form.errors["review_daily_cap"][0])
            return redirect("governance:review-settings", ws.name)
        try:
            changed = set_review_settings(ws, actor=str(Actor.person(request.user)), **form.cleaned_data)
        except RequestError as error:
            messages.error(request, f"{error.message}; nothing was changed.")
        else:
            messages.success(request, f"Saved: {len(changed)} setting{pluralize(len(changed))} changed." if changed
                             else "Nothing changed.")  # fmt: skip
        return redirect("governance:review-settings", ws.name)
    settings_rows = [{"name": name, "help": words, "value": getattr(ws, name),
                      "is_flag": isinstance(getattr(ws, name), bool)} for name, words in REVIEW_SETTINGS.items()]  # fmt: skip
    return render(request, "governance/review_settings.html",
                  {"workspace": ws, "settings_rows": settings_rows, "can_change": can_change})  # fmt: skip
