"""The web server's HTTP protocol turns Nagle's algorithm off (tideline_kit/serving.py)."""

from __future__ import annotations

import contextlib
import socket

import pytest

from tideline_kit.serving import (
    SHARED_PORTS,
    NoDelayProtocol,
    PortInUse,
    check_port,
    listening_socket,
    start_web,
    web_commands,
    web_environment,
)


class _Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, name: str, default=None):
        return self.sock if name == "socket" else default


def test_an_accepted_connection_that_uvicorn_made_with_nagle_on_gets_it_turned_off():
    # The socket as uvicorn's multi-worker mode makes it: no protocol named, so asyncio leaves Nagle on.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client = socket.create_connection(listener.getsockname())
        accepted, _ = listener.accept()
        try:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
            protocol = NoDelayProtocol.__new__(NoDelayProtocol)  # only connection_made's first step is ours
            # uvicorn's own setup after ours needs server state this test lacks: its failure is not ours.
            with contextlib.suppress(Exception):
                protocol.connection_made(_Transport(accepted))
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        finally:
            accepted.close()
            client.close()


def test_each_web_worker_is_a_process_on_the_shared_port_and_a_taken_port_is_refused():
    commands = web_commands(port=8000, workers=2)
    if SHARED_PORTS:
        assert len(commands) == 2 and all("tideline_kit.serving" in c for c in commands)
    else:
        assert commands[0][commands[0].index("--http") + 1] == "tideline_kit.serving:NoDelayProtocol"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(PortInUse, match="already in use"):
            check_port("127.0.0.1", taken.getsockname()[1])


@pytest.mark.skipif(not SHARED_PORTS, reason="SO_REUSEPORT spreads connections only on Linux")
def test_connections_made_together_are_spread_over_the_workers():
    """Two workers' sockets on one port: thirty-two connections opened at once do not all land on one
    (with one shared socket, the first worker to wake accepted every one of them)."""
    first = listening_socket("127.0.0.1", 0)
    port = first.getsockname()[1]
    second = listening_socket("127.0.0.1", port)
    try:
        for sock in (first, second):
            sock.listen(64)
            sock.setblocking(False)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]
        counts = []
        for sock in (first, second):
            n = 0
            while True:
                try:
                    accepted, _ = sock.accept()
                except BlockingIOError:
                    break
                accepted.close()
                n += 1
            counts.append(n)
        assert sum(counts) == 32 and min(counts) >= 4, counts  # a fair split fails this once in 400,000 runs
        for client in clients:
            client.close()
    finally:
        first.close()
        second.close()


def test_web_processes_start_with_two_malloc_arenas_unless_told_otherwise(monkeypatch):
    """glibc's per-thread arenas kept a web process's freed memory: two hold its peak under 1 GiB."""
    started: list[dict] = []

    class Recorded:
        def __init__(self, command, env=None, cwd=None):
            started.append(env)

    monkeypatch.setattr("tideline_kit.serving.subprocess.Popen", Recorded)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start_web(port=port, workers=2, env={"PATH": "/usr/bin"}, application="tideline_site.asgi.application")
    assert started and all(env == {"PATH": "/usr/bin", "MALLOC_ARENA_MAX": "2"} for env in started)
    assert web_environment({"MALLOC_ARENA_MAX": "8"})["MALLOC_ARENA_MAX"] == "8"  # an operator's choice stands
