"""Ctrl-C on `tideline serve` (`make run`) stops every process it started, the worker's included.

A terminal's Ctrl-C signals the whole foreground process group. django-q2's processes, interrupted
all at once, used to leave five worker processes running after their parent had exited."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIDELINE = Path(sys.executable).parent / "tideline"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find what is left running")
def test_ctrl_c_leaves_no_process_behind(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'tideline.sqlite3'}", "TIDELINE_VAR_DIR": str(tmp_path),
           "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore"), "TIDELINE_Q_SYNC": ""}  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    port = _free_port()
    # A session of its own stands in for the terminal: the signal goes to its whole group.
    serve = subprocess.Popen([str(TIDELINE), "serve", "--port", str(port)], cwd=ROOT, env=env,
                             start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5)
                break
            except OSError:
                assert time.time() < deadline and serve.poll() is None, "the server did not start"
                time.sleep(0.5)
        marker = str(tmp_path / "tideline.sqlite3")  # not in the command lines: find them by environment instead
        # The cluster's own processes (sentinel, monitor, pusher, workers) come up a few seconds later.
        while len(started := [pid for pid in _processes_with("qcluster") if _environ_has(pid, marker)]) < 4:
            assert time.time() < deadline, f"the worker started {len(started)} process(es)"
            time.sleep(0.5)
        time.sleep(2)
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(timeout=30)
        time.sleep(1)
        assert [pid for pid in started if _alive(pid)] == []
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)


def _environ_has(pid: int, text: str) -> bool:
    try:
        return text in Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
