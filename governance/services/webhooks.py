"""Webhooks: admins point URLs at a workspace's governance events; the worker calls them, signed.

`emit` is called by the services whose changes are events (a review item opened or decided, a
purge, a shred, a retention run, a proposal applied or reverted) inside their own transaction: it
writes one `WebhookDelivery` per subscribed webhook there (an outbox: the change and its calls
commit together, and a crash loses neither), and once that commits asks the worker to send what is
due. `deliver_due` (the worker, and a schedule every minute for retries) claims due deliveries,
POSTs each with its HMAC signature within `TIDELINE_WEBHOOK_TIMEOUT_SECONDS`, and either marks it
delivered or tries again later with backoff, up to `MAX_ATTEMPTS` (governance/engine/webhooks.py).

Calls go only to public addresses unless `TIDELINE_WEBHOOKS_ALLOW_PRIVATE` is set: the host is
resolved, every address it has is checked, and the connection is made to the checked address (TLS
still verifies the host's name), so DNS answering differently the second time cannot turn a call
towards the server's own network. Payloads name ids and counts, never content.
"""

from __future__ import annotations

import http.client
import json
import logging
import secrets
import socket
import ssl
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from governance.engine import webhooks as rules
from governance.models import Webhook, WebhookDelivery
from governance.services.acting import actor_text, require_role
from memory.models import Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.mutation import mutate
from tideline_kit import telemetry

logger = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"
MAX_PER_WORKSPACE = 20
CLAIM_SECONDS = 120  # a delivery claimed by a worker that died is taken again after this
BATCH = 50
USER_AGENT = "Tideline-Webhooks/1"


def _allow_private() -> bool:
    return bool(getattr(settings, "TIDELINE_WEBHOOKS_ALLOW_PRIVATE", False))


def _timeout() -> float:
    return float(getattr(settings, "TIDELINE_WEBHOOK_TIMEOUT_SECONDS", 5.0))


