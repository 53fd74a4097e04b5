"""Failures of the deployment, not of the request, become a 503 page instead of a 500.

Two such states: the database refuses writes (a read-only file, a replica,
`default_transaction_read_only`; logging in alone writes `last_login` and the session), and the key
store or master key is not the one this database's sealed data belongs to. Both are logged in full
for the operator; the page says what happened without paths or settings, and that nothing was lost.
"""

from __future__ import annotations

import logging

from django.shortcuts import render

from memory import sealing
from memory.services.errors import is_read_only_error

logger = logging.getLogger(__name__)

KEY_STORE_MESSAGE = (
    "This server's key store or master key does not match its database, so memory can be neither read "
    "nor written. Nothing was changed. An administrator can see the cause with `manage.py check`."
)


class ServiceUnavailableMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, sealing.KeyStoreMismatchError):
            logger.error("refused a console request: %s", exception.message)
            context = {"title": "Memory is unavailable", "message": KEY_STORE_MESSAGE}
            return render(request, "error.html", context, status=503)
        if is_read_only_error(exception):
            logger.error("the database refused a write (read-only): %s", exception)
            response = render(request, "503.html", status=503)
            response["Retry-After"] = "300"
            return response
        return None
