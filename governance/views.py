"""Governance's console pages: thin views over `governance.selectors` (reads only, so far)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from governance import selectors
from governance.forms import KIND_LABELS, ReviewFilterForm
from memory.permissions import get_workspace_for_user
from memory.selectors import page_number
from tideline_site.htmx import wants_partial


@require_GET
@login_required
@vary_on_headers("HX-Request")
def review_list(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    form = ReviewFilterForm(request.GET or None)
    data = form.cleaned_data if form.is_valid() else {}
    items = selectors.filtered_review_items(ws, data)
    truncated = False
    if data.get("q"):
        items, truncated = selectors.search_items(items, data["q"])
    page = Paginator(items, selectors.QUEUE_PAGE_SIZE).get_page(page_number(request.GET.get("page")))
    counts = selectors.open_counts_by_kind(ws)
    tabs = [{"kind": "", "label": "all", "count": sum(counts.values())}]
    tabs += [{"kind": kind, "label": KIND_LABELS[kind], "count": n} for kind, n in counts.items()]
    for tab in tabs:
        tab["url"] = _link(request, kind=tab["kind"] or None, page=None)
    context = {"workspace": ws, "form": form, "page": page, "tabs": tabs, "kind": data.get("kind", ""),
               "truncated": truncated, "search_cap": selectors.SEARCH_CAP, "kind_labels": KIND_LABELS,
               "origins": selectors.queue_origins(ws), "pager": _pager(request, page)}  # fmt: skip
    template = "governance/review_list.html" + ("#review-table" if wants_partial(request) else "")
    return render(request, template, context)


def _link(request: HttpRequest, **changes) -> str:
    """This page's URL with some query parameters changed (None removes one)."""
    params = request.GET.copy()
    for key, value in changes.items():
        params.pop(key, None)
        if value is not None:
            params[key] = value
    return request.path + (f"?{params.urlencode()}" if params else "")


def _pager(request: HttpRequest, page) -> dict:
    count = page.paginator.count
    return {
        "total": f"{count:,} item{'' if count == 1 else 's'}",
        "previous": _link(request, page=page.previous_page_number()) if page.has_previous() else None,
        "next": _link(request, page=page.next_page_number()) if page.has_next() else None,
        "position": f"Page {page.number} of {page.paginator.num_pages}",
    }


@require_GET
@login_required
def review_detail(request: HttpRequest, workspace: str, item_id: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    item = selectors.review_item_or_none(ws, item_id)
    if item is None:
        raise Http404("no such review item")
    sides = [_side("Fact under review", item.fact), _side("Other fact", item.other_fact)]
    details = {key: value for key, value in item.details.items() if key not in ("score", "signal")}
    context = {"workspace": ws, "item": item, "sides": sides, "kind_label": KIND_LABELS.get(item.kind, item.kind),
               "score": item.details.get("score"), "signal": item.details.get("signal"), "details": details}  # fmt: skip
    return render(request, "governance/review_detail.html", context)


def _side(title: str, fact) -> dict:
    """One column of the item page: the fact (or None when it is gone) and its links both ways."""
    if fact is None:
        return {"title": title, "fact": None, "links": []}
    outbound = [("→", link.kind, link.to_fact, link) for link in fact.outbound_links.select_related("to_fact")]
    inbound = [("←", link.kind, link.from_fact, link) for link in fact.inbound_links.select_related("from_fact")]
    return {"title": title, "fact": fact, "links": outbound + inbound}
