"""Logging filters for the server log."""

from __future__ import annotations

import logging


class RefusalsInOneLine(logging.Filter):
    """A refused request (403 and the other 4xx Django logs under `django.request`) is one line in
    the server log: the refusal is the expected answer, and its traceback says nothing an operator
    needs. Server errors (5xx) keep theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.exc_info and isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
