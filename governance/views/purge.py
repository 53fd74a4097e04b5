"""The purge page (/w/<ws>/purge/): retract or hard-purge chosen facts, for admins only.

A GET with selection fields (fact ids, origin, query, dates, segment, mode) shows the preview:
counts and paginated lists of every fact, link and open review item that goes, cascade members
marked. The POST carries the same selection plus the typed confirmation (the number of facts or
the workspace's name), checked against a fresh preview by `governance.services.purge.apply`; a
mismatch shows the same preview again with the refusal and changes nothing. Owners and approvers
get 403, outsiders 404 (as for the shred page).
"""

from __future__ import annotations

import shlex
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.forms import PURGE_FIELDS, PurgeForm, parsed
from governance.services import purge
from governance.services.acting import Actor
from memory.engine.facts import records as R
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError

ADMINS = permissions.roles_for("purge")
FIELDS = PURGE_FIELDS


@login_required
def purge_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's form target: the purge itself
        return purge_apply(request, workspace)
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    return _page(request, ws, _form(request.GET), pages=request.GET)


def _form(data) -> dict[str, str]:
    form = PurgeForm(data)
    form.is_valid()
    return form.selection()


def _selection(form: dict[str, str]) -> purge.Selection:
    return purge.Selection.parse(facts=[form["facts"]], origin=form["origin"], query=form["query"],
                                 limit=form["max"] or None, after=form["after"], before=form["before"],
                                 segment=form["segment"])  # fmt: skip


def _chosen(form: dict[str, str]) -> bool:
    return any(form[name] for name in FIELDS if name not in ("mode", "max"))


def _page(request: HttpRequest, ws, form: dict[str, str], *, pages=None, problem: str = "", reason: str = "",
          status: int = 200) -> HttpResponse:  # fmt: skip
    preview = None
    if _chosen(form):
        pages = pages or {}
        try:
            preview = purge.preview(ws, _selection(form), hard=form["mode"] == "hard", page=pages.get("page", 1),
                                    link_page=pages.get("link_page", 1), item_page=pages.get("item_page", 1))  # fmt: skip
        except RequestError as error:
            problem = problem or error.message
    nav = _nav(form, preview, reverse("governance:purge", args=[ws.name])) if preview else {}
    return render(request, "governance/purge.html", {
        "workspace": ws, "form": form, "preview": preview, "problem": problem, "reason": reason, "nav": nav,
        "origins": purge.origins(ws), "segments": R.SEGMENTS, "receipts": purge.receipts(ws),
        "query_max": purge.QUERY_MAX, "command": _command(ws, form),
    }, status=status)  # fmt: skip


def _command(ws, form: dict[str, str]) -> str:
    """The same preview from the command line."""
    words = ["tideline", "purge", "--workspace", ws.name]
    if form["facts"]:
        words += ["--fact", *form["facts"].split()[:5]] + (["…"] if len(form["facts"].split()) > 5 else [])
    for name in ("origin", "query", "max", "after", "before", "segment"):
        if form[name] and (name != "max" or form["query"]):
            words += [f"--{name}", form[name]]
    words += ["--hard"] if form["mode"] == "hard" else []
    return " ".join(w if w == "…" else shlex.quote(w) for w in [*words, "--dry-run"])


def _nav(form: dict[str, str], preview: purge.Preview, page_url: str) -> dict[str, dict]:
    """Previous/next links of each list, keeping the selection and the other lists' pages (to the page's
    own URL: a refused purge shows the preview at the purge's)."""
    base = {k: v for k, v in form.items() if v}
    current = {"page": preview.pages["facts"]["page"], "link_page": preview.pages["links"]["page"],
               "item_page": preview.pages["items"]["page"]}  # fmt: skip
    out = {}
    for name, param, anchor in (("facts", "page", "purge-facts-list"), ("links", "link_page", "purge-links"),
                                ("items", "item_page", "purge-items")):  # fmt: skip
        info = preview.pages[name]

        def link(page, param=param, anchor=anchor):
            return page_url + "?" + urlencode({**base, **current, param: page}) + f"#{anchor}"

        out[name] = {**info, "prev": link(info["page"] - 1) if info["page"] > 1 else "",
                     "next": link(info["page"] + 1) if info["page"] < info["pages"] else ""}  # fmt: skip
    return out


@require_POST
@login_required
def purge_apply(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace, roles=ADMINS)
    posted = parsed(PurgeForm, request.POST)
    form, reason = {name: posted[name] for name in FIELDS}, posted["reason"]
    hard = form["mode"] == "hard"
    try:
        report = purge.apply(ws, _selection(form), hard=hard, typed=posted["confirm"], user=request.user,
                             actor=Actor.person(request.user), reason=reason)  # fmt: skip
    except RequestError as error:  # the same preview again, the refusal on it, the reason kept
        return _page(request, ws, form, problem=error.message, reason=reason, status=400)
    if report.hard:
        messages.success(request, (
            f"Purged {report.facts:,} fact{pluralize(report.facts)}"
            + (f" ({report.cascaded:,} derived only from the others)" if report.cascaded else "")
            + f", removed {report.links:,} link{pluralize(report.links)} and closed {report.review_items_closed} review "
            f"item{pluralize(report.review_items_closed)}. Receipt: the purged event at revision {report.revision}."
        ))
    else:
        messages.success(request, (
            f"Retracted {report.facts:,} fact{pluralize(report.facts)} (archived, revision {report.revision}); "
            "restore any of them from its fact page."
        ))
    return redirect("governance:purge", ws.name)
