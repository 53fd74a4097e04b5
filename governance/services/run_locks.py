"""A lock a running task holds for as long as its process lives: how a worker tells an interrupted
job (its worker killed, the job still says "running") from one another worker is running.

On PostgreSQL it is a session advisory lock of the task's connection, so the server lets it go the
moment that process dies or its connection drops, whichever host it ran on. On SQLite (one host by
construction) it is an flock on a file under TIDELINE_VAR_DIR/locks, which the kernel lets go when
the process dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, InterfaceError, connection


def _keys(name: str, key: int) -> tuple[int, int]:
    return zlib.crc32(name.encode()) & 0x7FFFFFFF, int(key) & 0x7FFFFFFF


@contextlib.contextmanager
def holding(name: str, key: int) -> Iterator[bool]:
    """Take the lock (name, key) without waiting; yields whether this process got it, and lets it go
    at the end of the block. Another process's `is_held` sees it taken meanwhile."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", _keys(name, key))
            got = bool(cursor.fetchone()[0])
        try:
            yield got
        finally:
            if got:
                # A dead connection: the server let the lock go with it already.
                with contextlib.suppress(DatabaseError, InterfaceError), connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", _keys(name, key))
        return
    folder = Path(settings.VAR_DIR) / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{name}-{int(key)}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            got = True
        except BlockingIOError:
            got = False
        yield got
    finally:
        os.close(fd)  # lets the flock go


def is_held(name: str, key: int) -> bool:
    """Whether a live process holds (name, key) now."""
    with holding(name, key) as got:
        return not got
