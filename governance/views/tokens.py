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
from governance.forms import OTHER_ORIGIN, TOKEN_LIMIT, CleanText, TokenForm, TokenRevokeForm, parsed
from governance.services import tokens
from governance.services.acting import Actor
from governance.templatetags.origins import origin_short
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
    # The least a new token may do: read, at the lowest clearance, writing as an untrusted tool.
    return {"verbs": ["read"], "clearance": CLEARANCES[0], "origin": "owner", "origin_other": "", "source": DEFAULT_SOURCE}


CLEARANCE_WORDS = {"PUBLIC": "public facts only", "INTERNAL": "public and internal", "PII": "every fact"}


def acting_choices(ws) -> list[tuple[str, list[tuple[str, str]]]]:
    """What "Acts as" offers, in groups: the owner, each channel's gateway (any peer of it), each
    peer that wrote in the workspace; then "other…" for an origin that has written nothing yet."""
    peers = [o for o in selectors.origins_of(ws) if not o.is_owner]
    channels = sorted({o.channel_id for o in peers})
    return [
        ("", [("owner", "the owner")]),
        ("Any peer of a channel (a gateway names the peer on each call)",
         [(f"channel:{c}/*", origin_short(f"channel:{c}/*")) for c in channels]),
        ("One peer (channel · conversation · session)",
         [(o.label(), origin_short(o)) for o in peers]),
        ("", [(OTHER_ORIGIN, "other… (type it below)")]),
    ]  # fmt: skip


def _shown(described: dict, row) -> dict:
    """A token as the page lists it: its dates as datetimes (the page formats them like every other)."""
    return {**described, "created": row.created_at, "expires": row.expires_at, "last_used": row.last_used_at}
@never_cache
@login_required
def tokens_page(request: HttpRequest, workspace: str) -> HttpResponse:
    if request.method == "POST":  # the page's former single form target: each verb has its own view
        action = CleanText(TOKEN_LIMIT).clean(request.POST.get("action"))
        if action in VERBS_OF_PAGE:
            return VERBS_OF_PAGE[action](request, workspace)
    return _page(request, _admin_workspace(request, workspace))


def _page(request: HttpRequest, ws, *, made=None, confirm: str = "", form: dict | None = None) -> HttpResponse:
    choices = acting_choices(ws)
    form = {**_blank(), **(form or {})}
    offered = {value for _, group in choices for value, _ in group}
    if form["origin"] not in offered:  # typed, or posted from elsewhere: shown as "other…" with the text
        form = {**form, "origin": OTHER_ORIGIN, "origin_other": form["origin"]}
    context = {"workspace": ws, "tokens": [_shown(tokens.describe(t), t) for t in tokens.list_tokens(ws)],
               "made": made, "confirm": confirm, "form": form, "verbs": VERBS,
               "clearances": [(c, CLEARANCE_WORDS.get(c, "")) for c in CLEARANCES], "sources": SOURCES,
               "acting": choices}  # fmt: skip
    return render(request, "governance/tokens.html", context)


@never_cache
@require_POST
@login_required
def token_create(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = TokenForm(request.POST, verbs=VERBS)
    form.is_valid()
    typed = {name: form.cleaned_data[name] for name in ("name", "origin", "origin_other", "verbs", "clearance",
                                                           "source", "expires")}  # fmt: skip
    try:
        row, secret = tokens.create_token(ws, name=typed["name"], origin=form.acting_origin(), verbs=typed["verbs"],
                                          clearance=typed["clearance"], source=typed["source"] or None,
                                          expires_days=form.expires_days(), user=request.user,
                                          actor=Actor.person(request.user))  # fmt: skip
    except RequestError as error:
        messages.error(request, sentences(error.message, "No token was made."))
        return _page(request, ws, form=typed)
    return _page(request, ws, made={"secret": secret, **_shown(tokens.describe(row), row)})


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
