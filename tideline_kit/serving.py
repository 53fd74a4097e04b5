"""How the web processes are started: `tideline serve`, the API load bench and the tests use this.

Each web worker is a process of its own running uvicorn on the site's ASGI application
(`settings.ASGI_APPLICATION`, or `--app`), listening on the
same port through its own socket with SO_REUSEPORT, so the kernel spreads new connections over the
workers. With uvicorn's `--workers` they shared one socket instead, and asyncio accepts every
pending connection at once: sixteen agents connecting together all landed on whichever worker woke
first, and the other sat idle (writes from 16 clients ran on one core).

The sockets also name TCP as their protocol, so asyncio turns Nagle's algorithm off for the
connections they accept (uvicorn's shared socket did not, and a response's body then waited for
the client's delayed ACK: 40 ms on every kept-alive call after the first). `NoDelayProtocol` turns
it off in any case, for servers started some other way (`uvicorn … --http
tideline_kit.serving:NoDelayProtocol`).

    python -m tideline_kit.serving --app tideline_site.asgi.application --host 127.0.0.1 --port 8000  # one worker
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from uvicorn.protocols.http.auto import AutoHTTPProtocol

ROOT = Path(__file__).resolve().parents[1]
SHARED_PORTS = hasattr(socket, "SO_REUSEPORT") and sys.platform.startswith("linux")


class PortInUse(Exception):
    pass


class NoDelayProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):  # not a TCP socket after all: nothing to turn off
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_port(host: str, port: int) -> None:
    """Raise `PortInUse` when something already listens there: with SO_REUSEPORT a second server
    would otherwise share the port silently and take half the connections."""
    with socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise PortInUse(f"{host}:{port} is already in use ({error.strerror}): stop what listens there or pass --port") from error


def listening_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(_family(host), socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def _uvicorn_target(application: str) -> str:
    """`package.module.attribute` (Django's form) as uvicorn names it: `package.module:attribute`."""
    module, _, attribute = application.rpartition(".")
    return f"{module}:{attribute}"


def web_commands(*, host: str = "127.0.0.1", port: int, workers: int, application: str | None = None) -> list[list[str]]:
    """The command line of each web process: one per worker where ports can be shared, else one
    uvicorn that forks its own workers. `application`: the ASGI application's dotted path
    (`settings.ASGI_APPLICATION` when not given)."""
    workers = max(1, workers)
    if application is None:
        from django.conf import settings

        application = settings.ASGI_APPLICATION
    if SHARED_PORTS:
        return [[sys.executable, "-m", "tideline_kit.serving", "--app", application, "--host", host, "--port", str(port)]
                for _ in range(workers)]  # fmt: skip
    return [[sys.executable, "-m", "uvicorn", _uvicorn_target(application), "--host", host, "--port", str(port),
             "--workers", str(workers), "--http", "tideline_kit.serving:NoDelayProtocol", "--no-proxy-headers",
             "--log-level", "warning", "--no-access-log"]]  # fmt: skip


def web_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a web process: `env` (this process's when not given), with glibc's malloc
    held to two arenas unless `MALLOC_ARENA_MAX` says otherwise. A web process runs requests on ten
    threads, and glibc gives threads arenas of their own (up to eight per core), whose freed memory
    mostly stays with the process: on the many-workspaces bench one process in two of four runs
    peaked over 1 GiB (1,033 and 1,046 MB), and with two arenas at 903 MB at most, at the same
    speed (docs/BENCHMARKS.md, "The console while agents write")."""
    out = dict(os.environ if env is None else env)
    out.setdefault("MALLOC_ARENA_MAX", "2")
    return out


def worker_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the django-q2 worker beside web processes started with `env`: no
    connection pool, since django-q2 forks its processes and each keeps one connection of its own
    (tideline_site.forks makes sure a forked process never reuses what it inherited)."""
    return {**env, "TIDELINE_DB_POOL": "0"}


def start_web(*, host: str = "127.0.0.1", port: int, workers: int, env: Mapping[str, str] | None = None,
              cwd: Path = ROOT, application: str | None = None) -> list[subprocess.Popen]:  # fmt: skip
    """Start the web processes (after checking the port is free); the caller stops them."""
    check_port(host, port)
    return [subprocess.Popen(command, env=web_environment(env), cwd=str(cwd))
            for command in web_commands(host=host, port=port, workers=workers, application=application)]  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m tideline_kit.serving", description="one Tideline web worker")
    parser.add_argument("--app", required=True, help="the ASGI application's dotted path")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    # proxy_headers off: uvicorn would otherwise take the client's address from X-Forwarded-For on any
    # connection from 127.0.0.1, so a same-host forwarder let a client pick its address (and dodge the
    # login lockout). Django alone decides what a proxy may say (TIDELINE_BEHIND_PROXY, throttling.py).
    config = uvicorn.Config(_uvicorn_target(args.app), http=NoDelayProtocol, log_level="warning",
                            access_log=False, proxy_headers=False)  # fmt: skip
    uvicorn.Server(config).run(sockets=[listening_socket(args.host, args.port)])


if __name__ == "__main__":
    main()
