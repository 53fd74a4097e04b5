"""This process's resident memory: now (`resident_mb`) and the highest it reached in each phase of a
benchmark (`PeakSampler`), so a report can say which phase set the peak, not only how high it was."""

from __future__ import annotations

import resource
import threading


def resident_mb(pid: int | None = None) -> float:
    """This process's resident memory now, in MB (Linux; elsewhere its peak so far), or another
    process's (`pid`; 0 when it cannot be read, as after it exited)."""
    try:
        with open(f"/proc/{pid or 'self'}/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 if pid is None else 0.0


class PeakSampler:
    """Samples `resident_mb` every `interval` seconds in a daemon thread; `mark()` returns the highest
    seen since the previous mark (or the start). A peak shorter than the interval can be missed, so
    the process's own peak (`ru_maxrss`) stays the figure of record."""

    def __init__(self, interval: float = 0.02) -> None:
        self._lock = threading.Lock()
        self._peak = resident_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), name="peak-sampler", daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            now = resident_mb()
            with self._lock:
                self._peak = max(self._peak, now)

    def mark(self) -> float:
        now = resident_mb()
        with self._lock:
            peak, self._peak = max(self._peak, now), now
        return peak

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def peak_mb() -> float:
    """This process's peak resident memory in MB since it started its program.

    Linux's `ru_maxrss` carries over the high-water mark of the process that forked this one (a
    spawned child reports at least its parent's size then); `VmHWM` belongs to this program alone."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
