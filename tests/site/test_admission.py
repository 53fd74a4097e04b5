"""A web worker's request threads go to a person's page before agents' calls (tideline_site/admission.py).

Plain asyncio, no Django: the threads here are names, and a "request" is a take, some waiting, a give."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from tideline_site.admission import Admission, person_request


def _run(coroutine):
    """asyncio.run on a thread of its own: the browser tests leave Playwright's loop running on the
    main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coroutine, timeout=10)).result(timeout=30)


def test_a_person_gets_a_thread_while_every_agent_thread_is_busy_and_agents_queue():
    async def run():
        admission = Admission(["p0"], ["a0", "a1"])
        busy = [await admission.take(person=False) for _ in range(2)]
        queued = asyncio.create_task(admission.take(person=False))
        await asyncio.sleep(0)
        page = await admission.take(person=True)  # not behind the queued agent
        return busy, queued.done(), page

    busy, agent_started, page = _run(run())
    assert busy == ["a0", "a1"] and page == "p0"
    assert not agent_started


def test_while_a_page_runs_one_agent_request_runs_beside_it_and_the_rest_start_after_it_in_order():
    async def run():
        admission = Admission(["p0"], ["a0", "a1", "a2"])
        page = await admission.take(person=True)
        started: list[int] = []

        async def agent(number):
            thread = await admission.take(person=False)
            started.append(number)
            return thread

        agents = [asyncio.create_task(agent(n)) for n in range(3)]
        await asyncio.sleep(0.05)
        beside = list(started)
        admission.give(page, person=True)
        await asyncio.gather(*agents)
        return beside, started, admission.running

    beside, started, running = _run(run())
    assert beside == [0]  # one agent goes on; the others wait for the page
    assert started == [0, 1, 2]  # arrival order once the page is done
    assert running == {True: 0, False: 3}


def test_a_flood_of_pages_slows_agents_to_one_at_a_time_and_never_stops_them():
    async def run():
        admission = Admission(["p0", "p1"], ["a0", "a1"], hold_seconds=3600)
        for _ in range(2):
            await admission.take(person=True)  # never given back: the people's lane stays full
        flood = [asyncio.create_task(admission.take(person=True)) for _ in range(5)]
        first = await admission.take(person=False)
        second = asyncio.create_task(admission.take(person=False))
        await asyncio.sleep(0.05)
        held = second.done()
        admission.give(first, person=False)
        await second
        for task in flood:
            task.cancel()
        await asyncio.gather(*flood, return_exceptions=True)
        return first, held

    first, held = _run(run())
    assert first == "a0"
    assert not held  # the second agent waited for the first, not for the flood


def test_a_long_person_request_holds_agents_back_for_hold_seconds_only():
    """An export streaming for minutes must not keep its worker's agents to one at a time."""

    async def run():
        admission = Admission(["p0"], ["a0", "a1"], hold_seconds=0.1)
        await admission.take(person=True)  # never given back in this test
        await admission.take(person=False)  # the one agent beside it
        loop = asyncio.get_running_loop()
        asked = loop.time()
        await admission.take(person=False)
        return loop.time() - asked

    waited = _run(run())
    assert 0.09 <= waited < 2


def test_a_person_waiting_for_a_thread_also_holds_agents_back():
    async def run():
        admission = Admission(["p0"], ["a0", "a1", "a2"])
        first = await admission.take(person=True)
        beside = await admission.take(person=False)
        second = asyncio.create_task(admission.take(person=True))  # waits for the people's one thread
        await asyncio.sleep(0)
        agent = asyncio.create_task(admission.take(person=False))
        await asyncio.sleep(0.05)
        before = (second.done(), agent.done())
        admission.give(first, person=True)
        await asyncio.sleep(0)
        middle = (second.done(), agent.done())
        admission.give(await second, person=True)
        admission.give(beside, person=False)
        await agent
        return before, middle

    before, middle = _run(run())
    assert before == (False, False)
    assert middle == (True, False)  # the second page ran first; the agent after it


def test_a_request_that_goes_away_while_waiting_gives_nothing_up_and_frees_the_agents_it_held():
    async def run():
        admission = Admission(["p0"], ["a0", "a1"])
        page = await admission.take(person=True)
        beside = await admission.take(person=False)
        gone = asyncio.create_task(admission.take(person=True))  # waits for p0
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        admission.give(page, person=True)
        return await admission.take(person=False), beside, admission.running

    agent, beside, running = _run(run())
    assert (agent, beside) == ("a1", "a0")
    assert running == {True: 0, False: 2}


def test_an_admission_needs_a_thread_in_each_lane():
    with pytest.raises(ValueError):
        Admission([], ["a0"])


@pytest.mark.parametrize(
    ("headers", "person"),
    [
        ([(b"cookie", b"sessionid=x")], True),
        ([(b"authorization", b"Bearer tl_x")], False),
        ([(b"Authorization", b"Bearer tl_x"), (b"cookie", b"sessionid=x")], False),
        ([], True),
    ],
)
def test_an_agent_is_a_request_with_an_authorization_header(headers, person):
    assert person_request(headers) is person
