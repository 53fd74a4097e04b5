"""API tokens: made and revoked by admins, checked on every agent call (docs/SECURITY.md).

Making or revoking a token is one mutation of its workspace with a `tokens_changed` event (name,
scope, verbs, clearance, source, expiry; never the token). Authenticating is a lookup by the token's
SHA-256; a revoked, expired or unknown token is refused in the same words, so a caller learns
nothing about which tokens exist. Use is counted on the token row (last used, calls, reads), not
as events: an agent recalls on every turn.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from governance.engine import tokens as rules
from governance.models import ApiToken
from governance.services.acting import Actor, actor_text, require_role
from memory.models import Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.mutation import mutate
from memory.services.recall.reinforcement import flush_at_exit, flush_seconds
from tideline_kit import telemetry

log = logging.getLogger("tideline.tokens")

NAME_MAX = 100
MAX_EXPIRY_DAYS = 3650


class TokenRefused(RequestError):
    """No valid token (HTTP 401)."""

    def __init__(self, message: str = "a valid API token is required (Authorization: Bearer tl_…)") -> None:
        super().__init__(message, kind="unauthorized")


@dataclass(frozen=True)
class Grant:
    """An authenticated token as a call uses it."""

    token: ApiToken
    workspace: Workspace
    scope: rules.Scope
    verbs: tuple[str, ...]
    clearance: str
    source: str = rules.DEFAULT_SOURCE  # the source type its writes are stored with, at most

    @property
    def actor(self) -> str:
        """Who the event log names for what this token changes."""
        return str(Actor("token", self.token.name))

    def to_dict(self) -> dict:
        return {"workspace": self.workspace.name, "name": self.token.name, "origin": self.scope.label,
                "verbs": list(self.verbs), "clearance": self.clearance, "source": self.source,
                "expires_at": self.token.expires_at.isoformat() if self.token.expires_at else None}  # fmt: skip


@telemetry.operation("governance.token.create")
def create_token(workspace: Workspace, *, user=None, name: str, origin: str, verbs, clearance: str | None = None,
                 source: str | None = None, expires_days: float | None = None, actor: str,
                 now: datetime | None = None) -> tuple[ApiToken, str]:  # fmt: skip
    """Make a token; returns (row, the token itself — shown once, never stored). `source`: the source
    type of what speaks through it (default tool_output, untrusted)."""
    require_role(user, workspace, "manage_tokens", "manage API tokens")
    actor = actor_text(actor)
    name = (name or "").strip()
    if not name or len(name) > NAME_MAX or any(not ch.isprintable() for ch in name):
        raise RequestError(f"a token needs a name of 1 to {NAME_MAX} visible characters", kind="validation")
    try:
        scope = rules.parse_scope(origin)
        verb_list = rules.parse_verbs(verbs)
        level = rules.parse_clearance(clearance)
        source_type = rules.parse_source(source, scope)
    except rules.TokenRuleError as error:
        raise RequestError(str(error), kind="validation") from error
    if expires_days is not None and not 0 < expires_days <= MAX_EXPIRY_DAYS:
        raise RequestError(f"--expires must be between 1 and {MAX_EXPIRY_DAYS} days", kind="validation")
    secret = rules.new_secret()
    try:
        with mutate(workspace, actor=actor, now=now) as m:
            expires = m.now + timedelta(days=expires_days) if expires_days else None
            token = ApiToken.objects.create(
                workspace=m.workspace, name=name, prefix=rules.shown_prefix(secret), digest=rules.digest(secret),
                scope=scope.label, verbs=list(verb_list), clearance=level, source_type=source_type, expires_at=expires,
                created_at=m.now, created_by=actor,
            )  # fmt: skip
            m.record("tokens_changed", change="created", token=name, origin=scope.label, verbs=list(verb_list),
                     clearance=level, source=source_type, expires_at=expires.isoformat() if expires else None)  # fmt: skip
    except IntegrityError as error:
        raise RequestError(f"workspace {workspace.name} already has a token named {name!r}", kind="conflict") from error
    return token, secret


def list_tokens(workspace: Workspace) -> list[ApiToken]:
    return list(ApiToken.objects.filter(workspace=workspace).order_by("revoked_at", "-created_at", "-id"))


@telemetry.operation("governance.token.revoke")
def revoke_token(workspace: Workspace, name: str, *, user=None, actor: str, now: datetime | None = None) -> ApiToken:
    """Revoke by name; revoking a revoked token changes nothing and says so (no second event)."""
    require_role(user, workspace, "manage_tokens", "manage API tokens")
    actor = actor_text(actor)
    with mutate(workspace, actor=actor, now=now) as m:
        token = ApiToken.objects.select_for_update().filter(workspace=m.workspace, name=name).first()
        if token is None:
            raise NotFoundError(f"workspace {workspace.name} has no token named {name!r}")
        if token.revoked_at is None:
            token.revoked_at, token.revoked_by = m.now, actor
            token.save(update_fields=["revoked_at", "revoked_by"])
            m.record("tokens_changed", change="revoked", token=name, origin=token.scope)
    with _grants_lock:
        _grants.pop(token.digest, None)
    return token


# A process remembers a valid token for GRANT_SECONDS, so an agent's calls do not each pay a lookup;
# a revocation reaches every process within that time (at once in the process that revoked it).
GRANT_SECONDS = 2.0
_grants: dict[str, tuple[float, Grant]] = {}
_grants_lock = threading.Lock()


def authenticate(secret: str | None, *, now: datetime | None = None) -> Grant:
    """The grant of a valid token; `TokenRefused` for a missing, unknown, revoked or expired one."""
    if not secret or not secret.startswith(rules.PREFIX) or len(secret) > 200:
        raise TokenRefused()
    key = rules.digest(secret)
    moment = now or timezone.now()
    if now is None:
        with _grants_lock:
            cached = _grants.get(key)
        if cached is not None and time.monotonic() - cached[0] < GRANT_SECONDS and _live(cached[1].token, moment):
            return cached[1]
    token = ApiToken.objects.select_related("workspace").filter(digest=key).first()
    if token is None or not _live(token, moment):
        with _grants_lock:
            _grants.pop(key, None)
        raise TokenRefused("this API token is not valid (unknown, revoked or expired)")
    grant = Grant(token, token.workspace, rules.parse_scope(token.scope), tuple(token.verbs), token.clearance,
                  token.source_type)  # fmt: skip
    with _grants_lock:
        if len(_grants) > 10_000:
            _grants.clear()
        _grants[key] = (time.monotonic(), grant)
    return grant


def _live(token: ApiToken, moment: datetime) -> bool:
    return token.revoked_at is None and not (token.expires_at and token.expires_at <= moment)


# Use is counted in the process and written off the request, FLUSH_SECONDS after the first call not
# written yet, every token used since in one transaction (by a short-lived thread, as recall's use
# counts are: memory.services.recall.reinforcement). An agent calls on every turn, and a committed
# UPDATE per call would cost more than the recall it counts; written with the first call of each
# token, it still cost a write a commit of its own (a fifth of its database round trips) whenever
# agents spread over many workspaces. A process that dies hard loses at most that many seconds of
# counts; a normal exit writes them; `flush_use` writes them now. With recall's use counts written
# at once (`TIDELINE_REINFORCE_FLUSH_SECONDS` 0, as the tests run), these are too.
FLUSH_SECONDS = 5.0
_pending: dict[int, list] = {}  # token pk → [calls, reads, last used]
_pending_lock = threading.Lock()
_flush_timer: threading.Timer | None = None


def note_use(grant: Grant, *, reads: int = 0) -> None:
    """Count a call (and its reads) on the token; no event, no lock on the workspace."""
    global _flush_timer
    now = timezone.now()
    at_once = flush_seconds() <= 0
    with _pending_lock:
        entry = _pending.setdefault(grant.token.pk, [0, 0, now])
        entry[0] += 1
        entry[1] += reads
        entry[2] = now
        if not at_once and _flush_timer is None:
            _flush_timer = threading.Timer(FLUSH_SECONDS, _flush_in_thread)
            _flush_timer.daemon = True
            _flush_timer.start()
    if at_once:
        flush_use()


def flush_use() -> int:
    """Write every token's pending counts now, in one transaction; returns how many tokens.

    Rows are updated in pk order, as every process does, so two processes writing at once wait for
    each other instead of deadlocking. Counts the database refuses stay pending for the next try, and
    the error is raised."""
    global _flush_timer
    with _pending_lock:
        pending = sorted((pk, *entry) for pk, entry in _pending.items() if entry[0])
        _pending.clear()
        if _flush_timer is not None:
            _flush_timer.cancel()
            _flush_timer = None
    if not pending:
        return 0
    try:
        with transaction.atomic():
            for pk, calls, reads, last in pending:
                ApiToken.objects.filter(pk=pk).update(use_count=F("use_count") + calls,
                                                      read_count=F("read_count") + reads, last_used_at=last)  # fmt: skip
    except DatabaseError:
        with _pending_lock:
            for pk, calls, reads, last in pending:
                entry = _pending.setdefault(pk, [0, 0, last])
                entry[0], entry[1], entry[2] = entry[0] + calls, entry[1] + reads, max(entry[2], last)
        raise
    return len(pending)


def _flush_in_thread() -> None:
    try:
        flush_use()
    except DatabaseError as error:  # kept pending: the next call's flush, or the exit's, writes them
        log.warning("API token use counts not written yet: %s", error)
    except Exception:  # noqa: BLE001 — counts are lost, never the process; say so once
        log.exception("could not write API token use counts")
    finally:
        connection.close()  # this thread's own connection


flush_at_exit(lambda: bool(_pending), flush_use, "API token use counts")


def forget_use() -> None:
    """Drop pending counts unwritten and remembered grants (tests: rolled-back tokens come back)."""
    global _flush_timer
    with _pending_lock:
        _pending.clear()
        if _flush_timer is not None:
            _flush_timer.cancel()
            _flush_timer = None
    with _grants_lock:
        _grants.clear()


def token_or_404(workspace: Workspace, name: str) -> ApiToken:
    token = ApiToken.objects.filter(workspace=workspace, name=name).first()
    if token is None:
        raise NotFoundError(f"workspace {workspace.name} has no token named {name!r}")
    return token


def status_of(token: ApiToken, now: datetime | None = None) -> str:
    moment = now or timezone.now()
    if token.revoked_at is not None:
        return "revoked"
    if token.expires_at is not None and token.expires_at <= moment:
        return "expired"
    return "active"


def describe(token: ApiToken) -> dict:
    return {
        "name": token.name, "prefix": token.prefix, "origin": token.scope, "verbs": list(token.verbs),
        "clearance": token.clearance, "source": token.source_type, "status": status_of(token),
        "created_at": token.created_at.isoformat(), "created_by": token.created_by,
        "expires_at": token.expires_at.isoformat() if token.expires_at else None,
        "revoked_at": token.revoked_at.isoformat() if token.revoked_at else None,
        "last_used_at": token.last_used_at.isoformat() if token.last_used_at else None,
        "use_count": token.use_count, "read_count": token.read_count,
    }  # fmt: skip
