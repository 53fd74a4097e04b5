"""Epoch milliseconds (the interchange format's clock) <-> aware datetimes (storage), exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def from_ms(ms: int | float | None) -> datetime | None:
    if ms is None:
        return None
    if isinstance(ms, int) or float(ms).is_integer():
        return EPOCH + timedelta(milliseconds=int(ms))
    return EPOCH + timedelta(microseconds=round(ms * 1000))


def to_ms(moment: datetime | None) -> int | float | None:
    """Whole milliseconds come back as an int; a sub-millisecond remainder as a float."""
    if moment is None:
        return None
    delta = moment - EPOCH
    whole, rest = divmod(delta, _MS)
    return whole if not rest else delta / timedelta(microseconds=1) / 1000
