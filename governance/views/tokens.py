"""API tokens (/w/<ws>/tokens/): admins make, list and revoke the tokens agents use.

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
from django.views.decorators.http import require_POST

from governance.engine import permissions
from governance.engine.tokens import CLEARANCES, DEFAULT_SOURCE, SOURCES, VERBS
from governance.forms import TOKEN_LIMIT, CleanText, TokenForm, TokenRevokeForm, parsed
from governance.services import tokens
from governance.services.acting import Actor
from memory import selectors
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from tideline_kit.wording import sentences


def _admin_workspace(request: HttpRequest, workspace: str):
    ws = get_workspace_for_user(request, workspace)
    if not permissions.allows(request.workspace_roles, "manage_tokens"):
        raise PermissionDenied("admins manage API tokens")
    return ws


def _blank() -> dict:
    return {"verbs": ["read"], "clearance": "PII", "origin": "owner", "source": DEFAULT_SOURCE}


@never_cache
@login_required
def tokens_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        action = CleanText(TOKEN_LIMIT).clean(request.POST.get("action"))
        if action in VERBS_OF_PAGE:
            return VERBS_OF_PAGE[action](request, workspace)
    return _page(request, _admin_workspace(request, workspace))


def _page(request: HttpRequest, ws, *, made=None, confirm: str = "", form: dict | None = None) -> HttpResponse:
    context = {"workspace": ws, "tokens": [tokens.describe(t) for t in tokens.list_tokens(ws)], "made": made,
               "confirm": confirm, "form": form or _blank(), "verbs": VERBS, "clearances": CLEARANCES,
               "sources": SOURCES, "origins": [o.label() for o in selectors.origins_of(ws)]}  # fmt: skip
    return render(request, "governance/tokens.html", context)


@never_cache
@require_POST
@login_required
def token_create(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = TokenForm(request.POST, verbs=VERBS)
    form.is_valid()
    typed = {name: form.cleaned_data[name] for name in ("name", "origin", "verbs", "clearance", "source", "expires")}
    try:
        row, secret = tokens.create_token(ws, name=typed["name"], origin=typed["origin"], verbs=typed["verbs"],
                                          clearance=typed["clearance"], source=typed["source"] or None,
                                          expires_days=form.expires_days(), user=request.user,
                                          actor=Actor.person(request.user))  # fmt: skip
    except RequestError as error:
        messages.error(request, sentences(error.message, "No token was made."))
        return _page(request, ws, form=typed)
    return _page(request, ws, made={"secret": secret, **tokens.describe(row)})


@never_cache
@require_POST
@login_required
def token_revoke(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = parsed(TokenRevokeForm, request.POST)
    name = form["name"]
    if not form["confirmed"]:
        return _page(request, ws, confirm=name)
    try:
        tokens.revoke_token(ws, name, user=request.user, actor=Actor.person(request.user))
        messages.success(request, f"Token {name} is revoked: agents using it are refused from now on.")
    except RequestError as error:
        messages.error(request, sentences(error.message, "Nothing was changed."))
    return redirect("governance:tokens", ws.name)


VERBS_OF_PAGE = {"create": token_create, "revoke": token_revoke}
