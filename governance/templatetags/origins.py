"""`{{ origin|origin_words }}`: an origin as a person reads it ("the owner", "a peer on slack, …").

Accepts an `Origin`, a stored key (`channel:["slack","T01","C7","s1"]`), a label
(`channel:slack/C7/s1@T01`) or a token's gateway scope (`channel:slack/*`). The exact key or label
stays for experts (behind a "?" on the pages that use this); what cannot be read as an origin is
returned as it is. Pipe the result through `reveal` like any other text a peer chose.
"""

from __future__ import annotations

import re

from django import template

from memory.engine.facts import records as R
from memory.selectors import origin_from_key

register = template.Library()

_GATEWAY = re.compile(r"^channel:([^/@*]+)/\*$")


def as_origin(value) -> R.Origin | None:
    """The origin `value` names (an Origin, a key or a label), or None."""
    if isinstance(value, R.Origin):
        return value
    text = str(value or "").strip()
    if text.startswith("channel:["):
        return origin_from_key(text)
    try:
        return R.parse_origin(text) if text else None
    except R.OriginError:
        return None


@register.filter
def origin_words(value) -> str:
    gateway = _GATEWAY.match(str(value or "").strip()) if not isinstance(value, R.Origin) else None
    if gateway:
        return f"any peer on {gateway.group(1)}"
    origin = as_origin(value)
    if origin is None:
        return str(value or "")
    if origin.is_owner:
        return "the owner"
    words = f"a peer on {origin.channel_id}, conversation {origin.conversation_id}, session {origin.session_key}"
    return f"{words} (account {origin.account_id})" if origin.account_id else words


@register.filter
def origin_short(value) -> str:
    """An origin in few words, for a picker that must fit a phone: "the owner", "any peer on slack",
    or a peer's parts joined by " · " (channel · conversation · session · account)."""
    gateway = _GATEWAY.match(str(value or "").strip()) if not isinstance(value, R.Origin) else None
    origin = None if gateway else as_origin(value)
    if gateway or origin is None or origin.is_owner:
        return origin_words(value)
    return " · ".join(p for p in (origin.channel_id, origin.conversation_id, origin.session_key, origin.account_id) if p)
