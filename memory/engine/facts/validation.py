"""What a stored fact may hold: ranges, id shape, lengths and characters (pure; no Django).

One validator for every way in (`Tideline.add`, `tideline add`, `tideline import`, gated or not), so a
value the database would refuse (PostgreSQL `DataError`: an over-long column, a NUL, a lone surrogate,
an integer past 2³¹) or a value that breaks the console (an id with `/` has no URL) is refused here,
as a `FactValidationError` naming the field, before anything is written.

Decisions, and why:

* **Ids** (a fact's own, `supersedes`, link targets): ASCII letters, digits, `_`, `-`, `.` and `:`,
  starting with a letter, digit or `_`, at most 128 characters (the column). That covers the
  original engine's `mem_<base36>_<base36>` and every id in its gold sets (`h-diet`, `rc-team`),
  and every character is safe in a URL path segment as is. The original accepted any string
  (ENGINE-SPEC §1.9); ids with `/`, `?`, `#`, `%`, spaces or control characters are refused instead,
  because the console names facts in URLs.
* **Moments** are epoch milliseconds from 1970 up to the last one a datetime can hold (year 9999).
  `createdAt` and `lastAccessedAt` record something that already happened, so they may be at most
  one day ahead of the clock: a day absorbs clock skew and a local time read as UTC (at most 14 h)
  and still refuses a year typo. `validFrom`/`validTo` may lie in the future (a planned change).
* **Decay rate** in [0, 1]. Decay multiplies its speed by (1 + decayRate) (ENGINE-SPEC §3.3); the
  segment defaults are 0.01 to 0.08, so 1 (twice the speed of a rate of 0, 12× the fastest default)
  is already far past anything the engine writes, and the engine never lets a writer choose it.
* **Importance and confidence** in [0, 1] (finite): out-of-range claims are refused, not clamped.
* **Counts** are whole numbers in [0, 2³¹−1] (the column is a 32-bit integer on PostgreSQL).
* **Text**: NUL and lone surrogates are refused everywhere (no database stores them as text).
  Content from an untrusted source (tool output, retrieved documents, compaction, extraction) is
  cleaned of C0 control characters other than tab, newline and carriage return, and of DEL: they
  carry nothing a reader needs, break XML exports and can hide text from a reviewer. A trusted
  writer's own words are kept as written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from memory.engine.facts import records as R
from memory.engine.writes.gate import FactValidationError

MAX_MEMORY_ID_CHARS = 128
# Column limits (memory/models.py) of the plain-text fields a writer supplies.
TEXT_LIMITS = {
    "subjectKey": 200,
    "intentScope": 200,
    "sourceTurn": 200,
    "mediaPointer": 1000,
    "sourcePointers": 1000,  # each pointer
    "link reason": 1000,
}
MAX_COUNT = 2**31 - 1
MAX_DECAY_RATE = 1.0
MAX_EPOCH_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z, the last moment a datetime holds
FUTURE_TOLERANCE_MS = 24 * 60 * 60 * 1000

_MEMORY_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*")
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
# C0 controls except tab, newline and carriage return, plus DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def is_memory_id(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_MEMORY_ID_CHARS and _MEMORY_ID.fullmatch(value) is not None


def check_memory_id(value: Any, field: str = "memoryId") -> str:
    if not isinstance(value, str) or not value:
        raise FactValidationError(f"{field} must be a non-empty string", ("bad_id",))
    if len(value) > MAX_MEMORY_ID_CHARS:
        raise FactValidationError(f"{field} is {len(value)} characters; the limit is {MAX_MEMORY_ID_CHARS}", ("bad_id",))
    if not _MEMORY_ID.fullmatch(value):
        raise FactValidationError(
            f"{field} {R.shown(value)} may hold only letters, digits, '_', '-', '.' and ':' "
            "(and must not start with '-', '.' or ':')",
            ("bad_id",),
        )
    return value


def check_text(value: Any, field: str, limit: int) -> str | None:
    """An optional plain-text field: a string the column can hold, or None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise FactValidationError(f"{field} must be text", (f"bad_{_rule(field)}",))
    if len(value) > limit:
        raise FactValidationError(f"{field} is {len(value)} characters; the limit is {limit}", (f"{_rule(field)}_too_long",))
    _refuse_unstorable(value, field)
    return value


def check_content(content: Any, source_type: Any = None) -> str:
    """The content to store: NUL and lone surrogates refused; untrusted content cleaned of control characters."""
    if not isinstance(content, str):
        raise FactValidationError("content must be text", ("content_type",))
    _refuse_unstorable(content, "content")
    if isinstance(source_type, str) and R.is_untrusted_source(source_type):
        content = _CONTROL.sub("", content)
    if not content.strip():
        raise FactValidationError("content is empty", ("content_empty",))
    if len(content) > R.MAX_FACT_CONTENT_CHARS:
        raise FactValidationError(
            f"content is {len(content)} characters; the limit is {R.MAX_FACT_CONTENT_CHARS}", ("content_too_long",)
        )
    return content


def check_fraction(value: Any, field: str) -> float | None:
    """Importance and confidence: None, or a finite number in [0, 1]."""
    if value is None:
        return None
    number = _finite(value, field)
    if not 0 <= number <= 1:
        raise FactValidationError(f"{field} must be between 0 and 1, got {R.shown(value)}", (f"bad_{_rule(field)}",))
    return value


