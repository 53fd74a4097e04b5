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

from governance.engine import retention as engine
from governance.services import retention
from memory.engine.facts import records as R
from memory.permissions import get_workspace_for_user, roles_in
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import origins_with_counts

UNITS = (("h", "hours"), ("d", "days"), ("w", "weeks"), ("y", "years"), ("m", "minutes"), ("s", "seconds"))
RUNGS = tuple(engine.LADDER)
RUNS = 20
TEXT_MAX = 1000


@login_required
def retention_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    can_change = "admin" in roles_in(request.user, ws)
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied("admins change and apply retention policies")
        return _post(request, ws)
    return _page(request, ws, can_change)


def _page(request, ws, can_change, *, problem: str = "", form: dict | None = None, status: int = 200,
          chosen: int | None = None) -> HttpResponse:  # fmt: skip
    policies = retention.policies(ws)
    counts = {p.policy: p for p in _safe_previews(ws, policies)}
    rows = [{"policy": p, "scope": engine.scope_words(p.__dict__), "rule": engine.rule_words(p.__dict__),
             "now": counts.get(p.pk)} for p in policies]  # fmt: skip
    chosen = chosen or _int(request.GET.get("preview"))
    preview = None
    if chosen is not None:
        try:
            (preview,) = retention.preview(ws, chosen, page=_int(request.GET.get("page")) or 1)
        except RequestError as error:
            problem = problem or error.message
    editing = None
    if form is None and can_change and _int(request.GET.get("edit")) is not None:
        try:
            editing = retention.get_policy(ws, _int(request.GET.get("edit")))
        except RequestError as error:
            problem = problem or error.message
        else:
            form = _form_of(editing)
    enabled_total = sum(r["now"].takes for r in rows if r["now"] is not None and r["policy"].enabled)
    return render(request, "governance/retention.html", {
        "workspace": ws, "can_change": can_change, "rows": rows, "preview": preview, "problem": problem,
        "form": form or _blank_form(), "editing": editing or (form or {}).get("policy"),
        "origins": origins_with_counts(ws) if can_change else [], "segments": R.SEGMENTS, "tiers": R.TIERS,
        "classifications": R.CLASSIFICATIONS, "units": UNITS, "rungs": RUNGS, "ladder_tiers": [(t, engine.LADDER_TIERS.get(t, "never")) for t in R.TIERS],
        "runs": retention.recent_runs(ws, RUNS), "enabled_total": enabled_total,
        "any_enabled": any(p.enabled for p in policies),
    }, status=status)  # fmt: skip


def _safe_previews(ws, policies):
    out = []
    for policy in policies:
        try:
            out += retention.preview(ws, policy.pk, with_facts=False)
        except RequestError:
            continue
    return out


def _post(request, ws) -> HttpResponse:
    op = request.POST.get("op", "")
    actor = f"user:{request.user.get_username()}"
    try:
        if op == "save":
            return _save(request, ws, actor)
        if op == "ladder":
            by = "classifications" if request.POST.get("by") == "classifications" else "tiers"
            values = R.TIERS if by == "tiers" else R.CLASSIFICATIONS
            mapping = {v: _text(request.POST.get(f"rung_{v}")) or "never" for v in values}
            made = retention.create_ladder(ws, mapping, by=by, actor=actor, **_common(request.POST))
            messages.success(request, f"Added {len(made)} polic{'y' if len(made) == 1 else 'ies'} from the TTL ladder: "
                             + ", ".join(p.name for p in made) + ".")  # fmt: skip
        elif op in ("enable", "disable"):
            policy = retention.set_enabled(ws, _text(request.POST.get("policy")), op == "enable", actor=actor)
            messages.success(request, f"Policy {policy.name!r} is {op}d (v{policy.version}).")
        elif op == "remove":
            gone = retention.delete(ws, _text(request.POST.get("policy")), actor=actor)
            messages.success(request, f"Removed policy {gone['name']!r}; facts it archived stay archived.")
        elif op == "apply":
            return _apply(request, ws, actor)
        else:
            raise RequestError("unknown action; nothing was changed", kind="validation")
    except RequestError as error:  # the refusal on the page; an apply keeps its preview in view
        chosen = _int(request.POST.get("policy")) if op == "apply" else None
        return _page(request, ws, True, problem=error.message, status=400, chosen=chosen)
    return redirect("governance:retention", ws.name)


