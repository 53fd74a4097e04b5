"""Each request thread's database session is opened and warmed as a web process starts
(tideline_site/warmup.py), so no agent's first request pays for it."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import OperationalError, connection, connections

from tideline_site import asgi, warmup


def _run(coroutine):
    """`asyncio.run` on a thread of its own: a test run before this one (the browser's) may have left
    an event loop running on this thread."""
    with ThreadPoolExecutor(max_workers=1) as runner:
        return runner.submit(asyncio.run, coroutine).result(timeout=120)


def _on(thread, func):
    return thread.submit(func).result(timeout=30)


def _session_of_thread():
    """This thread's open session: PostgreSQL's backend pid, or the SQLite connection's id."""
    if connection.connection is None:
        return None
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]
    return id(connection.connection)


@pytest.mark.django_db(transaction=True)
def test_every_request_thread_opens_a_session_of_its_own_and_asks_each_table_once():
    threads = [ThreadPoolExecutor(max_workers=1) for _ in range(3)]
    try:
        assert [_on(t, _session_of_thread) for t in threads] == [None, None, None]  # nothing open yet
        touched = _run(warmup.warm_threads(threads))
        tables = len(warmup.models_to_warm())
        assert tables >= 30 and touched == [tables] * 3
        sessions = [_on(t, _session_of_thread) for t in threads]
        assert None not in sessions and len(set(sessions)) == 3  # each kept its own, warm, for its requests
    finally:
        for thread in threads:
            _on(thread, lambda: connection.close())
            thread.shutdown()


def test_the_tables_are_the_sites_own_and_djangos_that_a_request_reads():
    names = {model._meta.db_table for model in warmup.models_to_warm()}
    assert {"memory_fact", "memory_workspace", "auth_user", "django_session"} <= names
    assert any(name.startswith("governance_") for name in names)


@pytest.mark.django_db(transaction=True)
def test_a_database_that_fails_is_logged_and_the_process_starts_anyway(monkeypatch, caplog):
    def unreachable(self):
        raise OperationalError("connection refused")

    thread = ThreadPoolExecutor(max_workers=1)
    try:
        monkeypatch.setattr(type(connections["default"]), "ensure_connection", unreachable)  # in every thread
        assert _run(warmup.warm_threads([thread])) == [0]
        assert "warming a request thread's database session failed: OperationalError" in caplog.text
    finally:
        thread.shutdown()


def test_the_lifespan_startup_warms_this_loops_request_threads_before_it_completes(monkeypatch):
    warmed: list[int] = []

    async def warm(threads):
        warmed.append(len(threads))
        return []

    monkeypatch.setattr(warmup, "warm_threads", warm)
    monkeypatch.setattr(warmup, "freeze_startup_heap", lambda: warmed.append("frozen"))
    said: list[str] = []

    async def run() -> None:
        messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]

        async def receive():
            return messages.pop(0)

        async def send(message):
            said.append(message["type"])
            if message["type"] == "lifespan.startup.complete":
                assert warmed == [asgi.PEOPLE_THREADS + asgi.CONCURRENCY, "frozen"]  # before the startup completes

        await asgi.application({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)

    _run(run())
    assert said[:1] == ["lifespan.startup.complete"] and warmed == [asgi.PEOPLE_THREADS + asgi.CONCURRENCY, "frozen"]


def test_with_a_pool_as_many_sessions_are_warmed_as_the_pool_keeps_open(monkeypatch):
    from django.conf import settings

    monkeypatch.setitem(settings.DATABASES["default"], "OPTIONS", {"pool": {"min_size": 2}})
    assert warmup.sessions_to_keep_warm(10) == 2
    monkeypatch.setitem(settings.DATABASES["default"], "OPTIONS", {})
    assert warmup.sessions_to_keep_warm(10) == 10  # a session per thread, each its own


def test_freezing_the_startup_heap_keeps_what_the_process_holds_out_of_full_collections():
    import gc

    gc.unfreeze()
    try:
        frozen = warmup.freeze_startup_heap()
        assert frozen == gc.get_freeze_count() > 1000  # the modules and settings, at least
        still_walked = sum(len(gc.get_objects(generation=g)) for g in range(3))
        assert still_walked < frozen / 10  # a full pass now walks only what came after
    finally:
        gc.unfreeze()