def check_decay_rate(value: Any) -> float | None:
    if value is None:
        return None
    number = _finite(value, "decayRate")
    if not 0 <= number <= MAX_DECAY_RATE:
        raise FactValidationError(
            f"decayRate must be between 0 and {MAX_DECAY_RATE:g} (segment defaults are 0.01 to 0.08), got {R.shown(value)}",
            ("bad_decay_rate",),
        )
    return value


def check_count(value: Any, field: str) -> int | None:
    if value is None:
        return None
    number = _finite(value, field)
    if number != int(number) or not 0 <= number <= MAX_COUNT:
        raise FactValidationError(f"{field} must be a whole number from 0 to {MAX_COUNT}, got {R.shown(value)}",
                                  (f"bad_{_rule(field)}",))  # fmt: skip
    return int(number)


def check_moment(value: Any, field: str, *, now_ms: float | None = None) -> float | None:
    """Epoch ms from 1970 to year 9999; with `now_ms`, at most a day ahead of it (a past event)."""
    if value is None:
        return None
    number = _finite(value, field)
    if not 0 <= number <= MAX_EPOCH_MS:
        raise FactValidationError(f"{field} must be epoch milliseconds between 1970 and 9999, got {R.shown(value)}",
                                  (f"bad_{_rule(field)}",))  # fmt: skip
    if now_ms is not None and number > now_ms + FUTURE_TOLERANCE_MS:
        raise FactValidationError(f"{field} {R.shown(value)} is more than a day in the future", (f"future_{_rule(field)}",))
    return value


def check_fields(
    *,
    content: Any,
    source_type: Any = None,
    origin: Any = None,
    memory_id: Any = None,
    subject_key: Any = None,
    intent_scope: Any = None,
    source_turn: Any = None,
    media_pointer: Any = None,
    source_pointers: Any = (),
    supersedes: Any = (),
    links: Any = (),
    importance: Any = None,
    confidence: Any = None,
    decay_rate: Any = None,
    access_count: Any = None,
    created_at_ms: Any = None,
    last_accessed_at_ms: Any = None,
    valid_from_ms: Any = None,
    valid_to_ms: Any = None,
    now_ms: float | None = None,
) -> str:
    """Check every field a writer supplies; return the content to store. Raises FactValidationError only.

    `links` are (kind, target, reason) triples. `now_ms` enables the "not in the future" rule for
    `created_at_ms` and `last_accessed_at_ms`.
    """
    if source_type is not None and source_type not in R.SOURCE_TYPES:
        raise FactValidationError(f"unknown source type {R.shown(source_type)}; use one of: {', '.join(R.SOURCE_TYPES)}",
                                  ("unknown_source_type",))  # fmt: skip
    content = check_content(content, source_type)
    if origin is not None:
        if not isinstance(origin, R.Origin):
            raise FactValidationError("origin must be an Origin", ("origin",))
        try:
            R.check_origin(origin)
        except R.OriginError as exc:
            raise FactValidationError(str(exc), ("origin",)) from exc
    if memory_id is not None:
        check_memory_id(memory_id)
    for field, value in (("subjectKey", subject_key), ("intentScope", intent_scope), ("sourceTurn", source_turn),
                         ("mediaPointer", media_pointer)):  # fmt: skip
        check_text(value, field, TEXT_LIMITS[field])
    for pointer in _sequence(source_pointers, "sourcePointers"):
        check_text(pointer, "sourcePointers", TEXT_LIMITS["sourcePointers"])
    for target in _sequence(supersedes, "supersedes"):
        check_memory_id(target, "supersedes")
    for link in _sequence(links, "links"):
        if not isinstance(link, (tuple, list)) or len(link) != 3:
            raise FactValidationError("a link is (kind, target, reason)", ("bad_link",))
        kind, target, reason = link
        if kind not in R.LINK_KINDS:
            raise FactValidationError(f"unknown link kind {R.shown(kind)}", ("unknown_link_kind",))
        check_memory_id(target, "link target")
        check_text(reason, "link reason", TEXT_LIMITS["link reason"])
    check_fraction(importance, "importance")
    check_fraction(confidence, "confidence")
    check_decay_rate(decay_rate)
    check_count(access_count, "accessCount")
    check_moment(created_at_ms, "createdAt", now_ms=now_ms)
    check_moment(last_accessed_at_ms, "lastAccessedAt", now_ms=now_ms)
    check_moment(valid_from_ms, "validFrom")
    check_moment(valid_to_ms, "validTo")
    return content


def _finite(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FactValidationError(f"{field} must be a number, got {R.shown(value)}", (f"bad_{_rule(field)}",))
    if isinstance(value, int):
        return value  # exact: a huge int is compared as is, never rounded through float
    if not math.isfinite(value):
        raise FactValidationError(f"{field} must be a finite number, got {R.shown(value)}", (f"bad_{_rule(field)}",))
    return value


def _sequence(value: Any, field: str) -> Iterable[Any]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        raise FactValidationError(f"{field} must be a list", (f"bad_{_rule(field)}",))
    return value


def _refuse_unstorable(value: str, field: str) -> None:
    found = UNSTORABLE.search(value)
    if found:
        what = "a NUL character" if found.group() == "\x00" else "an unpaired surrogate (not valid Unicode text)"
        raise FactValidationError(f"{field} contains {what}", (f"unstorable_{_rule(field)}",))


def _rule(field: str) -> str:
    """`"intentScope"` -> `"intent_scope"`, `"link reason"` -> `"link_reason"`: the rule names' style."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", field).replace(" ", "_").lower()