def resolve_checked(host: str, port: int) -> str:
    """An address of `host` that a call may go to (every address it resolves to is checked)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise rules.WebhookRefused(f"{host} does not resolve ({error})") from None
    addresses = sorted({info[4][0] for info in infos})
    for address in addresses:
        problem = rules.address_refusal(address, allow_private=_allow_private())
        if problem:
            raise rules.WebhookRefused(f"{host} resolves to {problem}; webhooks call public addresses only")
    if not addresses:
        raise rules.WebhookRefused(f"{host} resolves to no address")
    return addresses[0]


def _checked_url(url: str) -> str:
    try:
        _scheme, host, port = rules.check_url(url)
        resolve_checked(host, port)
    except rules.WebhookRefused as error:
        raise RequestError(f"{error}", kind="validation") from None
    return url.strip()


def _checked_events(events) -> list[str]:
    chosen = [e for e in (events or []) if isinstance(e, str)]
    unknown = sorted(set(chosen) - set(rules.EVENTS))
    if unknown:
        raise RequestError(f"unknown event(s): {', '.join(unknown)} (known: {', '.join(rules.EVENTS)})",
                           kind="validation")  # fmt: skip
    if not chosen:
        raise RequestError("pick at least one event to send", kind="validation")
    return [e for e in rules.EVENTS if e in chosen]


def list_webhooks(workspace: Workspace) -> list[Webhook]:
    return list(Webhook.objects.filter(workspace=workspace))


def get(workspace: Workspace, webhook_id) -> Webhook:
    try:
        return Webhook.objects.get(workspace=workspace, pk=int(webhook_id))
    except (TypeError, ValueError, OverflowError, Webhook.DoesNotExist):
        raise NotFoundError(f"workspace {workspace.name} has no webhook {webhook_id!r}") from None


@telemetry.operation("governance.webhook.add")
def add(workspace: Workspace, *, url: str, events, user=None, actor) -> tuple[Webhook, str]:
    """Point a new webhook at the workspace; returns (row, its signing secret — shown once)."""
    require_role(user, workspace, "manage_webhooks", "manage webhooks")
    url, chosen, actor = _checked_url(url), _checked_events(events), actor_text(actor)
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    with mutate(workspace, actor=actor) as m:
        if Webhook.objects.filter(workspace=m.workspace).count() >= MAX_PER_WORKSPACE:
            raise RequestError(f"a workspace has at most {MAX_PER_WORKSPACE} webhooks", kind="conflict")
        hook = Webhook.objects.create(workspace=m.workspace, url=url, events=chosen, secret=secret,
                                      created_at=m.now, created_by=actor)  # fmt: skip
        m.record("settings_changed", setting="webhook", change="added", webhook=hook.pk, events=chosen)
    return hook, secret


@telemetry.operation("governance.webhook.change")
def change(workspace: Workspace, webhook_id, *, action: str, user=None, actor) -> tuple[Webhook, str | None]:
    """`pause`, `resume`, `rotate` (a new secret, returned once) or `remove` a webhook."""
    require_role(user, workspace, "manage_webhooks", "manage webhooks")
    if action not in ("pause", "resume", "rotate", "remove"):
        raise RequestError(f"unknown action {action!r}", kind="validation")
    actor = actor_text(actor)
    secret = None
    with mutate(workspace, actor=actor) as m:
        hook = get(m.workspace, webhook_id)
        if action == "remove":
            hook.delete()
        elif action == "rotate":
            secret = hook.secret = SECRET_PREFIX + secrets.token_urlsafe(32)
            hook.save(update_fields=["secret"])
        else:
            hook.active = action == "resume"
            hook.save(update_fields=["active"])
        m.record("settings_changed", setting="webhook", change=action, webhook=int(webhook_id))
    return hook, secret


def emit(workspace: Workspace, event: str, **data) -> int:
    """Queue `event` for every active webhook of the workspace subscribed to it, in the caller's
    transaction; returns how many calls were queued. `data` holds ids and counts only."""
    if event not in rules.EVENTS:
        raise ValueError(f"unknown webhook event {event!r}")
    hooks = [h for h in Webhook.objects.filter(workspace=workspace, active=True).only("pk", "events")
             if event in h.events]  # fmt: skip
    if not hooks:
        return 0
    _queue(workspace, hooks, event, data)
    return len(hooks)


def ping(workspace: Workspace, webhook_id, *, user=None) -> WebhookDelivery:
    """Make a test call to one webhook now (within the timeout), logged like any other; tried once."""
    require_role(user, workspace, "manage_webhooks", "manage webhooks")
    hook = get(workspace, webhook_id)
    (delivery,) = _deliveries(workspace, [hook], rules.PING, {"note": "a test call from the webhooks page"},
                              status=WebhookDelivery.Status.SENDING, claimed=True)  # claimed: no worker takes it
    delivery.webhook = hook
    _attempt(delivery, None)
    return delivery


def _queue(workspace: Workspace, hooks: list[Webhook], event: str, data: dict) -> list[WebhookDelivery]:
    rows = _deliveries(workspace, hooks, event, data, status=WebhookDelivery.Status.PENDING, claimed=False)
    transaction.on_commit(_send_soon)
    return rows


def _deliveries(workspace: Workspace, hooks: list[Webhook], event: str, data: dict, *, status: str,
                claimed: bool) -> list[WebhookDelivery]:  # fmt: skip
    now = timezone.now()
    rows = WebhookDelivery.objects.bulk_create([
        WebhookDelivery(webhook_id=hook.pk, event=event, payload={}, next_attempt_at=now, created_at=now, status=status,
                        claimed_at=now if claimed else None)
        for hook in hooks
    ])  # fmt: skip
    for row in rows:  # the payload names its own delivery id, which a receiver may use to drop repeats
        row.payload = rules.payload(delivery_id=row.pk, event=event, workspace=workspace.name,
                                    occurred_at=now.isoformat(), data=data)  # fmt: skip
    WebhookDelivery.objects.bulk_update(rows, ["payload"])
    return rows


def _send_soon() -> None:
    from django_q.tasks import async_task

    try:
        async_task("governance.tasks.deliver_webhooks")
    except Exception:  # noqa: BLE001 — the schedule sends it within a minute anyway
        logger.exception("could not queue the webhook delivery task; the schedule will send it")


# -- sending -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    ok: bool
    status: int | None
    error: str
    ms: int


def deliver_due(*, now: datetime | None = None, limit: int = BATCH) -> dict[str, int]:
    """Send every delivery that is due (claimed one at a time, so two workers never send one twice)."""
    counts = {"delivered": 0, "retrying": 0, "failed": 0}
    for _ in range(limit):
        delivery = _claim(now or timezone.now())
        if delivery is None:
            break
        counts[_attempt(delivery, now)] += 1
    return counts


def _claim(now: datetime) -> WebhookDelivery | None:
    """Take one due delivery (or one a dead worker left claimed) by compare-and-set on its state."""
    stale = now - timedelta(seconds=CLAIM_SECONDS)
    due = WebhookDelivery.objects.filter(Q(status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now)
                                         | Q(status=WebhookDelivery.Status.SENDING, claimed_at__lt=stale))  # fmt: skip
    for pk, status, claimed in due.order_by("next_attempt_at", "pk").values_list("pk", "status", "claimed_at")[:5]:
        if WebhookDelivery.objects.filter(pk=pk, status=status, claimed_at=claimed).update(
            status=WebhookDelivery.Status.SENDING, claimed_at=now
        ):
            return WebhookDelivery.objects.select_related("webhook").get(pk=pk)
    return None


def _attempt(delivery: WebhookDelivery, now: datetime | None) -> str:
    hook = delivery.webhook
    sent = send(hook.url, hook.secret, delivery.event, delivery.pk, delivery.payload)
    delivery.attempts += 1
    delivery.last_status, delivery.last_error, delivery.last_ms = sent.status, sent.error[:300], sent.ms
    now = now or timezone.now()
    if sent.ok:
        delivery.status, delivery.delivered_at = WebhookDelivery.Status.DELIVERED, now
        outcome = "delivered"
    else:
        wait = rules.retry_after(delivery.attempts)
        if wait is None or delivery.event == rules.PING:
            delivery.status, outcome = WebhookDelivery.Status.FAILED, "failed"
        else:
            delivery.status, outcome = WebhookDelivery.Status.PENDING, "retrying"
            delivery.next_attempt_at = now + timedelta(seconds=wait)
    delivery.save(update_fields=["attempts", "last_status", "last_error", "last_ms", "status", "delivered_at",
                                 "next_attempt_at"])  # fmt: skip
    return outcome


def send(url: str, secret: str, event: str, delivery_id: int, payload: dict) -> Sent:
    """One signed POST, to an address checked now; never raises."""
    started = time.perf_counter()

    def took() -> int:
        return int((time.perf_counter() - started) * 1000)

    try:
        scheme, host, port = rules.check_url(url)
        address = resolve_checked(host, port)
    except rules.WebhookRefused as error:
        return Sent(False, None, f"refused: {error}", took())
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    timestamp = int(time.time())
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "X-Tideline-Event": event,
               "X-Tideline-Delivery": str(delivery_id), "X-Tideline-Signature": rules.sign(secret, timestamp, body),
               "Host": host if port in (80, 443) else f"{host}:{port}"}  # fmt: skip
    connection = _PinnedConnection(scheme, host, address, port, _timeout())
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)
        status = response.status
    except (OSError, http.client.HTTPException, ssl.SSLError) as error:
        return Sent(False, None, f"{type(error).__name__}: {error}"[:300], took())
    finally:
        connection.close()
    if 200 <= status < 300:
        return Sent(True, status, "", took())
    return Sent(False, status, f"answered {status}", took())


class _PinnedConnection:
    """An HTTP(S) connection to a checked address, speaking to `host` (Host header, TLS name)."""

    def __init__(self, scheme: str, host: str, address: str, port: int, timeout: float) -> None:
        if scheme == "https":
            context = ssl.create_default_context()
            self._conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
        else:
            self._conn = http.client.HTTPConnection(host, port, timeout=timeout)
        conn, pinned = self._conn, address

        def connect() -> None:
            sock = socket.create_connection((pinned, port), timeout)
            if scheme == "https":
                sock = context.wrap_socket(sock, server_hostname=host)
            conn.sock = sock

        self._conn.connect = connect

    def request(self, *args, **kwargs) -> None:
        self._conn.request(*args, **kwargs)

    def getresponse(self):
        return self._conn.getresponse()

    def close(self) -> None:
        self._conn.close()


def recent_deliveries(workspace: Workspace, limit: int = 50) -> list[WebhookDelivery]:
    return list(WebhookDelivery.objects.filter(webhook__workspace=workspace).select_related("webhook")[:limit])


def prune(*, days: int = 30) -> int:
    """Forget deliveries older than `days` that are done (delivered or given up)."""
    cutoff = timezone.now() - timedelta(days=days)
    done = (WebhookDelivery.Status.DELIVERED, WebhookDelivery.Status.FAILED)
    return WebhookDelivery.objects.filter(created_at__lt=cutoff, status__in=done).delete()[0]


# -- memory's signals (inside the mutation that made the change) --------------------------------------------------


def on_facts_deleted(sender, *, workspace: Workspace, memory_ids, kind: str = "", mutation=None, **kwargs) -> None:
    if kind == "purged":
        emit(workspace, "purge", facts=len(memory_ids), hard=True,
             revision=getattr(mutation, "revision", None))  # fmt: skip


def on_facts_retracted(sender, *, workspace: Workspace, memory_ids, mutation=None, **kwargs) -> None:
    emit(workspace, "purge", facts=len(memory_ids), hard=False, revision=getattr(mutation, "revision", None))


def on_origin_shredded(sender, *, workspace: Workspace, origin_key: str, memory_ids, mutation=None, **kwargs) -> None:
    emit(workspace, "shred", origin=origin_key, facts=len(memory_ids), revision=getattr(mutation, "revision", None))
