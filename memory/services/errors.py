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


# PostgreSQL's SQLSTATE for "cannot execute … in a read-only transaction".
READ_ONLY_SQLSTATE = "25006"
READ_ONLY_PHRASES = ("readonly database", "read-only database", "read-only transaction", "read only transaction")


def is_read_only_error(error: BaseException) -> bool:
    """Whether a database error says the database accepts no writes (SQLite or PostgreSQL): a
    deployment state (a replica, a read-only file, maintenance), not a bug, for every interface."""
    from django.db import DatabaseError

    if not isinstance(error, DatabaseError):
        return False
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) == READ_ONLY_SQLSTATE or getattr(cause, "pgcode", None) == READ_ONLY_SQLSTATE:
        return True
    text = str(error).lower()
    return any(phrase in text for phrase in READ_ONLY_PHRASES)
