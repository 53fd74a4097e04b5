"""`tideline_kit.telemetry`: operations carry names and counts only, end with their outcome, and an
observer's fault never reaches the operation it watches."""

from __future__ import annotations

import pytest

from tideline_kit import telemetry


class Recorder:
    def __init__(self) -> None:
        self.done: list[telemetry.Operation] = []
        self.nesting: list[str] = []

    def started(self, op):
        self.nesting.append(op.name)
        return len(self.nesting)

    def finished(self, op, handle):
        self.done.append(op)


class Refused(Exception):
    kind = "threat"


@pytest.fixture
def recorder():
    seen = Recorder()
    telemetry.observe(seen)
    yield seen
    telemetry.stop_observing(seen)


def test_an_operation_keeps_names_and_numbers_and_drops_anything_like_content(recorder):
    with telemetry.operation("memory.write", workspace_id=7, origin="owner", records=1) as op:
        op.set(outcome="stored", note="My sister Ana lives in Porto and her door code is 4471, do not share it.",
               listed=["a"], ratio=0.5, flag=True)  # fmt: skip
    done = recorder.done[-1]
    assert (done.name, done.outcome) == ("memory.write", "stored")
    assert done.attributes == {"workspace_id": 7, "origin": "owner", "records": 1, "ratio": 0.5, "flag": True}
    assert done.seconds >= 0


def test_a_refusal_and_an_error_end_the_operation_with_their_outcome_and_go_on(recorder):
    with pytest.raises(Refused), telemetry.operation("memory.write"):
        raise Refused("no")
    with pytest.raises(KeyError), telemetry.operation("memory.recall"):
        {}["missing"]
    assert [(op.outcome, op.attributes["error.type"]) for op in recorder.done] == [
        ("refused:threat", "Refused"), ("error", "KeyError")]  # fmt: skip


def test_a_decorated_function_is_one_operation_per_call(recorder):
    @telemetry.operation("governance.verdict.decide")
    def decide(x):
        return x * 2

    assert decide(2) == 4 and decide(3) == 6
    assert [op.name for op in recorder.done] == ["governance.verdict.decide"] * 2


def test_a_broken_observer_is_logged_and_never_breaks_the_operation(recorder, caplog):
    class Broken:
        def started(self, op):
            raise RuntimeError("observer down")

        def finished(self, op, handle):
            raise RuntimeError("observer down")

    broken = Broken()
    telemetry.observe(broken)
    try:
        with telemetry.operation("memory.recall") as op:
            op.set(outcome="answered")
    finally:
        telemetry.stop_observing(broken)
    assert recorder.done[-1].outcome == "answered"
    assert "telemetry observer" in caplog.text
