"""Who is calling and what they may do: bearer tokens, scope, verbs, clearance, limits (docs/SECURITY.md)."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from governance.engine import tokens as rules
from governance.services import api_rate
from governance.services.tokens import Grant
from memory.engine.facts import records as R


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


def acting_source(grant: Grant, value: Any) -> str:
    """The source type a write is stored with: the token's, or a less trusted one the body names.
    422 for `legacy` or an unknown name; 403 for one more trusted than the token's."""
    try:
        return rules.acting_source(grant.source, value)
    except rules.SourceAboveToken as error:
        raise ApiError(403, "forbidden", str(error)) from error
    except rules.TokenRuleError as error:
        raise ApiError(422, "validation", str(error)) from error


def clearance(grant: Grant, asked: Any) -> str:
    if asked is not None and not isinstance(asked, str):
        raise ApiError(422, "validation", "clearance must be PUBLIC, INTERNAL or PII")
    try:
        return rules.capped_clearance(grant.clearance, asked)
    except rules.TokenRuleError as error:
        raise ApiError(422, "validation", str(error)) from error


def throttle(grant: Grant) -> None:
    """A fixed one-minute window per token, counted by one atomic statement in the database (every
    web process and every host on it sees the same count; governance/services/api_rate.py)."""
    limit = int(getattr(settings, "TIDELINE_API_RATE_PER_MINUTE", 600))
    if limit <= 0:
        return
    used = api_rate.count_call(grant.token.pk, int(time.time() // 60))
    if used > limit:
        retry = 60 - int(time.time()) % 60
        raise ApiError(429, "rate_limited", f"this token made more than {limit} calls this minute; retry in {retry} s",
                       headers={"Retry-After": str(retry)})  # fmt: skip
