"""A small HTTP/1.1 client for the load bench: kept-alive connections, one write per request.

The bench's load generator shares this machine's two cores with the server it measures, so its own
cost per request shows in the figures. A general client (httpx) spends about as long on a request
as the server's web layer does; this one only frames a JSON POST, reads the status line, the
headers and a `Content-Length` or chunked body, and keeps the connection for the next request.
Loopback only: no TLS, no redirects, no proxies.
"""

from __future__ import annotations

import asyncio
import json
import socket
from urllib.parse import urlsplit


class HttpError(Exception):
    pass


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    def close(self) -> None:
        self.writer.close()


class LoopbackClient:
    def __init__(self, url: str, *, connections: int, timeout: float = 30.0, headers: dict[str, str] | None = None):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.headers = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self._idle: list[_Connection] = []
        self._slots = asyncio.Semaphore(connections)

    async def __aenter__(self) -> LoopbackClient:
        return self

    async def __aexit__(self, *exc) -> None:
        for connection in self._idle:
            connection.close()
        self._idle.clear()

    async def post_json(self, path: str, body: dict, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        payload = json.dumps(body).encode()
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\n{self.headers}{extra}\r\n").encode()  # fmt: skip
        async with self._slots:
            reused = bool(self._idle)
            connection = self._idle.pop() if reused else await self._open()
            try:
                status, data, keep = await asyncio.wait_for(self._exchange(connection, head + payload), self.timeout)
            except (HttpError, ConnectionError):
                connection.close()
                if not reused:
                    raise
                # The server closed an idle kept-alive connection (uvicorn does after 5 s) just as
                # it was reused: the request never arrived, so it is sent once more on a new one.
                connection = await self._open()
                try:
                    status, data, keep = await asyncio.wait_for(self._exchange(connection, head + payload), self.timeout)
                except BaseException:
                    connection.close()
                    raise
            except BaseException:
                connection.close()
                raise
            if keep:
                self._idle.append(connection)
            else:
                connection.close()
            return status, data

    async def _open(self) -> _Connection:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(reader, writer)

    @staticmethod
    async def _exchange(connection: _Connection, request: bytes) -> tuple[int, bytes, bool]:
        connection.writer.write(request)
        reader = connection.reader
        status_line = await reader.readline()
        if not status_line:
            raise HttpError("the server closed the connection")
        status = int(status_line.split(b" ", 2)[1])
        length, chunked, keep = None, False, True
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                keep = False
        if chunked:
            parts = []
            while True:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await reader.readline()
                    break
                parts.append(await reader.readexactly(size))
                await reader.readline()
            return status, b"".join(parts), keep
        if length is None:
            return status, await reader.read(), False
        return status, await reader.readexactly(length), keep
