"""Handing freed memory back to the system between the large phases of a pass.

The similarity searches allocate and free arrays of tens of megabytes from two threads. glibc keeps
much of that freed memory in its per-thread arenas (and, once it has freed a large block, serves
blocks up to 32 MB from the heap rather than mapping them), so a million-fact dream held about half a
gigabyte it no longer used between slices. `malloc_trim` returns it. Elsewhere (another C library,
another system) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc's `malloc_trim(0)`), when there is one."""
    trim = _trim()
    if trim is not None:
        trim(0)
