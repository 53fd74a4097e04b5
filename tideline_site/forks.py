"""Database connections never cross a fork: a forked process opens its own.

django-q2 forks its sentinel, pusher, monitor and workers from the cluster's process. A connection
(or a psycopg pool of them) made before the fork is the same socket in parent and child: two
processes then interleave their statements on one server session and read each other's results
("the last operation didn't produce records", "prepared statement already exists"), and a pool
copied into a child has no threads left to make new connections ("couldn't get a connection").

`after_fork_in_child` runs in every child right after `os.fork()` (multiprocessing's fork context
included) and forgets what it inherited, without closing it: closing would send the server the
parent's goodbye on the parent's socket. psycopg closes a connection only in the process that
opened it; the forgotten objects are also kept referenced here, so nothing is finalised in the
child at all. The child's next query connects anew (or builds its own pool). PostgreSQL's only:
SQLite's are closed as before, by Django.
"""

from __future__ import annotations

import os
import sys

_inherited: list[object] = []  # what a child inherited and must neither use nor close
_installed = False


def after_fork_in_child() -> None:
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        # SQLite's are left to Django's close() (django-q2 closes them before it forks): SQLite keeps
        # each file's locks and shared memory per process, and a child that kept an inherited one
        # open beside its own broke both ("disk I/O error").
        if conn.vendor == "postgresql" and conn.connection is not None:
            _inherited.append(conn.connection)
            conn.connection = None
    postgresql = sys.modules.get("django.db.backends.postgresql.base")
    if postgresql is not None:  # pools are per process: the child builds its own on first use
        pools = postgresql.DatabaseWrapper._connection_pools
        _inherited.extend(pools.values())
        pools.clear()


def install() -> None:
    """Register the hook once per process (app loading may run more than once in tests)."""
    global _installed
    if not _installed and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=after_fork_in_child)
        _installed = True
