"""Webhooks, the pure part: which events there are, where a call may go, how it is signed, when it is
tried again.

A webhook is an URL an admin points at a workspace's governance events. Each call is a POST of one
JSON document naming ids and counts (never a fact, a query or a reason), signed the way receivers of
other services' webhooks already check: `X-Tideline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256
of "<t>.<body>" under the webhook's secret>`. A receiver recomputes it (`verify`) and refuses a
stale `t`. A call that fails (no answer within the timeout, a status other than 2xx) is tried again
after 30 s, 1, 2, 4, … minutes, up to `MAX_ATTEMPTS` tries in all, then given up and shown as failed.

Calls go only to public addresses: an URL whose host is, or resolves to, a loopback, private,
link-local, multicast, reserved or unspecified address is refused (unless the deployment allows
private addresses), and the address checked is the one connected to.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from urllib.parse import urlsplit

EVENTS: dict[str, str] = {
    "review.opened": "a review item was opened (a held write, a durable promotion, a contradiction)",
    "review.decided": "a review item was decided, or a decision undone",
    "purge": "facts were purged",
    "shred": "an origin was crypto-shredded",
    "retention.run": "a retention policy ran",
    "proposal.applied": "a proposal was applied",
    "proposal.reverted": "an applied proposal was reverted",
}
PING = "ping"  # the page's "send a test call": not an event one subscribes to

MAX_ATTEMPTS = 8
FIRST_RETRY_SECONDS = 30
MAX_RETRY_SECONDS = 6 * 3600
MAX_URL_LENGTH = 2000
SIGNATURE_TOLERANCE_SECONDS = 300


class WebhookRefused(ValueError):
    """An URL or an address a webhook may not use, in words an admin reads."""


def retry_after(attempts: int) -> float | None:
    """Seconds to wait before the next try after `attempts` failed ones; None when it is given up."""
    if attempts >= MAX_ATTEMPTS:
        return None
    return float(min(FIRST_RETRY_SECONDS * 2 ** (attempts - 1), MAX_RETRY_SECONDS))


def sign(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret: str, header: str, body: bytes, *, now: float, tolerance: float = SIGNATURE_TOLERANCE_SECONDS) -> bool:
    """What a receiver does: the signature matches the body and `t` is recent."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    expected = sign(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an URL a webhook may call, or `WebhookRefused` saying why not."""
    if not isinstance(url, str) or not url.strip():
        raise WebhookRefused("give the URL to call, e.g. https://hooks.example.org/tideline")
    url = url.strip()
    if len(url) > MAX_URL_LENGTH:
        raise WebhookRefused(f"the URL is longer than {MAX_URL_LENGTH} characters")
    if any(ord(ch) < 33 or ord(ch) == 127 for ch in url):
        raise WebhookRefused("the URL holds spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookRefused(f"the URL cannot be read: {error}") from None
    if parts.scheme not in ("https", "http"):
        raise WebhookRefused("the URL must start with https:// (or http://)")
    if not parts.hostname:
        raise WebhookRefused("the URL names no host")
    if parts.username or parts.password:
        raise WebhookRefused("the URL must not carry a user name or password (the signature authenticates each call)")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def address_refusal(address: str, *, allow_private: bool) -> str | None:
    """Why a call must not go to this IP address, or None."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"{address!r} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_unspecified or ip.is_multicast or ip.is_reserved:
        return f"{ip} is not an address a webhook may call"
    if allow_private:
        return None
    if ip.is_loopback:
        return f"{ip} is this machine (loopback)"
    if ip.is_link_local:
        return f"{ip} is a link-local address (cloud metadata services live there)"
    if ip.is_private or not ip.is_global:
        return f"{ip} is a private address"
    return None


def payload(*, delivery_id: int, event: str, workspace: str, occurred_at: str, data: dict) -> dict:
    """The document one call carries: ids and counts only (the caller passes nothing else)."""
    return {"id": delivery_id, "event": event, "workspace": workspace, "occurred_at": occurred_at, "data": data}
