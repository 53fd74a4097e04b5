"""The record model: enumerations, segment defaults, origins and small helpers (ENGINE-SPEC §1).

Pure Python: no Django. Everything else in the engine and the storage layer takes its vocabulary
from here, so a value that is not listed here is not a value Tideline accepts.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

SEGMENTS = ("identity", "correction", "relationship", "preference", "project", "knowledge", "context")
TIERS = ("short", "long", "permanent")
# `held`: written but waiting for a reviewer's verdict; invisible to recall until admitted (ENGINE-SPEC Decision 17).
LIFECYCLES = ("active", "archived", "pruned", "held")
STATUSES = ("asserted", "provisional", "confirmed", "disputed", "retracted")
SOURCE_TYPES = (
    "user_instruction",
    "owner_message",
    "channel_message",
    "tool_output",
    "retrieved_document",
    "compaction",
    "extraction",
    "dream",
)
MODALITIES = ("text", "audio", "image", "video", "document")
CLASSIFICATIONS = ("PUBLIC", "INTERNAL", "PII")
DEFAULT_CLASSIFICATION = "INTERNAL"
LINK_KINDS = (
    "supersedes",
    "transition",
    "corrects",
    "derived_from",
    "supports",
    "causes",
    "caused_by",
    "part_of",
    "precedes",
    "follows",
    "enables",
    "blocks",
    "co_constrains",
    "located_at",
    "uses",
    "works_on",
    "contrasts_with",
    "contradicts",
    "relates_to",
    "same_topic",
    "relates",
)
TRANSITION_KINDS = ("supersedes", "transition", "corrects")

# Owner-only segments: an untrusted writer may never author or overwrite these (ENGINE-SPEC §1.5, §2 step 3).
PROTECTED_SEGMENTS = frozenset({"identity", "preference", "correction"})
UNTRUSTED_SOURCE_TYPES = frozenset({"extraction", "compaction", "tool_output", "retrieved_document"})

MAX_FACT_CONTENT_CHARS = 1000
DEDUP_SIMILARITY = 0.85


@dataclass(frozen=True)
class SegmentDefaults:
    tier: str
    importance: float
    decay_rate: float
    specificity: int


SEGMENT_DEFAULTS: dict[str, SegmentDefaults] = {
    "identity": SegmentDefaults("permanent", 0.85, 0.01, 5),
    "correction": SegmentDefaults("long", 0.80, 0.015, 5),
    "relationship": SegmentDefaults("long", 0.75, 0.02, 3),
    "preference": SegmentDefaults("long", 0.70, 0.02, 5),
    "project": SegmentDefaults("long", 0.65, 0.025, 3),
    "knowledge": SegmentDefaults("long", 0.60, 0.03, 1),
    "context": SegmentDefaults("short", 0.40, 0.08, 1),
}

# Recall trust weight per source type (ENGINE-SPEC §1.5). `None` is a legacy record: trusted.
RECALL_TRUST = {
    None: 1.0,
    "user_instruction": 1.0,
    "owner_message": 1.0,
    "extraction": 0.9,
    "dream": 0.85,
    "compaction": 0.85,
    "channel_message": 0.8,
    "tool_output": 0.65,
    "retrieved_document": 0.6,
}


def is_untrusted_source(source_type: str | None) -> bool:
    """True only for the four untrusted source types; absent (legacy) is trusted."""
    return source_type in UNTRUSTED_SOURCE_TYPES


def trust_class(source_type: str | None) -> str:
    return "untrusted" if is_untrusted_source(source_type) else "trusted"


def trust_rank(source_type: str) -> tuple[bool, float]:
    """How far a named source type is trusted, for "never more than …" comparisons: first its trust
    class (a trusted type outranks every untrusted one, whatever the recall weights), then its recall
    weight. owner_message and user_instruction rank alike; retrieved_document lowest."""
    if source_type not in SOURCE_TYPES:
        raise ValueError(f"unknown source type {shown(source_type)}")
    return (not is_untrusted_source(source_type), RECALL_TRUST[source_type])


def trusted_no_more_than(asked: str, ceiling: str) -> bool:
    """True if a writer speaking as `ceiling` may name `asked` (equally or less trusted)."""
    return trust_rank(asked) <= trust_rank(ceiling)


def clamp_importance(value: Any, fallback: float) -> float:
    """Non-numbers and non-finite numbers fall back; everything else is clamped to [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return fallback
    return min(1.0, max(0.0, float(value)))


_NOT_LETTER_OR_DIGIT = re.compile(r"[\W_]+")


def normalize_subject_key(raw: str | None) -> str | None:
    """Lowercase, collapse every run of non-letters/digits to `_`, drop one leading/trailing `_`.

    `"Home City"`, `"home-city"` and `"home_city"` all become `home_city`. Empty ⇒ None.
    """
    if raw is None or not raw.strip():
        return None
    key = _NOT_LETTER_OR_DIGIT.sub("_", raw.lower())
    if key.startswith("_"):
        key = key[1:]
    if key.endswith("_"):
        key = key[:-1]
    return key or None


def cap_content(content: str) -> str:
    """Trim, then keep the first 1000 characters (the original truncates rather than refusing)."""
    return content.strip()[:MAX_FACT_CONTENT_CHARS]


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def make_memory_id(now_ms: int | None = None) -> str:
    """`mem_<base36 wall-clock ms>_<6 random base36 chars>` (ENGINE-SPEC §1.9)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    return f"mem_{_base36(ms)}_{_base36(secrets.randbits(31)).rjust(6, '0')[:6]}"


# ---------------------------------------------------------------- origins


@dataclass(frozen=True, slots=True)
class Origin:
    """Who wrote a fact: the owner, or one channel peer in one conversation and session."""

    kind: str  # "owner" | "channel"
    channel_id: str = ""
    conversation_id: str = ""
    session_key: str = ""
    account_id: str = ""

    @classmethod
    def owner(cls) -> Origin:
        return cls("owner")

    @property
    def is_owner(self) -> bool:
        return self.kind == "owner"

    @property
    def key(self) -> str:
        """The bucket key every cross-fact operation groups by (ENGINE-SPEC §1.4).

        A JSON array encodes a channel's parts so a `:` or `/` inside one part cannot make two
        origins collide. The order (channel, account, conversation, session) is the original's.
        """
        if self.is_owner:
            return "owner"
        parts = [self.channel_id, self.account_id, self.conversation_id, self.session_key]
        return "channel:" + json.dumps(parts, ensure_ascii=False, separators=(",", ":"))

    def as_created_by(self) -> dict[str, str]:
        """The interchange form (`createdBy`)."""
        if self.is_owner:
            return {"kind": "owner"}
        out = {
            "kind": "channel",
            "channelId": self.channel_id,
            "conversationId": self.conversation_id,
            "sessionKey": self.session_key,
        }
        if self.account_id:
            out["accountId"] = self.account_id
        return out

    def label(self) -> str:
        """Short human form, also accepted by `parse_origin`."""
        if self.is_owner:
            return "owner"
        label = f"channel:{self.channel_id}/{self.conversation_id}/{self.session_key}"
        return f"{label}@{self.account_id}" if self.account_id else label


class OriginError(ValueError):
    pass


def shown(value: Any, limit: int = 60) -> str:
    """A value as an error message quotes it: repr (so control characters show escaped), cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Column limits of the origin columns (memory/models.py): each part, and the bucket key built from them.
MAX_ORIGIN_PART_CHARS = 200
MAX_ORIGIN_KEY_CHARS = 900
# An origin is a privacy boundary shown to people: a part may not hide what it is. Control characters,
# bidirectional overrides/isolates and zero-width characters (Unicode categories Cc and Cf), line and
# paragraph separators and lone surrogates (which no database can store as UTF-8) are refused.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


# The label `channel:CHANNEL/CONVERSATION/SESSION[@ACCOUNT]` names an origin only if no part holds a
# separator that would end it early: `/` nowhere, `@` in none of the first three (an account, last,
# may hold one: an e-mail address). Then every origin has exactly one label and it parses back to it.
_LABEL_SEPARATORS = {"channel": "/@", "conversation": "/@", "session": "/@", "account": "/"}


def check_origin(origin: Origin) -> Origin:
    """Refuse an origin whose parts could not be stored, could masquerade as another, or would give a
    label that names another origin or none; return it. Every way an origin comes in (a label, a
    createdBy object, an Origin a caller built) passes here."""
    import unicodedata

    if origin.kind not in ("owner", "channel"):
        raise OriginError(f"origin kind must be 'owner' or 'channel', got {origin.kind!r}")
    if origin.is_owner:
        return origin
    for name, part in (("channel", origin.channel_id), ("conversation", origin.conversation_id),
                       ("session", origin.session_key), ("account", origin.account_id)):  # fmt: skip
        if not isinstance(part, str):
            raise OriginError(f"origin {name} must be text")
        if not part and name != "account":
            raise OriginError(f"origin {name} is empty: a channel origin names its channel, conversation and session")
        separator = next((ch for ch in _LABEL_SEPARATORS[name] if ch in part), None)
        if separator is not None:
            raise OriginError(f"origin {name} {shown(part)} contains {separator!r}, which separates the parts of an "
                              "origin's label (channel:CHANNEL/CONVERSATION/SESSION@ACCOUNT); use another character")  # fmt: skip
        if len(part) > MAX_ORIGIN_PART_CHARS:
            raise OriginError(f"origin {name} is {len(part)} characters; the limit is {MAX_ORIGIN_PART_CHARS}")
        hidden = next((ch for ch in part if unicodedata.category(ch) in _HIDDEN_CATEGORIES), None)
        if hidden is not None:
            raise OriginError(
                f"origin {name} contains the invisible or control character U+{ord(hidden):04X}; origin ids must be visible text"
            )
        if part != part.strip():
            raise OriginError(f"origin {name} {shown(part)} begins or ends with white space")
    if len(origin.key) > MAX_ORIGIN_KEY_CHARS:
        raise OriginError(f"origin is too long ({len(origin.key)} characters as a key; the limit is {MAX_ORIGIN_KEY_CHARS})")
    return origin


def parse_origin(value: Origin | str | dict | None) -> Origin:
    """Accept an Origin, `"owner"`, `"channel:CHANNEL/CONVERSATION/SESSION[@ACCOUNT]"` or a createdBy dict.

    `None` is the owner (a legacy record without an origin). Anything else is refused: an origin
    is a privacy boundary, so a malformed one must never quietly become the owner.
    """
    if value is None:
        return Origin.owner()
    if isinstance(value, Origin):
        return value
    if isinstance(value, dict):
        return origin_from_created_by(value)
    if not isinstance(value, str):
        raise OriginError(f"origin must be a string, got {type(value).__name__}")
    text = value.strip()
    if text == "owner":
        return Origin.owner()
    if not text.startswith("channel:"):
        raise OriginError(f"unknown origin {shown(value)}: use 'owner' or 'channel:CHANNEL/CONVERSATION/SESSION'")
    parts = text[len("channel:") :].split("/")
    if len(parts) != 3:
        raise OriginError(f"channel origin {shown(value)} needs exactly CHANNEL/CONVERSATION/SESSION, none empty")
    session, _, account = parts[2].partition("@")  # the first '@' after the last '/': no session holds one
    if not (parts[0] and parts[1] and session):
        raise OriginError(f"channel origin {shown(value)} needs exactly CHANNEL/CONVERSATION/SESSION, none empty")
    return check_origin(Origin("channel", parts[0], parts[1], session, account))


def origin_from_created_by(created_by: Any) -> Origin:
    """Read an interchange `createdBy` object; a missing one is the owner (legacy records)."""
    if created_by is None:
        return Origin.owner()
    if not isinstance(created_by, dict):
        raise OriginError("createdBy must be an object")
    kind = created_by.get("kind")
    if kind == "owner":
        return Origin.owner()
    if kind != "channel":
        raise OriginError(f"createdBy.kind must be 'owner' or 'channel', got {shown(kind)}")
    fields = {}
    for name in ("channelId", "conversationId", "sessionKey", "accountId"):
        part = created_by.get(name, "")
        if part is None:
            part = ""
        if not isinstance(part, str):
            raise OriginError(f"createdBy.{name} must be a string")
        fields[name] = part
    return check_origin(
        Origin("channel", fields["channelId"], fields["conversationId"], fields["sessionKey"], fields["accountId"])
    )


_WHITESPACE = re.compile(r"\s+")


def normalize_for_hash(content: str) -> str:
    """The form exact dedup compares: NFKC, case-folded, whitespace collapsed, trailing `.!` dropped.

    "I like tea." and "i  like TEA" are the same fact; "I like tea?" is not (a question differs).
    """
    import unicodedata

    text = unicodedata.normalize("NFKC", content).casefold()
    text = _WHITESPACE.sub(" ", text).strip()
    return text.rstrip(".! ").strip()
