"""Admin exports (/w/<ws>/exports/): facts, the memory graph and the event log, streamed and audited.

Admins only: an export carries the whole memory out of the console, so owners and approvers get 403
(outsiders 404), and each download leaves an `exported` event naming who took what, with which
filters and how many records (governance.services.exports). Console import lives next door
(governance.views.imports).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from governance.engine import permissions
from governance.services import exports
from governance.services.acting import Actor
from memory.engine.facts import records as R
from memory.engine.maintenance.graph_export import to_graphml, to_json
from memory.forms import EventFilterForm
from memory.models import MemoryEvent
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from memory.services.maintenance.graph import export_graph as memory_graph

ADMINS = permissions.roles_for("export")
GRAPH_MAX_NODES = 5000
RECENT = 20


class FactExportForm(forms.Form):
    origin = forms.CharField(required=False, max_length=900,
                             widget=forms.TextInput(attrs={"placeholder": "any, owner or channel:C/T/S"}))
    classification = forms.ChoiceField(required=False, choices=[("", "any")] + [(c, c) for c in R.CLASSIFICATIONS])
    lifecycle = forms.ChoiceField(required=False, choices=[("", "any")] + [(c, c) for c in R.LIFECYCLES])
    segment = forms.ChoiceField(required=False, choices=[("", "any")] + [(c, c) for c in R.SEGMENTS])
    created_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="Written from")
    created_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="Written to")

    def clean_origin(self):
        value = self.cleaned_data["origin"].strip()  # (a NUL was refused by the field already)
        if value:
            try:
                R.parse_origin(value)
            except R.OriginError as error:
                raise forms.ValidationError(str(error)) from error
        return value


@require_GET
@login_required
def exports_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    facts_form = FactExportForm(request.GET)  # bound even when empty: the page shows how many facts go
    events_form = EventFilterForm(request.GET)
    count = None
    if facts_form.is_valid():
        count = exports.count_facts(ws, exports.FactFilters(**facts_form.cleaned_data))
    recent = MemoryEvent.objects.filter(workspace=ws, kind=MemoryEvent.Kind.EXPORTED).order_by("-revision")[:RECENT]
    return render(request, "governance/exports.html", {
        "workspace": ws, "facts_form": facts_form, "events_form": events_form, "count": count, "recent": recent,
        "query": request.GET.urlencode(),
    })  # fmt: skip


@require_GET
@login_required
def export_facts(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    fmt = request.GET.get("format", "jsonl")
    form = FactExportForm(request.GET)
    if fmt not in exports.FACT_FORMATS or not form.is_valid():
        return _bad(request, ws, form.errors.as_text() or f"format must be one of {', '.join(exports.FACT_FORMATS)}")
    filters = exports.FactFilters(**form.cleaned_data)
    count = exports.count_facts(ws, filters)
    what = exports.FACT_FORMATS[fmt]
    exports.record_export(ws, user=request.user, actor=Actor.person(request.user), what=what, filters=filters.to_dict(), count=count)
    rows = exports.fact_lines(ws, filters) if fmt == "jsonl" else exports.fact_document(ws, filters)
    content_type = "application/x-ndjson" if fmt == "jsonl" else "application/json"
    return _attachment(StreamingHttpResponse(rows, content_type=content_type), f"{ws.name}-{what}")


@require_GET
@login_required
def export_events(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    fmt = request.GET.get("format", "jsonl")
    form = EventFilterForm(request.GET)
    if fmt not in exports.EVENT_FORMATS or not form.is_valid():
        return _bad(request, ws, form.errors.as_text() or f"format must be one of {', '.join(exports.EVENT_FORMATS)}")
    filters = {k: v for k, v in form.cleaned_data.items() if v}
    events = exports.filtered_events(ws, filters)
    what = exports.EVENT_FORMATS[fmt]
    # Counted before the export's own event, so the figure is what the file holds.
    count = events.count()
    revision = exports.record_export(ws, user=request.user, actor=Actor.person(request.user), what=what,
                                     filters={k: str(v) for k, v in filters.items()}, count=count)  # fmt: skip
    events = events.filter(revision__lt=revision)  # not the export's own event
    content_type = "application/x-ndjson" if fmt == "jsonl" else "text/csv; charset=utf-8"
    return _attachment(StreamingHttpResponse(exports.event_rows(events, fmt), content_type=content_type),
                       f"{ws.name}-{what}")  # fmt: skip


@require_GET
@login_required
def export_graph(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    fmt = request.GET.get("format", "graphml")
    if fmt not in exports.GRAPH_FORMATS:
        return _bad(request, ws, f"format must be one of {', '.join(exports.GRAPH_FORMATS)}")
    graph = memory_graph(ws, max_nodes=GRAPH_MAX_NODES)
    what = exports.GRAPH_FORMATS[fmt]
    exports.record_export(ws, user=request.user, actor=Actor.person(request.user), what=what, filters={"max_nodes": GRAPH_MAX_NODES},
                          count=len(graph.nodes))  # fmt: skip
    if fmt == "graphml":
        response = HttpResponse(to_graphml(graph), content_type="application/graphml+xml")
    else:
        response = JsonResponse(to_json(graph))
    return _attachment(response, f"{ws.name}-memory-{what}")


def _attachment(response, filename: str):
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def _bad(request: HttpRequest, ws, message: str) -> HttpResponse:
    """A download that cannot be made: the exports page again with the reason (400), nothing recorded."""
    recent = MemoryEvent.objects.filter(workspace=ws, kind=MemoryEvent.Kind.EXPORTED).order_by("-revision")[:RECENT]
    return render(request, "governance/exports.html", {
        "workspace": ws, "facts_form": FactExportForm(), "events_form": EventFilterForm(), "count": None,
        "recent": recent, "problem": str(RequestError(message).message), "query": "",
    }, status=400)  # fmt: skip
