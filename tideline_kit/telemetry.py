"""Operations, timed and named, for whoever listens: the site's metrics and, when installed, traces.

Memory and governance say what they do and how it ended, never what it was about:

    with telemetry.operation("memory.recall", k=k) as op:
        ...
        op.set(hits=len(hits), outcome="answered" if hits else "abstained")

Attributes are names, flags and counts (`str` of at most 64 characters, `int`, `float`, `bool`);
anything else is dropped, so no fact, query or reason can reach a metric or a span by mistake. An
operation that raises ends with outcome `refused:<kind>` for a typed refusal (an exception with a
`kind`, as every refusal here has) and `error` otherwise, and the exception goes on.

Observers (`observe`) get `started(op)` and `finished(op, handle)`, where `handle` is what
`started` returned (a span, say). With no observer an operation costs two clock reads.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

logger = logging.getLogger("tideline.telemetry")

MAX_TEXT = 64


class Observer(Protocol):
    def started(self, op: Operation) -> Any: ...

    def finished(self, op: Operation, handle: Any) -> None: ...


class Operation:
    __slots__ = ("name", "attributes", "outcome", "seconds")

    def __init__(self, name: str, attributes: dict[str, Any]) -> None:
        self.name = name
        self.attributes: dict[str, str | int | float | bool] = {}
        self.outcome = "ok"
        self.seconds = 0.0
        self.set(**attributes)

    def set(self, outcome: str | None = None, **attributes: Any) -> None:
        """Record how it ended and counts about it; values that are not short names or numbers are dropped."""
        if outcome is not None:
            self.outcome = str(outcome)[:MAX_TEXT]
        for key, value in attributes.items():
            if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= MAX_TEXT):
                self.attributes[key] = value


_observers: tuple[Observer, ...] = ()


def observe(observer: Observer) -> None:
    global _observers
    if observer not in _observers:
        _observers = (*_observers, observer)


def stop_observing(observer: Observer) -> None:
    global _observers
    _observers = tuple(o for o in _observers if o is not observer)


def observers() -> tuple[Observer, ...]:
    return _observers


def _outcome_of(error: BaseException) -> str:
    kind = getattr(error, "kind", None)
    return f"refused:{kind}" if isinstance(kind, str) and kind else "error"


@contextmanager
def operation(name: str, **attributes: Any) -> Iterator[Operation]:
    """Time the block as operation `name` (also usable as a decorator, without the `as op`)."""
    op = Operation(name, attributes)
    listening = _observers
    handles = [_safely(o.started, op) for o in listening]
    started = time.perf_counter()
    try:
        yield op
    except BaseException as error:
        op.outcome = _outcome_of(error)
        op.attributes.setdefault("error.type", type(error).__name__)
        raise
    finally:
        op.seconds = time.perf_counter() - started
        for observer, handle in zip(listening, handles, strict=True):
            _safely(observer.finished, op, handle)


def _safely(call, *args):
    """An observer's fault is logged and never breaks what it observes."""
    try:
        return call(*args)
    except Exception:  # noqa: BLE001
        logger.exception("telemetry observer %r failed", getattr(call, "__self__", call))
        return None
