"""The retention page (/w/<ws>/retention/): policies, what they would take now, and their runs.

Every member may read it (a policy decides what recall forgets, so an owner curating memory should
see why a fact disappeared); admins add, edit, enable, disable, remove and apply policies (any POST
from another role is a 403). "Apply now" needs a typed confirmation (the count, or the policy's
name; for every policy at once, the workspace's name), checked against a fresh preview by
`governance.services.retention.apply`. Outsiders get 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.engine import retention as engine
from governance.forms import (
    RetentionLadderForm,
    RetentionPolicyForm,
    RetentionPolicyRefForm,
    parsed,
    positive_id,
)
from governance.services import retention
from governance.services.acting import Actor
from memory import sealing
from memory.engine.facts import records as R
from memory.models import Fact
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import origins_with_counts

UNITS = (("h", "hours"), ("d", "days"), ("w", "weeks"), ("y", "years"), ("m", "minutes"), ("s", "seconds"))
RUNGS = tuple(engine.LADDER)
RUNS = 20
PREVIEW_FACTS = 20  # facts listed per page of a policy's preview


@login_required
def retention_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        return VERBS.get(request.POST.get("op", ""), retention_unknown)(request, workspace)
    ws = get_workspace_for_user(request, workspace)
    return _page(request, ws, permissions.allows(request.workspace_roles, "manage_retention"))


def _page(request, ws, can_change, *, problem: str = "", form: dict | None = None, status: int = 200,
          chosen: int | None = None) -> HttpResponse:  # fmt: skip
    policies = retention.policies(ws)
    counts = {p.policy: p for p in _safe_previews(ws, policies)}
    rows = [{"policy": p, "scope": engine.scope_words(p.__dict__), "rule": engine.rule_words(p.__dict__),
             "now": counts.get(p.pk)} for p in policies]  # fmt: skip
    chosen = chosen or positive_id(request.GET.get("preview"))
    preview, listed = None, {}
    if chosen is not None:
        try:
            (preview,) = retention.preview(ws, chosen, page=positive_id(request.GET.get("page")) or 1,
                                           per_page=PREVIEW_FACTS)  # fmt: skip
        except RequestError as error:
            problem = problem or error.message
        else:
            preview.facts = _shown_facts(ws, preview.facts)
            first = (preview.page - 1) * PREVIEW_FACTS + 1
            listed = {"first": first, "last": first + len(preview.facts) - 1,
                      "more": max(0, preview.takes - (first + len(preview.facts) - 1)),
                      "later": preview.pages - preview.page}  # fmt: skip
    editing = None
    if form is None and can_change and positive_id(request.GET.get("edit")) is not None:
        try:
            editing = retention.get_policy(ws, positive_id(request.GET.get("edit")))
        except RequestError as error:
            problem = problem or error.message
        else:
            form = _form_of(editing)
    enabled_total = sum(r["now"].takes for r in rows if r["now"] is not None and r["policy"].enabled)
    return render(request, "governance/retention.html", {
        "workspace": ws, "can_change": can_change, "rows": rows, "preview": preview, "listed": listed, "problem": problem,
        "form": form or _blank_form(), "editing": editing or (form or {}).get("policy"),
        "origins": origins_with_counts(ws) if can_change else [], "segments": R.SEGMENTS, "tiers": R.TIERS,
        "classifications": R.CLASSIFICATIONS, "units": UNITS, "rungs": RUNGS, "ladder_tiers": [(t, engine.LADDER_TIERS.get(t, "never")) for t in R.TIERS],
        "runs": retention.recent_runs(ws, RUNS), "enabled_total": enabled_total,
        "any_enabled": any(p.enabled for p in policies),
    }, status=status)  # fmt: skip


def _shown_facts(ws, facts: list[dict]) -> list[dict]:
    """A preview's page of facts as a person reads them: each fact's text (None once its origin was
    shredded), its origin, and its dates as datetimes (formatted like every other date)."""
    rows = {f.memory_id: f for f in Fact.objects.filter(workspace=ws, memory_id__in=[f["memory_id"] for f in facts])}
    shown = []
    for fact in facts:
        row = rows.get(fact["memory_id"])
        try:
            text = row.content if row is not None else None
        except sealing.KeyDestroyedError:
            text = None
        shown.append({**fact, "text": text, "written": parse_datetime(fact["created_at"]),
                      "used": parse_datetime(fact["last_used_at"])})  # fmt: skip
    return shown


def _safe_previews(ws, policies):
    out = []
    for policy in policies:
        try:
            out += retention.preview(ws, policy.pk, with_facts=False)
        except RequestError:
            continue
    return out


def _change(request: HttpRequest, workspace: str, change, *, keeps_preview: bool = False) -> HttpResponse:
    """Check the role, make the change: a redirect when done; otherwise the page again with the
    refusal (an apply keeps its preview in view)."""
    ws = get_workspace_for_user(request, workspace)
    if not permissions.allows(request.workspace_roles, "manage_retention"):
        raise PermissionDenied("admins change and apply retention policies")
    try:
        outcome = change(ws, user=request.user, actor=Actor.person(request.user))
    except RequestError as error:
        chosen = positive_id(request.POST.get("policy")) if keeps_preview else None
        return _page(request, ws, True, problem=error.message, status=400, chosen=chosen)
    return outcome or redirect("governance:retention", ws.name)


@require_POST
@login_required
def retention_save(request: HttpRequest, workspace: str) -> HttpResponse:
    """Add a policy, or save a new version of one (`policy` names it)."""

    def save(ws, **who):
        form = RetentionPolicyForm(request.POST)
        form.is_valid()
        data = form.cleaned_data
        try:
            if data["policy"]:
                policy = retention.edit(ws, data["policy"], form.fields_for_service(), every_fact=data["every_fact"], **who)
                messages.success(request, f"Saved policy {policy.name!r} as v{policy.version}; recall enforces it now.")
            else:
                policy = retention.create(ws, form.fields_for_service(), every_fact=data["every_fact"], **who)
                messages.success(request, f"Added policy {policy.name!r} (v1); recall enforces it now.")
        except RequestError as error:  # the same form again, the refusal on it, what was typed kept
            return _page(request, ws, True, problem=error.message, form=form.as_page(), status=400)
        return redirect(f"{reverse('governance:retention', args=[ws.name])}?preview={policy.pk}#retention-preview")

    return _change(request, workspace, save)


@require_POST
@login_required
def retention_ladder(request: HttpRequest, workspace: str) -> HttpResponse:
    """Policies from the default retention ladder (one per rung used)."""

    def ladder(ws, **who):
        form = RetentionLadderForm(request.POST, tiers=R.TIERS, classifications=R.CLASSIFICATIONS)
        form.is_valid()
        made = retention.create_ladder(ws, form.mapping(), by=form.cleaned_data["by"], **who, **form.common())
        messages.success(request, f"Added {len(made)} polic{'y' if len(made) == 1 else 'ies'} from the default retention ladder: "
                         + ", ".join(p.name for p in made) + ".")  # fmt: skip

    return _change(request, workspace, ladder)


def _switch(request: HttpRequest, workspace: str, enabled: bool) -> HttpResponse:
    def switch(ws, **who):
        policy = retention.set_enabled(ws, parsed(RetentionPolicyRefForm, request.POST)["policy"], enabled, **who)
        messages.success(request, f"Policy {policy.name!r} is {'enabled' if enabled else 'disabled'} (v{policy.version}).")

    return _change(request, workspace, switch)


@require_POST
@login_required
def retention_enable(request: HttpRequest, workspace: str) -> HttpResponse:
    return _switch(request, workspace, True)


@require_POST
@login_required
def retention_disable(request: HttpRequest, workspace: str) -> HttpResponse:
    return _switch(request, workspace, False)


@require_POST
@login_required
def retention_remove(request: HttpRequest, workspace: str) -> HttpResponse:
    def remove(ws, **who):
        gone = retention.delete(ws, parsed(RetentionPolicyRefForm, request.POST)["policy"], **who)
        messages.success(request, f"Removed policy {gone['name']!r}; facts it archived stay archived.")

    return _change(request, workspace, remove)


@require_POST
@login_required
def retention_apply(request: HttpRequest, workspace: str) -> HttpResponse:
    """Apply one policy (`policy`) or every enabled one, after the typed confirmation."""

    def apply(ws, **who):
        form = parsed(RetentionPolicyRefForm, request.POST)
        reports = retention.apply(ws, form["policy"] or None, typed=form["confirm"], **who)
        archived, purged = sum(r.archived for r in reports), sum(r.purged for r in reports)
        messages.success(request, (
            f"Applied {len(reports)} polic{'y' if len(reports) == 1 else 'ies'}: {archived:,} fact{pluralize(archived)} "
            f"archived, {purged:,} purged. Receipt: the retention_run event"
            f"{pluralize(len(reports))} at revision {', '.join(str(r.revision) for r in reports)}."
        ))
        return redirect(f"{reverse('governance:retention', args=[ws.name])}#retention-runs")

    return _change(request, workspace, apply, keeps_preview=True)


def retention_unknown(request: HttpRequest, workspace: str) -> HttpResponse:
    def unknown(ws, **who):
        raise RequestError("unknown action; nothing was changed", kind="validation")

    return _change(request, workspace, unknown)


VERBS = {"save": retention_save, "ladder": retention_ladder, "enable": retention_enable, "disable": retention_disable,
         "remove": retention_remove, "apply": retention_apply}  # fmt: skip


# ---------------------------------------------------------------- the form


def _blank_form() -> dict:
    return {"policy": "", "name": "", "origin_kind": "", "origin_key": "", "segments": [], "classifications": [],
            "tiers": [], "trust": "", "every_fact": False, "age": "30", "age_unit": "d", "basis": "created",
            "keep_confirmed": True, "keep_permanent": True, "action": "archive", "enabled": True}  # fmt: skip


def _form_of(policy) -> dict:
    seconds = policy.max_age_seconds
    age, unit = seconds, "s"
    for code, size in (("y", 365 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            age, unit = seconds // size, code
            break
    return {**{name: getattr(policy, name) for name in engine.FIELDS}, "policy": str(policy.pk),
            "every_fact": not engine.has_scope(policy.__dict__), "age": str(age), "age_unit": unit}  # fmt: skip
