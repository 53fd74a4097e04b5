"""Webhooks (/w/<ws>/webhooks/): admins point URLs at governance events, see every call, pause,
rotate the secret, remove; each verb its own POST view.

A new or rotated secret is shown once, on the page that answers the form. Removing and rotating ask
for a confirmation first (a receiver checking the old secret starts refusing at once).
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
from governance.engine import webhooks as rules
from governance.forms import WebhookChangeForm, WebhookForm, parsed
from governance.services import webhooks
from governance.services.acting import Actor
from memory.permissions import get_workspace_for_user
from memory.services.errors import RequestError
from tideline_kit.wording import sentence, sentences

CONFIRM = {"remove": "Remove", "rotate": "Rotate the secret of"}


def _admin_workspace(request: HttpRequest, workspace: str):
    ws = get_workspace_for_user(request, workspace)
    if not permissions.allows(request.workspace_roles, "manage_webhooks"):
        raise PermissionDenied("admins manage webhooks")
    return ws


@never_cache
@login_required
def webhooks_page(request: HttpRequest, workspace: str) -> HttpResponse:
    return _page(request, _admin_workspace(request, workspace))


def _page(request: HttpRequest, ws, *, made=None, confirm=None, form: dict | None = None) -> HttpResponse:
    context = {"workspace": ws, "hooks": webhooks.list_webhooks(ws), "made": made,
               "confirm": confirm, "form": form or {"url": "", "events": list(rules.EVENTS)},
               "events": rules.EVENTS, "deliveries": webhooks.recent_deliveries(ws),
               "max_attempts": rules.MAX_ATTEMPTS}  # fmt: skip
    return render(request, "governance/webhooks.html", context)


@never_cache
@require_POST
@login_required
def webhook_add(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = parsed(WebhookForm, request.POST)
    try:
        hook, secret = webhooks.add(ws, url=form["url"], events=form["events"], user=request.user,
                                    actor=Actor.person(request.user))  # fmt: skip
    except RequestError as error:
        messages.error(request, sentences(error.message, "No webhook was added."))
        return _page(request, ws, form=form)
    return _page(request, ws, made={"hook": hook, "secret": secret, "rotated": False})


@never_cache
@require_POST
@login_required
def webhook_change(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = parsed(WebhookChangeForm, request.POST)
    action = form["action"]
    try:
        hook = webhooks.get(ws, form["webhook"])
        if action in CONFIRM and not form["confirmed"]:
            return _page(request, ws, confirm={"hook": hook, "action": action, "verb": CONFIRM[action]})
        hook, secret = webhooks.change(ws, hook.pk, action=action, user=request.user,
                                       actor=Actor.person(request.user))  # fmt: skip
    except RequestError as error:
        messages.error(request, sentences(error.message, "Nothing was changed."))
        return redirect("governance:webhooks", ws.name)
    if secret is not None:
        return _page(request, ws, made={"hook": hook, "secret": secret, "rotated": True})
    done = {"pause": "is paused: nothing is sent to it", "resume": "is sending again",
            "remove": "is removed, with its delivery log"}[action]  # fmt: skip
    messages.success(request, f"Webhook #{form['webhook']} {done}.")
    return redirect("governance:webhooks", ws.name)


@never_cache
@require_POST
@login_required
def webhook_ping(request: HttpRequest, workspace: str) -> HttpResponse:
    ws = _admin_workspace(request, workspace)
    form = parsed(WebhookChangeForm, request.POST)
    try:
        delivery = webhooks.ping(ws, form["webhook"], user=request.user)
    except RequestError as error:
        messages.error(request, sentences(error.message, "Nothing was sent."))
        return redirect("governance:webhooks", ws.name)
    if delivery.status == "delivered":
        messages.success(request, f"The test call was answered with {delivery.last_status} in {delivery.last_ms} ms.")
    else:
        messages.error(request, sentence(f"The test call failed: {delivery.last_error}"))
    return redirect("governance:webhooks", ws.name)
