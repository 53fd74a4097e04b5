"""The ASGI application runs Django synchronously on a few kept request threads (tideline_site/asgi.py).

Stock Django serving synchronous code over ASGI hops to a thread and back around every middleware and
starts (and joins) a new thread per request; under the write benchmark those hops cost more than the
write. These tests call the real ASGI application in-process."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.signals import request_started

from tideline_site import asgi

pytestmark = pytest.mark.django_db(transaction=True)


async def _call(path: str, headers: list[tuple[bytes, bytes]] = ()) -> tuple[int, bytes]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"testserver"), *headers], "client": ("127.0.0.1", 5000),
             "server": ("testserver", 80)}  # fmt: skip
    sent: list[dict] = []
    received = False

    async def receive():
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # the client stays connected

    async def send(message):
        sent.append(message)

    await asgi.application(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body


def _in_own_loop(make_coroutine):
    """asyncio.run on a thread of its own: the browser tests leave Playwright's loop running on the
    main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make_coroutine())).result(timeout=120)


def test_requests_run_on_kept_threads_and_answer_as_django_would():
    threads: list[str] = []

    def note_thread(**kwargs):
        threads.append(threading.current_thread().name)

    request_started.connect(note_thread)
    try:

        async def run():
            answers = [await _call("/api/v1/whoami") for _ in range(3)]
            before = threading.active_count()
            answers += await asyncio.gather(*(_call("/api/v1/whoami") for _ in range(12)))
            return answers, before, threading.active_count()

        answers, before, after = _in_own_loop(run)
    finally:
        request_started.disconnect(note_thread)

    assert {status for status, _ in answers} == {401}  # no token: the API's own JSON refusal
    assert json.loads(answers[0][1])["error"]["kind"] == "unauthorized"
    assert threads and all(name.startswith("request-") for name in threads)
    # 15 requests, never more threads than the admission limit, and none started per request.
    assert len(set(threads)) <= asgi.CONCURRENCY
    assert after - before <= asgi.CONCURRENCY


def test_a_console_page_and_a_missing_page_are_served_through_the_same_handler():
    async def run():
        return await _call("/login/"), await _call("/no-such-page/")

    (login_status, login_body), (missing_status, _) = _in_own_loop(run)
    assert login_status == 200 and b"<form" in login_body
    assert missing_status == 404


def test_a_streamed_static_file_arrives_whole():
    from pathlib import Path

    from django.conf import settings

    css = sorted((Path(settings.BASE_DIR) / "static" / "css").glob("*.css"))[0]

    async def run():
        return await _call(f"/static/css/{css.name}")

    status, body = _in_own_loop(run)
    assert status == 200 and body == css.read_bytes()


def test_clients_still_sending_their_body_hold_no_request_thread():
    """More slow uploaders than there are request threads must not stop anyone else's request."""

    async def stalled_upload():
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
                 "path": "/api/v1/recall", "raw_path": b"/api/v1/recall", "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                             (b"content-length", b"100")],
                 "client": ("127.0.0.1", 5001), "server": ("testserver", 80)}  # fmt: skip

        async def receive():
            await asyncio.sleep(3600)  # the body never comes

        async def send(message):
            pass

        await asgi.application(scope, receive, send)

    async def run():
        stalled = [asyncio.create_task(stalled_upload()) for _ in range(asgi.CONCURRENCY + 2)]
        await asyncio.sleep(0.1)
        try:
            return await asyncio.wait_for(_call("/api/v1/whoami"), timeout=30)
        finally:
            for task in stalled:
                task.cancel()
            await asyncio.gather(*stalled, return_exceptions=True)

    status, _ = _in_own_loop(run)
    assert status == 401  # answered (the API's refusal without a token), not left waiting for a thread


def test_a_web_process_loads_every_view_as_it_starts_not_in_its_first_request():
    """With two web processes behind one port, the one the readiness probe missed imported every view
    inside an agent's first recall (600 ms, against 50 for the next)."""
    import subprocess
    import sys

    from django.conf import settings

    probe = ("import sys, tideline_site.asgi; "
             "print(sorted(m for m in ('governance.api.urls', 'governance.api.views', 'memory.urls', 'governance.urls')"
             " if m not in sys.modules))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], cwd=str(settings.BASE_DIR), capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_health_probes_are_answered_while_every_page_and_agent_thread_is_busy():
    """Two long exports hold the people's threads and agents hold theirs: a load balancer's probe is
    still answered at once, on a thread of its own (and holds no agent back, as a page would)."""
    release = threading.Event()
    busy: list[str] = []

    def hold(scope=None, **kwargs):
        if scope and scope.get("path") in ("/login/", "/api/v1/whoami"):
            busy.append(threading.current_thread().name)
            release.wait(60)

    request_started.connect(hold)
    try:

        async def run():
            agent = [(b"authorization", b"Bearer not-a-token")]
            held = [asyncio.create_task(_call("/login/")) for _ in range(asgi.PEOPLE_THREADS)]
            held += [asyncio.create_task(_call("/api/v1/whoami", agent)) for _ in range(asgi.CONCURRENCY)]
            for _ in range(200):  # until every thread is taken
                if len(busy) == asgi.PEOPLE_THREADS + asgi.CONCURRENCY:
                    break
                await asyncio.sleep(0.05)
            try:
                probes = [await asyncio.wait_for(_call(path), timeout=10) for path in ("/healthz", "/readyz")]
                return len(busy), probes
            finally:
                release.set()
                await asyncio.gather(*held)

        taken, probes = _in_own_loop(run)
    finally:
        release.set()
        request_started.disconnect(hold)

    assert taken == asgi.PEOPLE_THREADS + asgi.CONCURRENCY
    (live, live_body), (ready, ready_body) = probes
    assert live == 200 and json.loads(live_body) == {"status": "ok"}
    assert ready in (200, 503) and "checks" in json.loads(ready_body)
