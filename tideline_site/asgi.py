"""The ASGI application `make run` serves (uvicorn workers): the Django console and API, and the MCP
server's streamable HTTP transport at `/mcp/` (ENGINE-SPEC §10.1).

`/mcp` and `/mcp/…` go to the MCP app, but only with a valid bearer token (401 JSON otherwise, before
a session exists); everything else goes to Django. The MCP app runs stateless (every POST stands
alone), so any worker of any host can answer any request; its lifespan (the session manager) is the
only lifespan there is, as Django's ASGI handler takes none.
"""

import json
import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import ImproperlyConfigured, RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.urls import get_resolver, set_script_prefix

from tideline_site.admission import Admission, per_loop, person_request

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
# Static files (WhiteNoise) and the exports stream from synchronous iterators; Django's ASGI handler
# serves them correctly in a worker thread but warns on every response. The warning is not news.
warnings.filterwarnings("ignore", message="StreamingHttpResponse must consume synchronous iterators")


# Agent requests (a bearer token) in progress per worker process. Each runs in a thread of its own
# with a database connection of its own; past this many, more threads only contend for one
# interpreter lock and empty the connection pool (a burst then failed with pool timeouts and
# throughput collapsed). Further ones wait in arrival order, holding nothing but their socket.
# People at the console have threads of their own and go first (tideline_site/admission.py).
CONCURRENCY = max(1, int(os.environ.get("TIDELINE_WEB_CONCURRENCY", "8")))
PEOPLE_THREADS = 2  # console pages at once per worker; a third waits for one of them


def _threads(lane: str, count: int) -> list[ThreadPoolExecutor]:
    return [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{lane}-{n}") for n in range(count)]


_admission = per_loop(lambda: Admission(_threads("people", PEOPLE_THREADS), _threads("agents", CONCURRENCY)))
# Health probes and /metrics (a millisecond each) on a thread of their own, outside the admission: a
# load balancer's probe must not wait behind two long exports holding the people's threads, nor hold
# agents back as a person's page does.
_probe_thread = _threads("probes", 1)[0]


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler, run the way this site's code is written: synchronously, on a few
    long-lived request threads, with one hop from the event loop per request.

    Stock Django, serving synchronous views and middleware over ASGI, hops between the event loop
    and a thread twice per middleware and starts (and joins) a new thread for every request. Under
    load those hops cost the worker more interpreter time than an API write itself (py-spy)."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def handle(self, scope, receive, send):
        """Django's `ASGIHandler.handle`, with everything between reading the body and sending the
        response done in the one hop: the request_started signal, the request, the response, and
        (for a response already in memory) its close, which sends request_finished on the thread
        whose database connection it releases. A streamed response (a static file, an export) is
        sent and then closed on its request thread, as Django does; any other is sent after its
        thread is free for the next request. A client that goes away while its view runs is not
        waited for: the view cannot be interrupted anyway, and its answer is dropped by uvicorn."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        # A request thread is taken only once the body is in, and an answer already in memory is
        # sent after the thread is back: a slow client, uploading or downloading, holds no thread.
        admission, person = _admission(), person_request(scope.get("headers", []))
        probe = scope.get("path", "") in ProbeMiddleware.PROBES
        thread = _probe_thread if probe else await admission.take(person=person)
        held = not probe  # a thread of the admission's, to give back
        try:
            async with ThreadSensitiveContext(executor=thread):
                response = await sync_to_async(self._respond, thread_sensitive=True)(scope, body_file)
                if response.streaming:  # its iterator and its close run on the request thread
                    try:
                        await self.send_response(response, send)
                    finally:
                        await sync_to_async(response.close, thread_sensitive=True)()
                    return
            if held:
                admission.give(thread, person=person)
                held = False
            await self.send_response(response, send)
        finally:
            if held:
                admission.give(thread, person=person)
            body_file.close()

    def _respond(self, scope, body_file):
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
        return response

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        await self.handle(scope, receive, send)


django.setup(set_prefix=False)
django_application = OneHopASGIHandler()  # Django is set up before the modules below are imported


def _load_every_view() -> None:
    """Import every URLconf and view module and build the URL maps now, as the process starts.

    Django does it in the first request a process serves: 0.6 s on a 2-core machine. With two web
    processes behind one port, the one the readiness probe did not reach paid it inside an agent's
    first recall (600 ms where the rest took 50)."""
    resolver = get_resolver()
    if resolver.reverse_dict is None:  # reading it imports every module and builds the maps
        raise ImproperlyConfigured("the URLconf has no reverse map")


_load_every_view()

from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402

from governance.api.auth import bearer_value  # noqa: E402
from governance.mcp_tools import build_server, header_grant  # noqa: E402
from governance.services import tokens  # noqa: E402
from memory.services.errors import RequestError  # noqa: E402
from tideline_site import warmup  # noqa: E402
from tideline_site.health import ProbeMiddleware  # noqa: E402

WARM_SESSIONS = os.environ.get("TIDELINE_WARM_SESSIONS", "1") != "0"

MCP_PATH = "/mcp"
# Tokens, not cookies, authenticate every MCP request, so a rebinding page has nothing to borrow;
# Django's ALLOWED_HOSTS still guards the console.
mcp_application = build_server(header_grant).streamable_http_app(
    streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
)


async def _refuse(send, message: str) -> None:
    body = json.dumps({"error": {"kind": "unauthorized", "message": message}}).encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(scope, receive, send):
    """The MCP app's lifespan, with each request thread's database session warmed and the heap frozen
    (tideline_site/warmup.py) before the startup completes, so before this process accepts a connection."""
    async def receive_after_warming():
        message = await receive()
        if message["type"] == "lifespan.startup":
            if WARM_SESSIONS:
                await warmup.warm_threads(_admission().threads())
            warmup.freeze_startup_heap()
        return message

    return await mcp_application(scope, receive_after_warming, send)


async def application(scope, receive, send):
    if scope["type"] == "lifespan":
        return await _lifespan(scope, receive, send)
    path = scope.get("path", "")
    if scope["type"] == "http" and (path == MCP_PATH or path.startswith(MCP_PATH + "/")):
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        try:
            await sync_to_async(tokens.authenticate)(bearer_value(headers.get("authorization", "")))
        except RequestError as error:
            return await _refuse(send, error.message)
        scope = {**scope, "path": MCP_PATH, "raw_path": MCP_PATH.encode()}
        return await mcp_application(scope, receive, send)
    return await django_application(scope, receive, send)
