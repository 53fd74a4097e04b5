"""Which request runs next in a web worker process: a person's page before agents' calls.

A worker runs Django on a few kept request threads (`tideline_site.asgi`). They share one
interpreter lock, and a request gives the lock up at every database query and waits for it again
after: with eight agent writes running beside it, a console page that makes a dozen queries waited
for the lock at each of them, behind writes that went on arriving. Sixteen writers made the inbox
and the overview several times slower than alone (docs/BENCHMARKS.md, "The console while agents
write").

So each worker has two lanes of threads:
- **people** (a request without an `Authorization` header: the console, signed in with a cookie)
  have threads of their own, so a page never waits behind agents for a thread;
- **agents** (a bearer token: the API and MCP) run up to their lane's size at once, in arrival order,
  except that while a person's request waits, or has been running for less than `hold_seconds`, at
  most `beside_people` (one) agent requests run: new ones wait until the page is done, so it shares
  the lock with one agent, not eight. A person's request that runs longer (a streamed export, a large
  import) stops holding agents back once `hold_seconds` have passed.

Agents are slowed by people, never stopped: one agent request per worker always may run, so a stream
of requests without a token (a flood of anonymous page loads) cannot starve the agents of a worker,
only hold them to one at a time while it lasts. Those requests have two threads, so they never take
the agents' threads either.

Plain asyncio, no Django: the ASGI handler takes a thread with `take` and gives it back with `give`.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

Thread = TypeVar("Thread")


class Admission(Generic[Thread]):
    """The request threads of one event loop, in a people's lane and an agents' lane (module docstring)."""

    def __init__(self, people: list[Thread], agents: list[Thread], *, hold_seconds: float = 0.5,
                 beside_people: int = 1) -> None:  # fmt: skip
        if not people or not agents:
            raise ValueError("each lane needs at least one thread")
        self._free: dict[bool, deque[Thread]] = {True: deque(people), False: deque(agents)}  # person? → threads
        self._waiting: dict[bool, deque[asyncio.Future]] = {True: deque(), False: deque()}
        self._holds: dict[int, asyncio.TimerHandle] = {}  # id(thread) → a person's request holding agents back
        self.running = {True: 0, False: 0}
        self.hold_seconds = hold_seconds
        self.beside_people = max(1, beside_people)  # at least one: agents are never stopped

    def threads(self) -> list[Thread]:
        """Every thread of both lanes that is free now (all of them before the first request)."""
        return [*self._free[True], *self._free[False]]

    def _may_start(self, person: bool) -> bool:
        if not self._free[person]:
            return False
        held = self._holds or self._waiting[True]
        return person or not held or self.running[False] < self.beside_people

    async def take(self, *, person: bool) -> Thread:
        """A thread for one request; waits, in arrival order within its lane, until one may start."""
        if not self._waiting[person] and self._may_start(person):
            return self._start(person)
        waiter = asyncio.get_running_loop().create_future()
        self._waiting[person].append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed a thread just as it was cancelled
                self.give(waiter.result(), person=person)
            else:
                self._waiting[person].remove(waiter)
                self._wake()  # agents held back for this person may start now
            raise

    def give(self, thread: Thread, *, person: bool) -> None:
        """Give back a thread taken with `take(person=…)`."""
        self.running[person] -= 1
        self._free[person].append(thread)
        hold = self._holds.pop(id(thread), None) if person else None
        if hold is not None:
            hold.cancel()
        self._wake()

    def _start(self, person: bool) -> Thread:
        self.running[person] += 1
        thread = self._free[person].popleft()
        if person:
            key = id(thread)
            self._holds[key] = asyncio.get_running_loop().call_later(self.hold_seconds, self._release, key)
        return thread

    def _release(self, key: int) -> None:
        """A person's request has run `hold_seconds`: agents no longer wait for it."""
        if self._holds.pop(key, None) is not None:
            self._wake()

    def _wake(self) -> None:
        for person in (True, False):
            queue = self._waiting[person]
            while queue and self._may_start(person):
                waiter = queue.popleft()
                if not waiter.cancelled():
                    waiter.set_result(self._start(person))


def person_request(headers: list[tuple[bytes, bytes]]) -> bool:
    """A request from a person at the console rather than an agent: it carries no `Authorization`
    header (agents always send their bearer token; the console signs in with a cookie)."""
    return not any(name.lower() == b"authorization" for name, _ in headers)


def per_loop(make: Callable[[], Admission]) -> Callable[[], Admission]:
    """`make()` once per running event loop (one per worker process; the tests run several)."""
    made: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def admission() -> Admission:
        loop = asyncio.get_running_loop()
        if loop not in made:
            made[loop] = make()
        return made[loop]

    return admission
