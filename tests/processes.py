"""Real processes for fault tests: run a script until it reaches a named point, then kill -9 it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kill_when_marked(script: str, marker: Path, *args: str, env: dict, timeout: float = 120) -> str:
    """Run `python -c script marker *args` in the repository root and SIGKILL it as soon as it writes
    `marker` (the point the test wants it stopped at), or when it exits or `timeout` passes first.
    Returns its stderr (the tail of which a test shows when the marker never appeared)."""
    process = subprocess.Popen([sys.executable, "-c", script, str(marker), *args], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and process.poll() is None and not marker.exists():
            time.sleep(0.02)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        _, err = process.communicate()
    return err.decode(errors="replace")
