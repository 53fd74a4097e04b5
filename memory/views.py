from __future__ import annotations

import threading
from datetime import datetime

import numpy as np
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from memory import selectors
from memory.engine.facts import records as R
from memory.engine.maintenance.decay import effective_score
from memory.engine.recall import visibility
from memory.forms import (
    BULK_ACTIONS,
    EventFilterForm,
    FactBulkForm,
    FactCorrectionForm,
    FactFilterForm,
    FactQueryForm,
    PlaygroundForm,
)
from memory.models import Fact, Link, Workspace
from memory.permissions import get_workspace_for_user, roles_in
from memory.services.errors import RequestError
from memory.services.lifecycle import curation
from memory.services.lifecycle.expiry import expired_by
from memory.services.maintenance import dashboard_stats
from memory.services.recall import replay
from memory.services.recall import verbs as recall_service
from memory.services.writes.policy import TidelineError
from memory.timestamps import to_ms
from tideline_kit.filters import refused
from tideline_kit.htmx import wants_partial
from tideline_kit.paging import numbered_pager, page_link


@require_GET
@login_required
def workspace_overview(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    stats = dashboard_stats.current(ws)
    return render(request, "memory/workspace_overview.html", {"workspace": ws, **stats})


# ---------------------------------------------------------------- facts browser, inspector, playground

PAGE_SIZE = selectors.PAGE_SIZE


@require_GET
@login_required
@vary_on_headers("HX-Request")
def fact_list(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    form = FactFilterForm(request.GET or None)
    refusal = refused(form)  # an unknown filter lists nothing (400), never every fact as if it applied
    data = form.cleaned_data if form.is_valid() else {}
    facts = selectors.filtered_facts(ws, data)
    if refusal:
        facts = facts.none()
    searching = bool(data.get("q"))
    recall_error = search_note = None
    if searching:
        hits, search_note, recall_error = _search(ws, data)
        scores = {hit.id: hit.score for hit in hits}
        # Active facts first (what recall would answer), then archived, superseded or held ones.
        ranked = sorted(facts.filter(memory_id__in=list(scores)),
                        key=lambda f: (f.lifecycle != "active", -scores[f.memory_id]))  # fmt: skip
        if data.get("score_below") is not None:  # the same rule as the list without a search
            low = {pk for pk, _ in selectors.scoring_below(facts.filter(memory_id__in=list(scores)), data["score_below"])}
            ranked = [f for f in ranked if f.pk in low]
        if data.get("sort") in selectors.SORT_KEYS:  # a chosen order applies to the best matches
            ranked = selectors.sort_in_memory(ranked, data["sort"])
        page = Paginator(ranked, PAGE_SIZE).get_page(request.GET.get("page"))
        for fact in page.object_list:
            fact.search_score = scores.get(fact.memory_id)
        pager = numbered_pager(request, page, selectors.FactCount(page.paginator.count).label)
    elif data.get("score_below") is not None:
        # Lowest score first: these are what the decay GC archives next unless they are used.
        page = Paginator(selectors.scoring_below(facts, data["score_below"]), PAGE_SIZE).get_page(request.GET.get("page"))
        chosen = page.object_list
        rows = Fact.objects.in_bulk([pk for pk, _ in chosen])
        for pk, score in chosen:
            if pk in rows:
                rows[pk].score_now = score
        page.object_list = [rows[pk] for pk, _ in chosen if pk in rows]
        pager = numbered_pager(request, page, selectors.FactCount(page.paginator.count).label)
    else:
        page = selectors.fact_page(facts, data.get("sort") or "-created", request.GET)
        pager = _seeking(request, page)
    context = {"workspace": ws, "form": form, "page": page, "pager": pager, "searching": searching,
               "origins": selectors.origins_of(ws), "recall_error": recall_error, "search_note": search_note,
               "may_curate": bool(request.workspace_roles & set(CURATORS)),
               "scored": data.get("score_below") is not None and not searching}  # fmt: skip
    template = "memory/fact_list.html" + ("#fact-table" if wants_partial(request) else "")
    return render(request, template, context, status=400 if refusal else 200)


def _search(ws: Workspace, data: dict) -> tuple[list, str | None, str | None]:
    """Recall's best 200 matches among the facts the filters name: one origin or every origin, and
    the chosen lifecycle or every lifecycle (the console looks where an agent's recall does not).
    Returns the hits, a note on what was searched, and an error message when recall failed."""
    origins = [data["origin"]] if data.get("origin") is not None else selectors.origins_of(ws)
    lifecycles = [data["lifecycle"]] if data.get("lifecycle") else R.LIFECYCLES
    try:
        found = recall_service.search(workspace=ws, query=data["q"], origins=origins, lifecycles=lifecycles)
    except (TidelineError, RequestError) as error:  # e.g. an index that failed to build: say so, never "no match"
        return [], None, error.message
    note = "ranked by recall score, active facts first" if data.get("sort") not in selectors.SORT_KEYS else (
        f"the best matches, sorted {dict(FactFilterForm.base_fields['sort'].choices)[data['sort']]}")
    if found.origins_searched < found.origins_total:
        note += (f"; searched the first {found.origins_searched} of {found.origins_total:,} origins "
                 "(choose an origin to search the others)")
    return found.hits, note, None


def _seeking(request: HttpRequest, page: selectors.FactPage) -> dict:
    """Pager links and labels for a keyset page: Previous/Next carry a cursor, First drops it."""
    paging = {"after": None, "before": None, "page": None}
    if page.number is not None and page.num_pages:
        position = f"Page {page.number} of {page.num_pages:,}"
    elif page.number is not None:
        position = f"Page {page.number}"
    else:
        position = "First page" if not page.has_previous else ""
    return {
        "total": page.total.label,
        "previous": page_link(request, **(paging | {"before": page.previous_cursor})) if page.previous_cursor else None,
        "next": page_link(request, **(paging | {"after": page.next_cursor})) if page.next_cursor else None,
        "first": page_link(request, **paging) if page.has_previous else None,
        "position": position,
    }


@require_GET
@login_required
def fact_detail(request: HttpRequest, workspace: str, memory_id: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    fact = selectors.fact_or_none(ws, memory_id)
    if fact is None:
        return _purged_fact(request, ws, memory_id)
    outbound = fact.outbound_links.select_related("to_fact").order_by("position", "pk")
    inbound = fact.inbound_links.select_related("from_fact").order_by("pk")
    events = selectors.filtered_events(ws, {"fact": memory_id})[:200]
    form = FactQueryForm(request.GET)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    explanation, kept = None, False
    if query:
        # With the workspace's floor and cuts: a fact they hold back is among what was left out, and says why.
        found = recall_service.explain_selection(workspace=ws, query=query, origin=fact.origin, k=50)
        explanation = next((h for h in found.hits if h.id == memory_id), None)
        kept = explanation is not None
        if explanation is None:
            explanation = next((h for h in found.left_out if h.id == memory_id), False)
    curve = decay_curve(fact)
    visible = _visible_at(fact, request.GET.get("at", ""), request.GET.get("caller", "")[:900],
                          request.GET.get("clearance", ""))  # fmt: skip
    context = {"workspace": ws, "fact": fact, "outbound": outbound, "inbound": inbound, "events": list(events),
               "query": query, "explanation": explanation, "curve": curve, "visible": visible,
               "relevance_floor": recall_service.relevance_floor(ws) if query else None,
               "kept": kept,
               "can_curate": bool(roles_in(request.user, ws) & set(CURATORS)),
               "expired": expired_by(fact) if fact.lifecycle == "active" else None}  # fmt: skip
    return render(request, "memory/fact_detail.html", context)


def _purged_fact(request: HttpRequest, ws: Workspace, memory_id: str) -> HttpResponse:
    """A fact a purge removed: its receipt and the replay still answer (410 Gone); otherwise 404."""
    receipt = replay.purge_receipt(ws, memory_id)
    if receipt is None:
        raise Http404("no such fact")
    visible = None
    text = request.GET.get("at", "")
    if text:
        try:
            moment = timezone.make_aware(datetime.fromisoformat(text))
            visible = replay.replay(ws, memory_id, moment).to_dict() | {"at": moment}
        except ValueError:
            visible = {"error": "Use a date and time such as 2026-11-17T09:31."}
    context = {"workspace": ws, "memory_id": memory_id, "receipt": receipt, "visible": visible}
    return render(request, "memory/fact_purged.html", context, status=410)


def _fact_or_404(ws: Workspace, memory_id: str) -> Fact:
    fact = selectors.fact_or_none(ws, memory_id)
    if fact is None:
        raise Http404("no such fact")
    return fact


def _visible_at(fact: Fact, text: str, caller_text: str = "", clearance: str = "") -> dict | None:
    """Could recall have returned the fact at the given time (for a caller, if one is named), and if
    not, why (memory.services.recall.replay)?"""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return {"error": "Use a date and time such as 2026-11-17T09:31."}
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_current_timezone())
    caller = None
    if caller_text.strip() or clearance:
        try:
            origin = R.parse_origin(caller_text.strip() or "owner")
        except R.OriginError as exc:
            return {"error": f"Caller: {exc}"}
        caller = visibility.Caller(origin.key, clearance if clearance in visibility.CLEARANCE_ORDER else "PII")
    answer = replay.replay(fact.workspace, fact.memory_id, moment, caller=caller)
    return {"at": moment, "visible": answer.visible, "reasons": list(answer.reasons), "caller": caller}


def decay_curve(fact: Fact, weeks: int = 12) -> dict:
    """Effective score today and each week ahead if nobody uses it, laid out as an SVG chart with
    axes: the y axis 0 to 1, the x axis in weeks, and the GC's two thresholds as dashed lines.

    Each threshold's value is written past the right end of its line, outside the plot, where the
    curve never goes (written inside, at the line's end, a decaying curve ran through it); what each
    line means is said under the chart (`threshold_key`)."""
    now_ms = int(to_ms(timezone.now()))
    days = np.arange(0, weeks * 7 + 1, 7)
    values = effective_score(
        np.full(days.size, fact.importance), np.full(days.size, fact.decay_rate), np.full(days.size, fact.access_count),
        np.full(days.size, int(to_ms(fact.last_accessed_at))), now_ms + days * 86_400_000,
        np.full(days.size, fact.tier == "permanent"),
    )  # fmt: skip
    width, height, left, right, top, bottom = 420, 180, 34, 34, 10, 28
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(week: float) -> float:
        return round(left + week * plot_w / weeks, 1)

    def y(score: float) -> float:
        return round(top + plot_h - score * plot_h, 1)

    points = " ".join(f"{x(i)},{y(float(v))}" for i, v in enumerate(values))
    return {
        "now": float(values[0]), "end": float(values[-1]), "points": points, "width": width, "height": height,
        "weeks": weeks, "left": left, "right": width - right, "top": top, "bottom": top + plot_h,
        "y_ticks": [{"y": y(v), "label": f"{v:g}"} for v in (0.0, 0.5, 1.0)],
        "x_ticks": [{"x": x(w), "label": "now" if w == 0 else f"{w} wk"} for w in range(0, weeks + 1, 4)],
        "thresholds": [{"y": y(0.15), "label": "0.15"}, {"y": y(0.05), "label": "0.05"}],
        "threshold_x": width - right + 4,
        "threshold_key": "Dashed lines: below 0.15 a short-tier fact is archived; below 0.05 any fact is archived or pruned.",
        "label_y": height - 6,
    }  # fmt: skip


@require_GET
@login_required
@vary_on_headers("HX-Request")
def recall_playground(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    defaults = {"origin": "owner", "k": 8, "clearance": "PII", "max_chars": 1200}
    # A shared link may carry only the query (`?q=…`), and a cleared field means "the default".
    asked = {**defaults, **{key: value for key, value in request.GET.items() if value.strip()}} if request.GET else None
    form = PlaygroundForm(asked, initial=defaults)
    hits, left_out, block, recall_error = None, None, None, None
    if request.GET and form.is_valid():
        data = form.cleaned_data
        filters = recall_service.RecallFilters(clearance=data["clearance"], as_of=data.get("as_of"))
        try:
            found = recall_service.explain_selection(workspace=ws, query=data["q"], origin=data["origin"], k=data["k"],
                                                     filters=filters)  # fmt: skip
            hits, left_out = found.hits, {"next": found.left_out[:1], "counts": found.counts,
                                          "total": sum(found.counts.values())}  # fmt: skip
            if data.get("as_of") is None:
                block = recall_service.context(workspace=ws, query=data["q"], origin=data["origin"], k=data["k"],
                                               max_chars=data["max_chars"], filters=filters)  # fmt: skip
        except (TidelineError, RequestError) as error:  # e.g. an index that failed to build: say so, never "nothing"
            hits, left_out, block, recall_error = None, None, None, error.message
    context = {"workspace": ws, "form": form, "hits": hits, "left_out": left_out, "context_block": block,
               "origins": selectors.origins_of(ws), "recall_error": recall_error,
               "relevance_floor": recall_service.relevance_floor(ws), "relevance_cut": recall_service.relevance_cut(ws),
               "match_cut_share": f"{recall_service.match_cut(ws) * 100:g}%"}  # fmt: skip
    template = "memory/recall_playground.html" + ("#recall-results" if wants_partial(request) else "")
    return render(request, template, context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def event_list(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    form = EventFilterForm(request.GET or None)
    refusal = refused(form)  # an unknown filter lists nothing (400), never the whole log as if it applied
    events = selectors.filtered_events(ws, form.cleaned_data if form.is_valid() else {})
    if refusal:
        events = events.none()
    if request.GET.get("format"):
        # Downloads are the admins' and audited: they live on the exports page (same filters).
        return redirect(reverse(settings.TIDELINE_DOWNLOAD_PAGES["events"], args=[ws.name]) + "?" + request.GET.urlencode())
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    template = "memory/event_list.html" + ("#event-table" if wants_partial(request) else "")
    return render(request, template, {"workspace": ws, "form": form, "page": page,
                                      "pager": numbered_pager(request, page)}, status=400 if refusal else 200)  # fmt: skip


GRAPH_MAX_NODES = 5000


@require_GET
@login_required
def memory_graph(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    if request.GET.get("format"):
        # Downloads are the admins' and audited: they live on the exports page.
        return redirect(reverse(settings.TIDELINE_DOWNLOAD_PAGES["graph"], args=[ws.name]) + "?" + request.GET.urlencode())
    page = _graph_page(ws)
    kept = page.get("partition")
    # Worked out per request: the page itself is kept for minutes.
    fresh = bool(kept) and (timezone.now() - kept["computed_at"]).total_seconds() < 60
    return render(request, "memory/memory_graph.html", {"workspace": ws, **page, "updated_just_now": fresh})


_GRAPH_PAGES: dict[tuple, tuple[float, frozenset, dict]] = {}
_GRAPH_PAGES_LOCK = threading.Lock()
GRAPH_CACHE_SECONDS = 600
GRAPH_CACHE_ENTRIES = 8


def _graph_page(ws: Workspace) -> dict:
    """The page's graph: its JSON (already escaped for a <script> element), counts, filter choices,
    and how fresh its communities are.

    Communities come from the workspace's kept partition (memory.services.maintenance.graph): the page draws with
    it at once and asks the worker to recompute when the workspace has changed since; a small
    workspace is recomputed in the request instead. Drawing still reads and decrypts every fact (~1 s
    at 5,000 facts), so the page is kept per revision for ten minutes at most (the "last 7 days"
    count ages). It holds decrypted labels, so it stays in this process's memory — never in a shared
    cache — and is dropped as soon as the data key of an origin it drew from is destroyed."""
    import time

    from django.utils.html import json_script

    from memory.sealing import keyring
    from memory.services.maintenance import graph as graph_service

    active = Fact.objects.filter(workspace=ws, lifecycle="active").count()
    if active and not Link.objects.filter(workspace=ws).exists():
        # Nothing to find communities in or to draw: say so at once, whatever the size.
        return {"node_count": 0, "stats": {"total_memories": active, "connections": 0, "clusters": 0, "isolated": active,
                                           "added_last_7d": None, "modularity": None}}  # fmt: skip
    partition = graph_service.kept(ws)
    in_request = active <= graph_service.IN_REQUEST_LIMIT
    if partition is None and not in_request:
        queued = graph_service.recompute_later(ws)
        partition = graph_service.kept(ws)  # a synchronous queue (TIDELINE_Q_SYNC) has computed it already
        if partition is None:
            return {"pending": True, "queued": queued, "node_count": 0, "stats": None}
    key = (ws.pk, ws.revision, partition.revision if partition else None, ws.created_at.timestamp(), GRAPH_MAX_NODES)
    now = time.monotonic()
    with _GRAPH_PAGES_LOCK:
        entry = _GRAPH_PAGES.get(key)
    if entry and now - entry[0] < GRAPH_CACHE_SECONDS and all(keyring.exists(ws.pk, o) for o in entry[1]):
        return entry[2]
    origins = frozenset(o for o in selectors.distinct_origin_keys(ws) if keyring.exists(ws.pk, o))
    export, partition = graph_service.export(ws, max_nodes=GRAPH_MAX_NODES, recompute=in_request)
    key = (ws.pk, ws.revision, partition.revision, ws.created_at.timestamp(), GRAPH_MAX_NODES)  # as drawn
    recomputing = not graph_service.is_current(partition, ws.revision)  # the worker brings it up to date
    if recomputing and graph_service.recompute_later(ws) is None:
        recomputing = False  # the broker is down: say when the communities date from, not that they are moving
    payload = selectors.graph_payload(export)
    page = {name: payload[name] for name in ("node_count", "edge_count", "kinds", "segments", "clusters", "stats")}
    page["graph_json"] = json_script(payload["data"], "graph-data")
    page["partition"] = {"computed_at": partition.computed_at, "revision": partition.revision,
                         "seconds": partition.seconds, "recomputing": recomputing}  # fmt: skip
    with _GRAPH_PAGES_LOCK:
        for stale in [k for k, v in _GRAPH_PAGES.items() if k[0] == ws.pk or now - v[0] >= GRAPH_CACHE_SECONDS]:
            del _GRAPH_PAGES[stale]
        while len(_GRAPH_PAGES) >= GRAPH_CACHE_ENTRIES:
            del _GRAPH_PAGES[next(iter(_GRAPH_PAGES))]
        _GRAPH_PAGES[key] = (now, origins, page)
    return page


@require_GET
@login_required
def fact_panel(request: HttpRequest, workspace: str, memory_id: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    fact = _fact_or_404(ws, memory_id)
    links = fact.outbound_links.select_related("to_fact").order_by("position", "pk")[:20]
    return render(request, "memory/_fact_panel.html", {"workspace": ws, "fact": fact, "links": links})


CURATORS = ("owner", "admin")
BULK_VERBS = {"archive": "archived", "restore": "restored", "up": "voted on", "down": "voted on"}  # for refusals


@require_POST
@login_required
def fact_action(request: HttpRequest, workspace: str, memory_id: str, action: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=CURATORS)
    fact = _fact_or_404(ws, memory_id)
    actor = f"user:{request.user.username}"
    try:
        if action in ("up", "down"):
            recall_service.feedback(workspace=ws, fact_id=fact.memory_id, signal=action, actor=actor)
            messages.success(request, f"Recorded {action}-vote.")
        elif action in ("archive", "restore"):
            lifecycle = "archived" if action == "archive" else "active"
            curation.set_lifecycle(workspace=ws, memory_ids=[fact.memory_id], lifecycle=lifecycle, actor=actor)
            messages.success(request, f"Fact {'archived' if action == 'archive' else 'restored'}.")
        elif action == "correct":
            form = FactCorrectionForm(request.POST)
            text = form.cleaned_data["content"] if form.is_valid() else ""
            result = curation.correct_fact(workspace=ws, memory_id=fact.memory_id, content=text, actor=actor)
            if result.outcome == "unchanged":  # the same correction again (a double click, a re-sent form)
                messages.info(request, "This correction was already stored; nothing changed.")
            elif result.outcome == "held":  # the old fact stays as it is until a reviewer admits this one
                messages.info(request, "Correction stored and held for review; the old fact stays in recall "
                                       "until a reviewer admits it.")  # fmt: skip
            else:
                messages.success(request, "Correction stored; it supersedes the old fact.")
            return redirect("memory:fact-detail", ws.name, result.fact.memory_id)
        else:
            raise Http404("unknown action")
    except (TidelineError, RequestError) as error:
        messages.error(request, error.message)
    return redirect("memory:fact-detail", ws.name, fact.memory_id)


@require_POST
@login_required
def fact_bulk(request: HttpRequest, workspace: str) -> HttpResponse:
    """Two steps: the selection is shown back for confirmation; only a confirmed POST changes facts."""
    ws = get_workspace_for_user(request, workspace, roles=CURATORS)
    form = FactBulkForm(request.POST)
    form.is_valid()  # every field parses whatever it is given
    action, ids = form.cleaned_data["action"], form.cleaned_data["ids"]
    return_query = _filters_only(form.cleaned_data["return_query"])
    back = reverse("memory:fact-list", args=[ws.name]) + (f"?{return_query}" if return_query else "")
    if not action or not ids:
        messages.error(request, "Choose at least one fact and an action.")
        return redirect(back)
    facts = list(Fact.objects.filter(workspace=ws, memory_id__in=ids))
    try:  # a shredded tombstone is never offered; a forged or stale selection is refused whole
        curation.refuse_tombstones(ws, facts, BULK_VERBS[action])
    except RequestError as error:
        messages.error(request, error.message)
        return redirect(back)
    if not form.cleaned_data["confirm"]:
        return render(request, "memory/fact_bulk_confirm.html",
                      {"workspace": ws, "facts": facts, "action": action, "label": BULK_ACTIONS[action],
                       "return_query": return_query, "back": back})  # fmt: skip
    actor = f"user:{request.user.username}"
    try:
        if action in ("archive", "restore"):
            changed = curation.set_lifecycle(workspace=ws, memory_ids=[f.memory_id for f in facts],
                                             lifecycle="archived" if action == "archive" else "active", actor=actor)  # fmt: skip
        else:
            changed = sum(recall_service.feedback(workspace=ws, fact_id=f.memory_id, signal=action, actor=actor)
                          is not None for f in facts)  # fmt: skip
    except (TidelineError, RequestError) as error:
        messages.error(request, error.message)
        return redirect(back)
    messages.success(request, f"{BULK_ACTIONS[action]}: {changed} of {len(facts)} fact(s) changed.")
    return redirect(back)


def _filters_only(query: str) -> str:
    """The facts list's own filters from a submitted query string, re-encoded (so a forged value can
    only ever name a filter of this page, never another URL)."""
    given = QueryDict(query[:4000])
    kept = QueryDict(mutable=True)
    for name in FactFilterForm.base_fields:
        if given.get(name):
            kept[name] = given[name]
    return kept.urlencode()
