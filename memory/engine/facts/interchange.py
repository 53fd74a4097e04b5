"""The original engine's `memory/facts.jsonl` record format (ENGINE-SPEC §1.7), read and written losslessly.

`parse_record` validates one decoded JSON object and returns an `InterchangeRecord` (plain data,
timestamps as epoch ms); `render_record` turns one back into a dict with the original writer's key
order. Keys with no column of their own (an `embedding`, keys a later engine version added) travel
in `extra`, and keys a record lacked but storage needs (a legacy line without `tier`, say) are
remembered in `absent` so that export leaves them out again: import → export reproduces every record.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from memory.engine.facts import fields as F
from memory.engine.facts import jsonbody
from memory.engine.facts import records as R
from memory.engine.facts import validation as V
from memory.engine.facts.fields import REQUIRED
from memory.engine.writes.gate import FactValidationError

# The original writer's key order (memory.engine.facts.fields); keys a later mutation added come at
# the end in any order, Tideline's own additions (classification, intentScope) last.
KEY_ORDER = F.jsonl_key_order()
_RECORD_FIELDS = F.fields_for("interchange")
COLUMN_KEYS = frozenset(spec.jsonl for spec in _RECORD_FIELDS if spec.jsonl and not spec.jsonl_tail)
_TAIL_KEYS = frozenset(spec.jsonl for spec in _RECORD_FIELDS if spec.jsonl_tail)
# Keys storage always has a value for; when a line lacks one we fill it in and remember that.
DEFAULTED_KEYS = tuple(spec.jsonl for spec in _RECORD_FIELDS if spec.jsonl_filled)
# Optional keys whose explicit null (or empty list/object) is remembered, so it comes back as written.
_EMPTY_REMEMBERED = tuple(spec.jsonl for spec in _RECORD_FIELDS
                          if spec.jsonl and not spec.jsonl_tail and spec.type in (list, dict))  # fmt: skip
_NULL_REMEMBERED = tuple(spec.jsonl for spec in _RECORD_FIELDS
                         if spec.jsonl and not spec.jsonl_tail and not spec.jsonl_filled
                         and spec.default is not REQUIRED and spec.type not in (list, dict))  # fmt: skip


_SURROGATE = re.compile(r"[\ud800-\udfff]")


class InterchangeError(ValueError):
    """A record that cannot be imported, with the reason in words."""


@dataclass
class InterchangeLink:
    kind: str
    target: str
    reason: str | None = None
    strength: int | None = None


@dataclass
class InterchangeRecord:
    memory_id: str
    content: str
    segment: str
    tier: str
    importance: float
    decay_rate: float
    access_count: int
    last_accessed_at: int | float
    created_at: int | float
    lifecycle: str
    origin: R.Origin
    origin_recorded: bool = True
    source_turn: str | None = None
    supersedes: list[str] = field(default_factory=list)
    source_type: str | None = None
    links: list[InterchangeLink] = field(default_factory=list)
    valid_from: int | float | None = None
    valid_to: int | float | None = None
    confidence: float | None = None
    status: str | None = None
    source_pointers: list[str] = field(default_factory=list)
    modality: str | None = None
    media_pointer: str | None = None
    subject_key: str | None = None
    metadata: dict | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)
    # Tideline's own additions (ENGINE-SPEC §1.7, Decision 21); written back under these keys only when not default.
    classification: str = R.DEFAULT_CLASSIFICATION
    intent_scope: str | None = None


def decode_line(line: str | bytes) -> dict | None:
    """Decode one line; None for a blank line. Raises InterchangeError for anything unusable.

    A line may arrive as bytes (standard input, a file read as bytes), so one line that is not
    UTF-8 is refused on its own instead of refusing the whole file."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InterchangeError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    text = line.strip()
    if not text:
        return None
    try:
        obj = jsonbody.loads(text)  # a record nests a few levels; metadata nested hundreds deep would
    except json.JSONDecodeError as exc:  # break whatever walks it later (export, the JSON column)
        raise InterchangeError(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except jsonbody.JsonTooDeep as exc:
        raise InterchangeError(str(exc)) from exc
    except ValueError as exc:  # e.g. an integer literal longer than Python converts
        raise InterchangeError(f"not usable JSON ({exc})") from exc
    if not isinstance(obj, dict):
        raise InterchangeError(f"expected a JSON object, got {type(obj).__name__}")
    if _holds_lone_surrogate(obj):
        # JSON can spell one (\\ud800) but no UTF-8 file or database can hold it: export would fail.
        raise InterchangeError("holds an unpaired surrogate escape (not valid Unicode text)")
    return obj


def _holds_lone_surrogate(obj: Any) -> bool:
    """True if any string (key or value) anywhere in the decoded object has an unpaired surrogate."""
    pending = [obj]
    while pending:  # iterative: json.loads accepts nesting deeper than a recursive walk would
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _number(obj: dict, key: str, *, low: float | None = None, high: float | None = None) -> float | int | None:
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    # An int is exact (json gives arbitrarily large ones, which math.isfinite cannot convert).
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
        raise InterchangeError(f"{key} must be a number, got {R.shown(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise InterchangeError(f"{key} must be between {low} and {high}, got {R.shown(value)}")
    return value


def _choice(obj: dict, key: str, allowed: tuple[str, ...]) -> str | None:
    if key not in obj or obj[key] is None:
        return None
    value = obj[key]
    if value not in allowed:
        raise InterchangeError(f"unknown {key} {R.shown(value)} (expected one of: {', '.join(allowed)})")
    return value


def _string(obj: dict, key: str) -> str | None:
    if key not in obj or obj[key] is None:
        return None
    if not isinstance(obj[key], str):
        raise InterchangeError(f"{key} must be a string")
    return obj[key]


def _string_list(obj: dict, key: str) -> list[str]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InterchangeError(f"{key} must be a list of strings")
    return list(value)


def _links(obj: dict) -> list[InterchangeLink]:
    raw = obj.get("links")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InterchangeError("links must be a list")
    out = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("target"), str) or not item["target"]:
            raise InterchangeError(f"links[{index}] needs a string target")
        kind = item.get("kind")
        if kind not in R.LINK_KINDS:
            raise InterchangeError(f"links[{index}] has unknown kind {R.shown(kind)}")
        reason = item.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise InterchangeError(f"links[{index}].reason must be a string")
        strength = item.get("strength")
        if strength is not None and (isinstance(strength, bool) or strength not in (1, 2, 3, 4, 5)):
            raise InterchangeError(f"links[{index}].strength must be 1 to 5")
        out.append(InterchangeLink(kind, item["target"], reason, int(strength) if strength is not None else None))
    return out


def parse_record(obj: dict, *, now_ms: float | None = None) -> InterchangeRecord:
    """Validate one facts.jsonl record. Fail closed: unknown segments and source types are refused.

    Every field also passes the write path's own rules (`memory.engine.facts.validation`): ranges, id
    shape, column lengths, characters; `now_ms` (default: the wall clock) bounds `createdAt`."""
    record = _parse(obj)
    try:
        record.content = V.check_fields(
            content=record.content, source_type=record.source_type, origin=record.origin,
            memory_id=record.memory_id, subject_key=record.subject_key, intent_scope=record.intent_scope,
            source_turn=record.source_turn, media_pointer=record.media_pointer,
            source_pointers=record.source_pointers, supersedes=record.supersedes,
            links=[(link.kind, link.target, link.reason) for link in record.links],
            importance=record.importance, confidence=record.confidence, decay_rate=record.decay_rate,
            access_count=record.access_count, created_at_ms=record.created_at,
            last_accessed_at_ms=record.last_accessed_at, valid_from_ms=record.valid_from,
            valid_to_ms=record.valid_to, now_ms=time.time() * 1000 if now_ms is None else now_ms,
        )  # fmt: skip
    except FactValidationError as exc:
        raise InterchangeError(exc.message) from exc
    return record


def _parse(obj: dict) -> InterchangeRecord:
    memory_id, content = obj.get("memoryId"), obj.get("content")
    if not isinstance(memory_id, str) or not memory_id.strip():
        raise InterchangeError("memoryId must be a non-empty string")
    if not isinstance(content, str) or not content.strip():
        raise InterchangeError("content must be a non-empty string")
    if len(content) > R.MAX_FACT_CONTENT_CHARS:
        raise InterchangeError(f"content is {len(content)} characters; the limit is {R.MAX_FACT_CONTENT_CHARS}")

    segment = _choice(obj, "segment", R.SEGMENTS) or "context"
    defaults = R.SEGMENT_DEFAULTS[segment]
    created_at = _number(obj, "createdAt", low=0)
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InterchangeError("metadata must be an object")
    try:
        origin = R.origin_from_created_by(obj.get("createdBy"))
    except R.OriginError as exc:
        raise InterchangeError(str(exc)) from exc
    if not origin.is_owner and not (origin.channel_id and origin.conversation_id and origin.session_key):
        raise InterchangeError("a channel createdBy needs channelId, conversationId and sessionKey")
    access_count = _number(obj, "accessCount", low=0)
    if access_count is not None and access_count != int(access_count):
        raise InterchangeError("accessCount must be a whole number")
    subject_key = _string(obj, "subjectKey")

    record = InterchangeRecord(
        memory_id=memory_id,
        content=content,
        segment=segment,
        tier=_choice(obj, "tier", R.TIERS) or defaults.tier,
        importance=_number(obj, "importance", low=0, high=1) if obj.get("importance") is not None else defaults.importance,
        decay_rate=_number(obj, "decayRate", low=0) if obj.get("decayRate") is not None else defaults.decay_rate,
        access_count=int(access_count or 0),
        created_at=created_at if created_at is not None else 0,
        last_accessed_at=_number(obj, "lastAccessedAt", low=0) or (created_at or 0),
        # A line without lifecycle is kept but is never "active" (ENGINE-SPEC §1.7): archive it.
        lifecycle=_choice(obj, "lifecycle", R.LIFECYCLES) or "archived",
        origin=origin,
        origin_recorded="createdBy" in obj and obj["createdBy"] is not None,
        source_turn=_string(obj, "sourceTurn"),
        supersedes=_string_list(obj, "supersedes"),
        source_type=_choice(obj, "sourceType", R.SOURCE_TYPES),
        links=_links(obj),
        valid_from=_number(obj, "validFrom"),
        valid_to=_number(obj, "validTo"),
        confidence=_number(obj, "confidence", low=0, high=1),
        status=_choice(obj, "status", R.STATUSES),
        source_pointers=_string_list(obj, "sourcePointers"),
        modality=_choice(obj, "modality", R.MODALITIES),
        media_pointer=_string(obj, "mediaPointer"),
        subject_key=subject_key,
        metadata=metadata,
        classification=_choice(obj, "classification", R.CLASSIFICATIONS) or R.DEFAULT_CLASSIFICATION,
        intent_scope=_string(obj, "intentScope"),
    )
    record.absent = [key for key in DEFAULTED_KEYS if obj.get(key) is None]
    record.extra = {key: value for key, value in obj.items() if key not in COLUMN_KEYS and key not in _TAIL_KEYS}
    # Explicit nulls and empty optional lists are remembered so they come back exactly as written.
    for key in _EMPTY_REMEMBERED:
        if key in obj and obj[key] in (None, [], {}):
            record.extra[key] = obj[key]
    for key in _NULL_REMEMBERED:
        if key in obj and obj[key] is None:
            record.extra[key] = None
    return record


def render_record(record: InterchangeRecord) -> dict[str, Any]:
    """The facts.jsonl dict for a record, keys in the original writer's order."""
    out: dict[str, Any] = {}
    for spec in _RECORD_FIELDS:
        if spec.jsonl and not spec.jsonl_tail:
            value = _RENDER.get(spec.name, _as_is)(record, getattr(record, spec.name))
            if value is not None:
                out[spec.jsonl] = value
    for key in record.absent:
        out.pop(key, None)
    for key, value in record.extra.items():
        if key in out and key != "embedding":
            continue  # a live column wins over a remembered empty or null
        out[key] = value
    for spec in _RECORD_FIELDS:  # Tideline's additions: only when not the default
        if spec.jsonl_tail and getattr(record, spec.name) and getattr(record, spec.name) != spec.default:
            out[spec.jsonl] = getattr(record, spec.name)
    order = {key: index for index, key in enumerate(KEY_ORDER)}
    return dict(sorted(out.items(), key=lambda item: order.get(item[0], len(order))))


def _as_is(record: InterchangeRecord, value: Any) -> Any:
    return value


def _or_none(record: InterchangeRecord, value: Any) -> Any:
    return value or None  # an empty list or object is left out


# How a field's value is written where it is not written as is.
_RENDER: dict[str, Any] = {
    "supersedes": _or_none,
    "source_pointers": _or_none,
    "metadata": _or_none,
    "origin": lambda record, origin: origin.as_created_by() if record.origin_recorded else None,
    "links": lambda record, links: [_render_link(link) for link in links] or None,
}


def _render_link(link: InterchangeLink) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": link.kind, "target": link.target}
    if link.reason is not None:
        out["reason"] = link.reason
    if link.strength is not None:
        out["strength"] = link.strength
    return out