def _save(request, ws, actor) -> HttpResponse:
    post = request.POST
    form = _form_from(post)
    fields = {**_common(post), "name": form["name"], "origin_kind": form["origin_kind"], "origin_key": form["origin_key"],
              "segments": form["segments"], "classifications": form["classifications"], "tiers": form["tiers"],
              "trust": form["trust"], "enabled": form["enabled"]}  # fmt: skip
    try:
        if form["policy"]:
            policy = retention.edit(ws, form["policy"], fields, actor=actor, every_fact=form["every_fact"])
            messages.success(request, f"Saved policy {policy.name!r} as v{policy.version}; recall enforces it now.")
        else:
            policy = retention.create(ws, fields, actor=actor, every_fact=form["every_fact"])
            messages.success(request, f"Added policy {policy.name!r} (v1); recall enforces it now.")
    except RequestError as error:  # the same form again, the refusal on it, what was typed kept
        return _page(request, ws, True, problem=error.message, form=form, status=400)
    return redirect(f"{reverse('governance:retention', args=[ws.name])}?preview={policy.pk}#retention-preview")


def _apply(request, ws, actor) -> HttpResponse:
    policy = _text(request.POST.get("policy")) or None
    reports = retention.apply(ws, policy, actor=actor, typed=_text(request.POST.get("confirm")))
    archived, purged = sum(r.archived for r in reports), sum(r.purged for r in reports)
    messages.success(request, (
        f"Applied {len(reports)} polic{'y' if len(reports) == 1 else 'ies'}: {archived:,} fact{pluralize(archived)} "
        f"archived, {purged:,} purged. Receipt: the retention_run event"
        f"{pluralize(len(reports))} at revision {', '.join(str(r.revision) for r in reports)}."
    ))
    return redirect(f"{reverse('governance:retention', args=[ws.name])}#retention-runs")


# ---------------------------------------------------------------- the form


def _common(post) -> dict:
    """Rule and action fields shared by the policy form and the ladder form."""
    age = f"{_text(post.get('age'))}{_text(post.get('age_unit'))}" if _text(post.get("age")) else None
    out = {"basis": _text(post.get("basis")) or "created", "keep_confirmed": post.get("keep_confirmed") == "on",
           "keep_permanent": post.get("keep_permanent") == "on", "action": _text(post.get("action")) or "archive"}  # fmt: skip
    if age is not None:
        out["max_age_seconds"] = age
    return out


def _form_from(post) -> dict:
    return {
        "policy": _text(post.get("policy")), "name": _text(post.get("name")), "origin_kind": _text(post.get("origin_kind")),
        "origin_key": _text(post.get("origin_key")), "segments": _list(post, "segments"),
        "classifications": _list(post, "classifications"), "tiers": _list(post, "tiers"), "trust": _text(post.get("trust")),
        "every_fact": post.get("every_fact") == "on", "age": _text(post.get("age")), "age_unit": _text(post.get("age_unit")),
        "basis": _text(post.get("basis")), "keep_confirmed": post.get("keep_confirmed") == "on",
        "keep_permanent": post.get("keep_permanent") == "on", "action": _text(post.get("action")),
        "enabled": post.get("enabled") == "on",
    }  # fmt: skip


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


def _text(value) -> str:
    return (value or "").replace("\x00", "").strip()[:TEXT_MAX]


def _list(post, name) -> list[str]:
    return [_text(v) for v in post.getlist(name)[:20] if _text(v)]


def _int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**62 else None
