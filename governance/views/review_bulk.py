"""Working through the review queue in bulk and in order: verdicts on a filtered selection (shown
back for confirmation, then applied item by item), and the queue's filters carried from the list to
an item page and back, so next/previous and "back to the list" stay in the same filtered queue."""

from __future__ import annotations

import json
from collections import Counter

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST

from governance import selectors
from governance.engine.verdicts import VERDICTS_BY_KIND, may_decide
from governance.forms import KIND_LABELS, BulkVerdictForm, ReviewFilterForm, parsed
from governance.models import ReviewItem
from governance.services import verdicts
from governance.services.acting import Actor
from memory.permissions import get_workspace_for_user, roles_in
from memory.services.errors import RequestError
from memory.services.lifecycle.curation import fact_states
from tideline_kit import filters as list_filters
from tideline_kit.wording import sentence

FILTERS = ("kind", "status", "origin", "age", "q", "sort")
# One bulk verdict is one request applying up to this many verdicts, each its own mutation (≈50 ms
# each): more would outlast a request. The confirmation page says when a selection was cut.
BULK_CAP = 200
SHOWN = 50  # items listed on the confirmation page; the rest are counted
# The key each verdict answers to on the item page (shown on its button).
VERDICT_KEYS = {"supersede": "s", "coexist": "c", "block": "b", "dismiss": "d", "approve": "a"}


def filter_data(params: QueryDict) -> tuple[ReviewFilterForm, dict]:
    """The queue's filters from a query string or a form, validated (invalid ones are dropped)."""
    form = ReviewFilterForm({name: params.get(name, "") for name in FILTERS})
    return form, (form.cleaned_data if form.is_valid() else {})


def filter_pairs(data: dict) -> list[tuple[str, str]]:
    """The filters that are set, as (name, value): hidden fields of the bulk forms."""
    return [(name, str(data[name])) for name in FILTERS if data.get(name) not in (None, "")]


def filter_query(data: dict) -> str:
    """The filters as a query string (without the page), for links that keep the list's filters."""
    query = QueryDict(mutable=True)
    for name, value in filter_pairs(data):
        query[name] = value
    return query.urlencode()


def deciding_kinds(user, workspace) -> list[str]:
    roles = roles_in(user, workspace)
    return [kind for kind in KIND_LABELS if may_decide(roles, kind)]


def queue_navigation(request: HttpRequest, workspace, item: ReviewItem) -> dict:
    """An item page's place in the filtered queue: previous/next links and the way back, with the filters."""
    _, data = filter_data(request.GET)
    query = filter_query(data)
    suffix = f"?{query}" if query else ""
    previous, following = selectors.queue_neighbours(workspace, data, item)

    def link(pk):
        return reverse("governance:review-detail", args=[workspace.name, pk]) + suffix if pk else ""

    return {"queue_query": query, "previous_url": link(previous), "next_url": link(following),
            "list_url": reverse("governance:review-list", args=[workspace.name]) + suffix}  # fmt: skip


