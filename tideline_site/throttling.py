"""Login throttling with django-axes: repeated failed logins lock out that username from that address.

Settings live in settings.py (AXES_*); this module holds the two pieces Tideline adapts.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.shortcuts import render


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuses a web login while its username and address are locked out; authenticates no one.

    A login without a request (the test client's `login()`, a shell) is not a web login and
    there is no address to throttle, so it passes to the next backend instead of raising.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request) -> str | None:
    """The address a login came from. Behind a TLS-terminating proxy (TIDELINE_BEHIND_PROXY) every
    request arrives from the proxy, so the client is the last X-Forwarded-For entry, the one the
    proxy itself appended (earlier entries are whatever the client claimed)."""
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR")


def lockout_response(request, original_response=None, credentials=None):
    """The page a locked-out login sees (429): what happened and for how long, never a 500."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": minutes,
               "username": (credentials or {}).get("username") or request.POST.get("username", "")}  # fmt: skip
    return render(request, "registration/locked_out.html", context, status=429)
