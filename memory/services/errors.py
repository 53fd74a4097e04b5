"""Errors a service raises for a refused or invalid request; interfaces turn them into 4xx / exit 2."""

from __future__ import annotations

from typing import Any


class RequestError(Exception):
    """A refused or invalid request, with a machine-readable `kind` and a human message."""

    kind = "invalid_request"

    def __init__(self, message: str, *, kind: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        if kind:
            self.kind = kind
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.details is not None:
            out["details"] = self.details
        return out


class NotFoundError(RequestError):
    kind = "not_found"
