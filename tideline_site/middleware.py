"""A database that refuses writes (a read-only file, a replica, `default_transaction_read_only`) shows
a "temporarily unavailable" page, not a 500: logging in alone writes `last_login` and the session."""

from __future__ import annotations

import logging

from django.db import DatabaseError
from django.shortcuts import render

logger = logging.getLogger(__name__)

# PostgreSQL's SQLSTATE for "cannot execute … in a read-only transaction".
READ_ONLY_SQLSTATE = "25006"
READ_ONLY_PHRASES = ("readonly database", "read-only database", "read-only transaction", "read only transaction")


def is_read_only_error(error: BaseException) -> bool:
    """Whether a database error says the database accepts no writes (SQLite or PostgreSQL)."""
    if not isinstance(error, DatabaseError):
        return False
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) == READ_ONLY_SQLSTATE or getattr(cause, "pgcode", None) == READ_ONLY_SQLSTATE:
        return True
    text = str(error).lower()
    return any(phrase in text for phrase in READ_ONLY_PHRASES)


class ReadOnlyDatabaseMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_read_only_error(exception):
            return None
        logger.error("the database refused a write (read-only): %s", exception)
        response = render(request, "503.html", status=503)
        response["Retry-After"] = "300"
        return response
