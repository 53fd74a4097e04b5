"""How the web processes are started: uvicorn, with an HTTP protocol that turns Nagle's algorithm off.

With `--workers`, uvicorn binds the listening socket itself without naming TCP as its protocol, and
asyncio then leaves Nagle's algorithm on for the connections it accepts (it turns it off only for
sockets that say IPPROTO_TCP). A response goes out as two writes (head, then body), so on a
kept-alive connection the body waited for the client's delayed acknowledgement: 40 ms added to
every API call after an agent's first. A single worker did not show it, as uvicorn lets asyncio
bind the socket then.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys

from uvicorn.protocols.http.auto import AutoHTTPProtocol


def uvicorn_command(*, host: str = "127.0.0.1", port: int, workers: int) -> list[str]:
    """The command line of the web server `tideline serve` (and the API load bench) runs."""
    return [sys.executable, "-m", "uvicorn", "tideline_site.asgi:application", "--host", host, "--port", str(port),
            "--workers", str(max(1, workers)), "--http", "tideline_site.serving:NoDelayProtocol",
            "--log-level", "warning", "--no-access-log"]  # fmt: skip


class NoDelayProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # not a TCP socket after all: nothing to turn off
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
