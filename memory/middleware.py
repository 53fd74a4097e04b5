"""Console middleware: a key store that does not match the database shows an error page, not a 500."""

from __future__ import annotations

import logging

from django.shortcuts import render

from memory import sealing

logger = logging.getLogger(__name__)

KEY_STORE_MESSAGE = (
    "This server's key store or master key does not match its database, so memory can be neither read "
    "nor written. Nothing was changed. An administrator can see the cause with `manage.py check`."
)


class KeyStoreMismatchMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, sealing.KeyStoreMismatchError):
            return None
        # The details name paths and settings: for the server's log, not for every console user.
        logger.error("refused a console request: %s", exception.message)
        context = {"title": "Memory is unavailable", "message": KEY_STORE_MESSAGE}
        return render(request, "error.html", context, status=503)
