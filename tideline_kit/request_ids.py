"""The id of the request (or task) being served, for logs and for the events it writes.

The site's middleware sets it from a well-formed `X-Request-ID` (a proxy's) or a new one, and says
it back in the response's header; the event log (`memory.services.mutation`) stamps every event a
request wrote with it, and the JSON log format (`tideline_site.logs`) puts it on every line, so an
operator follows one request from the proxy's log to the events it left.
"""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

current: ContextVar[str | None] = ContextVar("tideline_request_id", default=None)

_WELL_FORMED = re.compile(r"[A-Za-z0-9._:-]{8,64}")


def new_id() -> str:
    return uuid.uuid4().hex


def from_header(value: str | None) -> str:
    """A proxy's id when it is one (8–64 letters, digits, `._:-`); a new one otherwise."""
    return value if value and _WELL_FORMED.fullmatch(value) else new_id()
