"""API tokens (/w/<ws>/tokens/): admins make, list and revoke the tokens agents use (docs/SECURITY.md).

A new token is shown once, on the page that answers the form (never stored, never in a redirect
URL or a message that could be replayed from history); revoking asks for a confirmation first.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from governance.engine.tokens import CLEARANCES, DEFAULT_SOURCE, SOURCES, VERBS
from governance.services import tokens
from memory import selectors
from memory.permissions import get_workspace_for_user, roles_in
from memory.services.errors import RequestError

LIMIT = 900


@never_cache
@login_required
def tokens_page(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = get_workspace_for_user(request, workspace)
    if "admin" not in roles_in(request.user, ws):
        raise PermissionDenied("admins manage API tokens")
    actor = f"user:{request.user.get_username()}"
    blank = {"verbs": ["read"], "clearance": "PII", "origin": "owner", "source": DEFAULT_SOURCE}
    made, confirm, form = None, "", blank
    if request.method == "POST":
        action = _field(request, "action")
        if action == "revoke":
            name = _field(request, "name")
            if request.POST.get("confirmed") != "yes":
                confirm = name
            else:
                try:
                    tokens.revoke_token(ws, name, actor=actor)
                    messages.success(request, f"Token {name} is revoked: agents using it are refused from now on.")
                except RequestError as error:
                    messages.error(request, f"{error.message}. Nothing was changed.")
                return redirect("governance:tokens", ws.name)
        elif action == "create":
            form = {"name": _field(request, "name"), "origin": _field(request, "origin"),
                    "verbs": [v for v in request.POST.getlist("verbs") if v in VERBS],
                    "clearance": _field(request, "clearance"), "source": _field(request, "source"),
                    "expires": _field(request, "expires")}  # fmt: skip
            try:
                days = float(form["expires"]) if form["expires"] else None
            except ValueError:
                days = -1.0  # refused below with the allowed range
            try:
                row, secret = tokens.create_token(ws, name=form["name"], origin=form["origin"], verbs=form["verbs"],
                                                  clearance=form["clearance"], source=form["source"] or None,
                                                  expires_days=days, actor=actor)  # fmt: skip
                made, form = {"secret": secret, **tokens.describe(row)}, blank
            except RequestError as error:
                messages.error(request, f"{error.message}. No token was made.")
    context = {"workspace": ws, "tokens": [tokens.describe(t) for t in tokens.list_tokens(ws)], "made": made,
               "confirm": confirm, "form": form, "verbs": VERBS, "clearances": CLEARANCES, "sources": SOURCES,
               "origins": [o.label() for o in selectors.origins_of(ws)]}  # fmt: skip
    return render(request, "governance/tokens.html", context)


def _field(request: HttpRequest, name: str) -> str:
    return request.POST.get(name, "").replace("\x00", "").strip()[:LIMIT]
