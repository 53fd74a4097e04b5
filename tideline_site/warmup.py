"""Each request thread's database session, opened and warmed as a web process starts.

A web process's first requests paid for more than their own work: connecting, and a new PostgreSQL
session reading each table's and index's catalog entries the first time a query touches them. In
cProfile a process's first cold recall took 124–136 ms where the next cold one took 68–76 (the token
check 32–42 ms against 8–10; docs/BENCHMARKS.md, "The first recall after an import or a start").

So as the process starts (the ASGI lifespan's startup, before it accepts a connection), every
request thread opens its connection and asks each table of the site's apps one question that plans
over all its indexes and finds nothing. With a connection pool (`tideline serve`'s web processes),
only as many threads as the sessions the pool keeps open do so (`sessions_to_keep_warm`). The threads
hold their connections together until each is warm, so a pool opens one session per thread instead
of handing one session to each in turn; a pooled connection then goes back to the pool, a persistent
one stays with its thread.

A database that cannot be reached is not this module's problem: the failure is logged, the process
starts, and readiness (`/readyz`) says what is wrong.

Then the heap is collected once and frozen (`freeze_startup_heap`): the modules, views and settings
the process holds for its whole life are kept out of the collector's full passes, which otherwise
walked them again and again as the first recall indexes were built (four to five full passes of
50–360 ms in a web process's first five seconds under the many-workspaces bench).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor

logger = logging.getLogger("tideline.warmup")

APPS = ("memory", "governance", "auth", "sessions", "django_q")
WAIT_SECONDS = 15.0  # the longest a start waits for its threads; a slower database is warmed by requests


def models_to_warm() -> list:
    from django.apps import apps

    chosen = []
    for label in APPS:
        try:
            config = apps.get_app_config(label)
        except LookupError:
            continue
        chosen += [m for m in config.get_models() if m._meta.managed and not m._meta.proxy]
    return chosen


def warm_this_thread(together: threading.Barrier | None = None) -> int:
    """Open this thread's connection and touch every table once; the number of tables touched (0
    when the database failed: logged, never raised). With `together`, wait at it before giving a
    pooled connection back, so every thread holds a session of its own while warming."""
    from django.db import connection

    touched = 0
    try:
        connection.ensure_connection()
        for model in models_to_warm():
            textual = model._meta.pk.get_internal_type() in ("CharField", "TextField", "SlugField")
            # no row has this key; planning the question opens the table and every index of it
            model._base_manager.using("default").filter(pk="" if textual else -1).exists()
            touched += 1
    except Exception as error:  # noqa: BLE001 — a start must not fail on a database hiccup
        logger.warning("warming a request thread's database session failed: %s: %s", type(error).__name__, error)
    finally:
        if together is not None:
            with contextlib.suppress(threading.BrokenBarrierError):
                together.wait(timeout=WAIT_SECONDS)
        if getattr(connection, "pool", None) is not None:
            connection.close()  # back to the pool, warm
    return touched


def sessions_to_keep_warm(threads: int) -> int:
    """How many sessions to warm: one per request thread, or with a connection pool the sessions it
    keeps open (`min_size`). A pool hands its idle connections out in turn, so warming all ten made
    the next requests slower (each session planned the same statements anew, and prepares them only
    after a few uses of its own): cold recalls 34–48 ms where they had taken 24–32 after the first."""
    from django.conf import settings

    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    if not pool:
        return threads
    return min(threads, int(pool.get("min_size", 4)) if isinstance(pool, dict) else 4)


async def warm_threads(threads: Sequence[Executor]) -> list[int]:
    """Run `warm_this_thread` on each request thread at once (with a pool, on as many as it keeps
    open); the tables each touched. Waits at most `WAIT_SECONDS`: past that the process starts and
    the warming finishes on its own."""
    threads = list(threads)[: sessions_to_keep_warm(len(threads))]
    if not threads:
        return []
    loop = asyncio.get_running_loop()
    together = threading.Barrier(len(threads))
    started = time.perf_counter()
    runs = [loop.run_in_executor(thread, warm_this_thread, together) for thread in threads]
    try:
        touched = await asyncio.wait_for(asyncio.gather(*runs), timeout=WAIT_SECONDS)
    except TimeoutError:
        logger.warning("warming the request threads' database sessions took over %g s; starting anyway", WAIT_SECONDS)
        return []
    logger.info("warmed %d request threads' database sessions in %.0f ms", len(threads),
                (time.perf_counter() - started) * 1000)  # fmt: skip
    return list(touched)


def freeze_startup_heap() -> int:
    """Collect once and freeze what the process holds as it starts (module docstring); the objects
    frozen. Recall indexes freeze the heap again after their builds (memory.services.recall.index)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
