"""Handing work to the worker through django-q2's broker, and what a request does when it cannot.

The broker is the database (the default) or Redis (`TIDELINE_Q_BROKER`). When it cannot take a task
(Redis stopped, its network cut), `async_task` raises the client library's connection error; left
alone, that is a 500 in the console and a task the person believes is running. Two ways to queue:

- `enqueue` for work somebody asked for (an import, an evaluation, a search): the caller puts back
  whatever it marked as queued and the refusal reaches the person as `QueueUnavailableError`, a
  `RequestError` of kind "unavailable" (503 in the API, a message in the console).
- `enqueue_once` for work that only refreshes a cache (dashboard figures, the graph's partition):
  queued once per key, the page is shown from what it has, and a failure is logged and forgets the
  key, so the next request tries again.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

from memory.services.errors import RequestError, is_read_only_error

logger = logging.getLogger(__name__)

UNREACHABLE = ("the worker's queue cannot be reached just now, so nothing was started; try again in a minute "
               "(the server's log says why)")  # fmt: skip


class QueueUnavailableError(RequestError):
    """The broker refused or could not take a task: a deployment state, not the person's mistake."""

    kind = "unavailable"


def enqueue(func: str, *args: Any, **options: Any) -> str:
    """`django_q.tasks.async_task(func, *args, **options)`; its task id. A broker that cannot take
    the task raises `QueueUnavailableError` (logged with its cause). A read-only database is left to
    the handlers that already say so (the ORM broker writes its queue there)."""
    from django_q.tasks import async_task

    try:
        return async_task(func, *args, **options)
    except Exception as error:  # noqa: BLE001 — every broker client has its own connection errors
        if is_read_only_error(error):
            raise
        logger.error("could not queue %s: %s: %s", func, type(error).__name__, error)
        raise QueueUnavailableError(UNREACHABLE) from error


def enqueue_once(key: str, timeout: int, func: str, *args: Any, **options: Any) -> bool | None:
    """`enqueue` at most once per cache `key` for `timeout` seconds, for work a later request can ask
    for again: True when queued now, False when queued already, None when the broker could not take
    it (logged, and the key forgotten so the next request tries again)."""
    if not cache.add(key, 1, timeout=timeout):
        return False
    try:
        enqueue(func, *args, **options)
    except QueueUnavailableError:
        cache.delete(key)
        return None
    return True
