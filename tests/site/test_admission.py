"""A web worker's request threads go to a person's page before agents' calls (tideline_site/admission.py).

Plain asyncio, no Django: the threads here are names, and a "request" is a take, some waiting, a give."""

from __future__ import annotations

import asyncio

import pytest

from tideline_site.admission import Admission, person_request


def _run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=10))


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


def test_no_new_agent_starts_while_a_page_runs_and_the_queued_ones_start_after_it_in_order():
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
        held_back = list(started)
        admission.give(page, person=True)
        await asyncio.gather(*agents)
        return held_back, started, admission.running

    held_back, started, running = _run(run())
    assert held_back == []
    assert started == [0, 1, 2]  # arrival order once the page is done
    assert running == {True: 0, False: 3}


def test_a_long_person_request_holds_agents_back_for_hold_seconds_only():
    """An export streaming for minutes must not stop the agents on its worker."""

    async def run():
        admission = Admission(["p0"], ["a0"], hold_seconds=0.1)
        await admission.take(person=True)  # never given back in this test
        loop = asyncio.get_running_loop()
        asked = loop.time()
        await admission.take(person=False)
        return loop.time() - asked

    waited = _run(run())
    assert 0.09 <= waited < 2


def test_a_person_waiting_for_a_thread_also_holds_agents_back():
    async def run():
        admission = Admission(["p0"], ["a0", "a1"])
        first = await admission.take(person=True)
        await asyncio.sleep(0)
        second = asyncio.create_task(admission.take(person=True))  # waits for the people's one thread
        agent = asyncio.create_task(admission.take(person=False))
        await asyncio.sleep(0.05)
        before = (second.done(), agent.done())
        admission.give(first, person=True)
        await asyncio.sleep(0)
        middle = (second.done(), agent.done())
        admission.give(await second, person=True)
        await agent
        return before, middle

    before, middle = _run(run())
    assert before == (False, False)
    assert middle == (True, False)  # the second page ran first; the agent after it


def test_a_request_that_goes_away_while_waiting_gives_nothing_up_and_frees_the_agents_it_held():
    async def run():
        admission = Admission(["p0"], ["a0"])
        page = await admission.take(person=True)
        gone = asyncio.create_task(admission.take(person=True))  # waits for p0
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        admission.give(page, person=True)
        return await admission.take(person=True), await admission.take(person=False), admission.running

    page, agent, running = _run(run())
    assert (page, agent) == ("p0", "a0")
    assert running == {True: 1, False: 1}


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
