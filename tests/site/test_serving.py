"""The web server's HTTP protocol turns Nagle's algorithm off (tideline_site/serving.py)."""

from __future__ import annotations

import contextlib
import socket

from tideline_site.serving import NoDelayProtocol, uvicorn_command


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


def test_the_server_command_uses_that_protocol():
    command = uvicorn_command(port=8000, workers=2)
    assert command[command.index("--http") + 1] == "tideline_site.serving:NoDelayProtocol"
    assert command[command.index("--workers") + 1] == "2"
