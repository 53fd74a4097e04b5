"""Who is calling and what they may do: bearer tokens, scope, verbs, clearance, limits (issue 17)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

from governance.engine import tokens as rules
from governance.services.tokens import Grant
from memory.engine import records as R


class ApiError(Exception):
    """A refused call: HTTP `status`, a machine `kind`, a human `message`, optional headers."""

    def __init__(self, status: int, kind: str, message: str, *, headers: dict[str, str] | None = None,
                 details: Any = None) -> None:  # fmt: skip
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.headers = headers or {}
        self.details = details

    def payload(self) -> dict[str, Any]:
        error: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


def bearer(request) -> str | None:
    return bearer_value(request.headers.get("Authorization", ""))


def bearer_value(header: str) -> str | None:
    """The token of an `Authorization: Bearer …` header value, or None."""
    scheme, _, value = (header or "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def require(grant: Grant, verb: str) -> None:
    if verb not in grant.verbs:
        raise ApiError(403, "forbidden", f"this token may not {verb} (its verbs: {', '.join(grant.verbs)})")


def acting_origin(grant: Grant, value: Any) -> R.Origin:
    """The origin a call acts for: the one named (which the token must cover) or the token's own."""
    if value is None or value == "":
        origin = grant.scope.default_origin()
        if origin is None:
            raise ApiError(422, "validation", f"this token serves every peer of channel {grant.scope.channel}: "
                                              "name the peer with origin 'channel:C/V/S'")  # fmt: skip
        return origin
    try:
        origin = R.parse_origin(value)
    except R.OriginError as error:
        raise ApiError(422, "validation", str(error)) from error
    if not grant.scope.may_act_for(origin):
        raise ApiError(403, "forbidden", f"this token acts for {grant.scope.label}, not {origin.label()}")
    return origin


def clearance(grant: Grant, asked: Any) -> str:
    if asked is not None and not isinstance(asked, str):
        raise ApiError(422, "validation", "clearance must be PUBLIC, INTERNAL or PII")
    try:
        return rules.capped_clearance(grant.clearance, asked)
    except rules.TokenRuleError as error:
        raise ApiError(422, "validation", str(error)) from error


def throttle(grant: Grant) -> None:
    """A fixed one-minute window per token, counted in the shared cache (every process of a host sees it;
    with TIDELINE_CACHE=database, every host)."""
    limit = int(getattr(settings, "TIDELINE_API_RATE_PER_MINUTE", 600))
    if limit <= 0:
        return
    window = int(time.time() // 60)
    key = f"tideline:api-rate:{grant.token.pk}:{window}"
    if cache.add(key, 1, timeout=90):
        return
    try:
        used = cache.incr(key)
    except ValueError:  # the window expired between add and incr
        cache.add(key, 1, timeout=90)
        return
    if used > limit:
        retry = 60 - int(time.time()) % 60
        raise ApiError(429, "rate_limited", f"this token made more than {limit} calls this minute; retry in {retry} s",
                       headers={"Retry-After": str(retry)})  # fmt: skip