def with_keys(verdicts: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(verdict, help) rows with the key that selects each on the item page ("" for none)."""
    return [(verdict, words, VERDICT_KEYS.get(verdict, "")) for verdict, words in verdicts]


def keeps_queue_filters(view):
    """Wraps the item's verdict view so its redirect back to the item keeps the queue's filters (the
    item page's form posts them in its action's query string)."""

    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseRedirect) and "?" not in response.url:
            query = filter_query(filter_data(request.GET)[1])
            if query:
                response["Location"] = f"{response.url}?{query}"
        return response

    wrapped.__name__, wrapped.__doc__ = view.__name__, view.__doc__
    return wrapped


def selection_count(workspace, data: dict, kinds: list[str], searched: list[int] | None) -> int:
    """How many open items the list's filter matches among the kinds this user decides."""
    items = _open_of_kinds(selectors.filtered_review_items(workspace, data), kinds)
    return items.filter(pk__in=searched).count() if searched is not None else items.count()


def _open_of_kinds(items, kinds: list[str]):
    return items.filter(status=ReviewItem.Status.OPEN, kind__in=kinds)


@require_POST
@login_required
def review_bulk(request: HttpRequest, workspace: str) -> HttpResponse:
    """A verdict on many items in two steps: the selection is shown back (what it holds, what will be
    skipped); only the confirmed POST applies it, one `decide()` per item, and reports each refusal."""
    ws = get_workspace_for_user(request, workspace)
    kinds = deciding_kinds(request.user, ws)
    if not kinds:
        return _forbidden(request, "You may read this queue but not decide its items (owners and admins decide "
                                   "contradictions and held writes, approvers and admins durable promotions).")  # fmt: skip
    filters, data = filter_data(request.POST)
    back = reverse("governance:review-list", args=[ws.name]) + (f"?{filter_query(data)}" if filter_query(data) else "")
    if list_filters.refused(filters):  # never "every item" for a filter that was not understood
        problems = "; ".join(f"{name}: {' '.join(errors)}" for name, errors in filters.errors.items())
        messages.error(request, sentence(f"The queue's filter was not understood ({problems}); nothing was changed"))
        return redirect(back)
    form = parsed(BulkVerdictForm, request.POST)
    verdict, reason = form["verdict"], form["reason"]
    try:
        items, cut = _selection(form, ws, data, kinds)  # first: a forged selection is a 403 whatever the verdict
    except PermissionDenied as refused:
        return _forbidden(request, str(refused))
    if verdict not in {v for kind in kinds for v in VERDICTS_BY_KIND.get(kind, ())}:
        messages.error(request, "Choose a verdict for the selected items; nothing was changed.")
        return redirect(back)
    if not items:
        messages.error(request, "Select at least one open item (or all the items of the filter); nothing was changed.")
        return redirect(back)
    if not form["confirm"]:
        return _confirmation(request, ws, items, cut, verdict, reason, data, back)
    return _apply(request, ws, items, verdict, reason, back, seen=form["seen"])


def _forbidden(request: HttpRequest, message: str) -> HttpResponse:
    """A 403 that says which rule refused (the site's 403 page is generic)."""
    return render(request, "error.html", {"title": "Not allowed", "message": message}, status=403)


def _selection(form: dict, ws, data: dict, kinds: list[str]) -> tuple[list[ReviewItem], int]:
    """The chosen items in queue order, at most BULK_CAP, and how many more the filter matched.

    Named items of a kind this user may not decide make the whole request a 403: the list never
    offers them, so such a POST was forged. Unknown ids and other workspaces' are ignored."""
    if form["scope"] == "filter":
        items = _open_of_kinds(selectors.filtered_review_items(ws, data), kinds)
        if data.get("q"):
            ids, _ = selectors.search_items(items, data["q"])
            total, ids = len(ids), ids[:BULK_CAP]
        else:
            total, ids = items.count(), list(items.values_list("pk", flat=True)[:BULK_CAP])
        found = ReviewItem.objects.in_bulk(ids)
        return [found[pk] for pk in ids if pk in found], max(0, total - BULK_CAP)
    wanted = form["ids"]
    cut = max(0, len(wanted) - BULK_CAP)
    found = ReviewItem.objects.filter(workspace=ws).in_bulk(wanted[:BULK_CAP])
    refused = sorted({found[pk].kind for pk in found} - set(kinds))
    if refused:
        labels = ", ".join(KIND_LABELS[kind] for kind in refused)
        raise PermissionDenied(f"Your role in this workspace does not decide {labels} items: nothing was changed.")
    return [found[pk] for pk in wanted[:BULK_CAP] if pk in found], cut


def _confirmation(request, ws, items, cut, verdict, reason, data, back) -> HttpResponse:
    applies = [item for item in items if item.status == ReviewItem.Status.OPEN
               and verdict in VERDICTS_BY_KIND.get(item.kind, ())]  # fmt: skip
    skipped = [(item, "already decided" if item.status != ReviewItem.Status.OPEN
                else f"{verdict} does not apply to {KIND_LABELS[item.kind]} items") for item in items
               if item not in applies]  # fmt: skip
    shown = selectors.with_facts(applies[:SHOWN])
    ids = [m for item in applies for m in (item.fact_memory_id, item.other_memory_id) if m]
    by_kind = Counter(KIND_LABELS[item.kind] for item in applies)
    context = {"workspace": ws, "verdict": verdict, "reason": reason, "items": shown, "count": len(applies),
               "more": len(applies) - len(shown), "skipped": skipped, "cut": cut, "cap": BULK_CAP,
               "kinds": ", ".join(f"{n} {label}{pluralize(n)}" for label, n in by_kind.items()),
               "ids": [item.pk for item in applies], "filters": filter_pairs(data),
               # What the reviewer confirms: an item whose facts change before the confirm is refused.
               "seen": json.dumps(fact_states(ws, ids), sort_keys=True), "back": back}  # fmt: skip
    return render(request, "governance/review_bulk_confirm.html", context)


def _apply(request, ws, items, verdict, reason, back, *, seen: dict) -> HttpResponse:
    actor = Actor.person(request.user)
    decided, refusals = 0, []
    for item in items:
        if item.status != ReviewItem.Status.OPEN:
            refusals.append(f"#{item.pk} was already decided")
            continue
        expected = {m: seen[m] for m in (item.fact_memory_id, item.other_memory_id) if m and m in seen}
        if not expected:  # not on the confirmation page (a forged or cut form): never decided unseen
            refusals.append(f"#{item.pk} was not on the confirmation page")
            continue
        try:
            verdicts.decide(ws, item.pk, verdict, actor=actor, reason=reason, expected=expected, user=request.user)
        except RequestError as error:
            refusals.append(f"#{item.pk} {error.message}")
        else:
            decided += 1
    summary = f"{verdict.capitalize()}: {decided} decided"
    if refusals:
        listed = "; ".join(r.rstrip(".") for r in refusals[:10]) + (f"; and {len(refusals) - 10} more" if len(refusals) > 10 else "")
        messages.warning(request, sentence(f"{summary}, {len(refusals)} refused: {listed}"))
    else:
        messages.success(request, f"{summary}. Each can be undone from its item's page.")
    return redirect(back)
