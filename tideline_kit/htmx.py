"""HTMX helpers shared by the console's views."""

from __future__ import annotations

from django.http import HttpRequest


def wants_partial(request: HttpRequest) -> bool:
    """True for an HTMX request that swaps a fragment (not a boosted navigation or a history restore)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request
