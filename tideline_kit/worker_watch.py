"""How `tideline serve` keeps its django-q2 worker running, and says so on stderr when it is not.

The worker is `manage.py qcluster`: a process whose sentinel forks the pusher, the monitor and the
worker processes and brings back any that dies. Two things it cannot bring back itself are watched
here: the cluster process exiting (its sentinel died), and a sentinel that stops reporting its
status (every half second into the cache, as `Stat`). Either is said on stderr and the worker is
started again, a little later each time it fails again soon after a start. Worker processes that
keep dying (the sentinel reincarnating them over and over: the database unreachable, say) are said
too, and left to the sentinel: a new cluster would meet the same database.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

STARTUP_GRACE = 60.0  # seconds a new cluster may take before its first status
STALE_AFTER = 20.0  # seconds without a status before the cluster counts as down
CHECK_EVERY = 2.0  # seconds between looks at the cluster's status
CRASH_LOOP = 3  # reincarnations within a minute that are worth saying


def _stderr(line: str) -> None:
    print(f"worker: {line}", file=sys.stderr, flush=True)


def cluster_status(pid: int):
    """The status the cluster started as process `pid` last saved (django_q's Stat), or None."""
    from django.db import close_old_connections
    from django_q.status import Stat

    close_old_connections()  # with TIDELINE_CACHE=database: a dropped connection is not reused
    return next((stat for stat in Stat.get_all() if stat.pid == pid), None)


class WorkerWatch:
    def __init__(self, command: Sequence[str], env: dict, *, say: Callable[[str], None] = _stderr,
                 status: Callable[[int], object] = cluster_status) -> None:  # fmt: skip
        self.command, self.env, self.say, self.status = list(command), env, say, status
        self.process: subprocess.Popen | None = None
        self.restarts = 0  # consecutive failures soon after a start (the back-off grows with them)
        self.down_since: float | None = None  # when it was found down, while it waits to be restarted
        self.reincarnations: list[tuple[float, int]] = []
        self.crash_loop_said = self.unreadable_said = False

    def start(self) -> None:
        # Its own session: Ctrl-C in a terminal signals the whole foreground group, and django-q2's
        # processes, interrupted all at once, left their worker processes running after their
        # parent exited. Here only `stop` signals it (SIGTERM: an orderly stop).
        self.process = subprocess.Popen(self.command, env=self.env, start_new_session=True)
        self.started = self.last_seen = self.last_check = time.monotonic()
        self.reincarnations, self.crash_loop_said = [], False

    def check(self) -> None:
        """Called every half second or so by `tideline serve`."""
        now = time.monotonic()
        if self.down_since is not None:
            if now - self.down_since >= self._backoff():
                self.down_since = None
                self.start()
            return
        assert self.process is not None
        code = self.process.poll()
        if code is not None:
            self._sweep()
            self._down(f"stopped (exit code {code})", now)
            return
        if now - self.last_check < CHECK_EVERY:
            return
        self.last_check = now
        try:
            stat = self.status(self.process.pid)
        except Exception as error:  # the cache (or the database behind it) unreachable: say once, keep watching
            if not self.unreadable_said:
                self.say(f"cannot read the worker's status ({error})")
                self.unreadable_said = True
            return
        self.unreadable_said = False
        if stat is None:
            waited = now - self.last_seen
            if waited >= (STARTUP_GRACE if self.last_seen == self.started else STALE_AFTER):
                self.stop(timeout=10)
                self._down(f"not running (no status for {waited:.0f} s)", now)
            return
        self.last_seen = now
        if now - self.started > STARTUP_GRACE:
            self.restarts = 0  # it ran a while: the next failure starts the back-off afresh
        self._watch_reincarnations(now, int(getattr(stat, "reincarnations", 0)))

    def _watch_reincarnations(self, now: float, count: int) -> None:
        self.reincarnations = [(t, c) for t, c in self.reincarnations if now - t <= 60] + [(now, count)]
        recent = count - self.reincarnations[0][1]
        if recent >= CRASH_LOOP and not self.crash_loop_said:
            self.say(f"its processes keep dying ({recent} restarted in the last minute): is the database reachable?")
            self.crash_loop_said = True
        elif recent == 0 and self.crash_loop_said:
            self.say("its processes run again")
            self.crash_loop_said = False

    def _backoff(self) -> float:
        return min(60.0, 2.0 * 2 ** max(0, self.restarts - 1))

    def _down(self, why: str, now: float) -> None:
        self.restarts += 1
        self.down_since = now
        self.say(f"{why}; starting it again in {self._backoff():.0f} s (queued tasks wait until then)")

    def stop(self, timeout: float) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()  # qcluster shuts down cleanly on SIGTERM
        try:
            process.wait(timeout=max(0.1, timeout))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._sweep()

    def _sweep(self) -> None:
        """Kill whatever is left of the worker's session (its id is the worker's pid): no worker
        process outlives it, even when the worker itself was killed for not stopping in time."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left
                os.killpg(self.process.pid, signal.SIGKILL)
