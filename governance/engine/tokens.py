"""What an API token may do: its origin scope, its verbs and its clearance (docs/SECURITY.md). Pure: no Django.

A token is bound to one workspace and one **scope**:

* `owner` — acts as the workspace's owner;
* `channel:C/V/S[@A]` — acts as that one channel peer (conversation V, session S of channel C);
* `channel:C/*` — any peer of channel C: an auto-recall gateway that serves every conversation of
  one channel, and must name the peer it acts for on every call.

An origin in a request body is refused unless the token may act for it; identity never comes from
the body alone. Verbs: `read` (recall, context, explain, list, get, auto-recall), `write` (write,
feedback, retract) and `manage` (the governance verbs). A token's clearance caps what it may read.

A token also carries its **source**: the source type of what speaks through it (`owner_message` for
the owner's own assistant, `channel_message` for a gateway relaying peers, `tool_output` for a tool
pipeline …; new tokens default to the untrusted `tool_output`). A write that names no source type is
stored as the token's; a write may name a less trusted one, never a more trusted one, and never
`legacy` (no source type: trusted, for importing old records only).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from memory.engine.facts import records as R

VERBS = ("read", "write", "manage")
CLEARANCES = ("PUBLIC", "INTERNAL", "PII")
PREFIX = "tl_"
_SECRET_BYTES = 32  # 256 bits: a hash without salt or stretching is then safe to store (no guessing)
_GATEWAY = re.compile(r"^channel:([^/@*]+)/\*$")


class TokenRuleError(ValueError):
    """A scope, verb list or clearance that no token can have."""


@dataclass(frozen=True)
class Scope:
    """Whom a token acts for: the owner, one peer, or every peer of one channel (`channel` set)."""

    origin: R.Origin | None  # None for a gateway
    channel: str = ""  # the gateway's channel

    @property
    def is_gateway(self) -> bool:
        return self.origin is None

    @property
    def label(self) -> str:
        return f"channel:{self.channel}/*" if self.is_gateway else self.origin.label()

    def may_act_for(self, origin: R.Origin) -> bool:
        if self.is_gateway:
            return not origin.is_owner and origin.channel_id == self.channel
        return origin.key == self.origin.key

    def default_origin(self) -> R.Origin | None:
        """The origin a call acts for when it names none; None for a gateway (it must name one)."""
        return self.origin


def parse_scope(text: str) -> Scope:
    """`owner`, `channel:C/V/S[@A]` or `channel:C/*`; anything else is refused with the forms."""
    value = (text or "").strip()
    gateway = _GATEWAY.match(value)
    if gateway:
        return Scope(None, R.check_origin(R.Origin("channel", gateway.group(1), "x", "x")).channel_id)
    try:
        if "*" in value:  # only the whole conversation and session may be a wildcard: channel:C/*
            raise R.OriginError(f"{value!r} puts '*' where an id belongs")
        return Scope(R.parse_origin(value))
    except R.OriginError as error:
        raise TokenRuleError(f"{error}; a token's origin is 'owner', 'channel:C/V/S' (one peer) or "
                             "'channel:C/*' (any peer of channel C)") from error  # fmt: skip


def parse_verbs(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """`read,write` → ('read', 'write') in canonical order; unknown or no verbs are refused."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    verbs = {part.strip().lower() for part in parts if part and part.strip()}
    unknown = sorted(verbs - set(VERBS))
    if unknown:
        raise TokenRuleError(f"unknown verb {unknown[0]!r}: use read, write and/or manage")
    if not verbs:
        raise TokenRuleError("a token needs at least one verb: read, write or manage")
    return tuple(v for v in VERBS if v in verbs)


def parse_clearance(text: str | None) -> str:
    value = (text or "PII").strip().upper()
    if value not in CLEARANCES:
        raise TokenRuleError(f"unknown clearance {text!r}: use PUBLIC, INTERNAL or PII")
    return value


DEFAULT_SOURCE = "tool_output"
SOURCES = R.SOURCE_TYPES  # every source type the write path knows; `legacy` (none) is not one
LEGACY = "legacy"


class SourceAboveToken(TokenRuleError):
    """A write naming a source type more trusted than its token's."""


OWNER_SOURCES = ("owner_message", "user_instruction")  # the owner's own words: only an owner token speaks them


def parse_source(text: str | None, scope: Scope | None = None) -> str:
    """A token's source: one of SOURCES (default tool_output); `legacy` and unknown names are refused,
    and so is the owner's voice (OWNER_SOURCES) for a token that acts for channel peers."""
    value = (text or DEFAULT_SOURCE).strip().lower()
    if value == LEGACY:
        raise TokenRuleError("a token cannot have source 'legacy' (no source type, trusted): it is for importing "
                             f"old records only; use one of {', '.join(SOURCES)}")  # fmt: skip
    if value not in SOURCES:
        raise TokenRuleError(f"unknown source {R.shown(text)}: use one of {', '.join(SOURCES)}")
    if value in OWNER_SOURCES and scope is not None and (scope.is_gateway or not scope.origin.is_owner):
        raise TokenRuleError(f"a token for {scope.label} speaks for channel peers, never as the owner: its source "
                             f"cannot be {value}; use channel_message, or an untrusted source such as tool_output")  # fmt: skip
    return value


def acting_source(token_source: str, asked: object) -> str:
    """The source type a write through a token is stored with: the token's when the write names none;
    the one named when it is equally or less trusted; SourceAboveToken when it is more trusted;
    TokenRuleError for `legacy`, an unknown name or a non-string."""
    if asked is None or asked == "":
        return token_source
    if not isinstance(asked, str):
        raise TokenRuleError(f"source_type must be one of {', '.join(SOURCES)}")
    if asked == LEGACY:
        raise TokenRuleError("source_type 'legacy' (no source type, trusted) is for importing old records only: "
                             f"name the source of this write, or leave it out to write as this token ({token_source})")  # fmt: skip
    if asked not in SOURCES:
        raise TokenRuleError(f"unknown source_type {R.shown(asked)}: use one of {', '.join(SOURCES)}")
    if not R.trusted_no_more_than(asked, token_source):
        raise SourceAboveToken(f"this token writes as {token_source}: a write may name a less trusted source type, "
                               f"never a more trusted one such as {asked}")  # fmt: skip
    return asked


def capped_clearance(token_clearance: str, asked: str | None) -> str:
    """The clearance a call reads with: what it asks for, never above the token's."""
    if not asked:
        return token_clearance
    asked = parse_clearance(asked)
    return asked if CLEARANCES.index(asked) <= CLEARANCES.index(token_clearance) else token_clearance


def new_secret() -> str:
    """A fresh token: `tl_` and 43 URL-safe characters (256 random bits)."""
    return PREFIX + secrets.token_urlsafe(_SECRET_BYTES)


def digest(secret: str) -> str:
    """What is stored: SHA-256 of the token. The token carries 256 random bits, so no one can
    guess it from the digest, and a lookup by digest needs no per-token salt."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def shown_prefix(secret: str) -> str:
    """The first characters, kept to tell tokens apart in lists (never enough to use)."""
    return secret[:10]
