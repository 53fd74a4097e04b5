"""Property tests (hypothesis) for the write path: trust and origin boundaries always hold."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.engine.facts import records as R
from memory.models import Fact
from memory.services.workspaces import create_workspace
from memory.services.writes.policy import TidelineError
from memory.services.writes.write_path import NewFact, write_fact

pytestmark = pytest.mark.django_db
_names = itertools.count()

# A small vocabulary so that duplicates, near-duplicates and slot collisions happen often.
WORDS = ["tea", "coffee", "porto", "lisbon", "runs", "daily", "prefers", "strict", "vegetarian", "diet", "deploys",
         "fridays", "mondays", "dark", "mode", "editor", "lives", "works", "lumen", "freight"]  # fmt: skip
ORIGINS = [R.Origin.owner(), R.Origin("channel", "wa", "c1", "s1"), R.Origin("channel", "wa", "c1", "s2")]

writes = st.lists(
    st.builds(
        lambda words, segment, source, slot, origin, target: (" ".join(words) + ".", segment, source, slot, origin, target),
        st.lists(st.sampled_from(WORDS), min_size=3, max_size=7),
        st.sampled_from(R.SEGMENTS),
        st.sampled_from([None, "owner_message", "channel_message", "tool_output", "retrieved_document", "extraction"]),
        st.sampled_from([None, None, "home_city", "diet"]),
        st.sampled_from(range(len(ORIGINS))),
        st.one_of(st.none(), st.integers(min_value=0, max_value=30)),
    ),
    min_size=1,
    max_size=14,
)


def _snapshot(facts) -> dict:
    fields = ("segment", "tier", "importance", "access_count", "lifecycle", "valid_to", "subject_key", "status",
              "confidence", "last_accessed_at")  # fmt: skip
    return {f.pk: tuple(getattr(f, name) for name in fields) for f in facts}


def _apply(workspace, step, written: list[str]):
    content, segment, source, slot, origin_index, target = step
    supersedes = (written[target % len(written)],) if target is not None and written else ()
    new = NewFact(content=content, segment=segment, source_type=source, subject_key=slot,
                  origin=ORIGINS[origin_index], supersedes=supersedes, force=True)  # fmt: skip
    try:
        result = write_fact(workspace=workspace, new=new, actor="hypothesis")
    except TidelineError:
        return None
    written.append(result.fact.memory_id)
    return result


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=writes)
def test_no_untrusted_write_ever_changes_a_trusted_fact(steps):
    workspace = create_workspace(f"prop-trust-{next(_names)}")
    written: list[str] = []
    for step in steps:
        trusted_before = _snapshot(
            Fact.objects.filter(workspace=workspace).exclude(source_type__in=list(R.UNTRUSTED_SOURCE_TYPES))
        )
        result = _apply(workspace, step, written)
        if not R.is_untrusted_source(step[2]):
            continue
        trusted_after = _snapshot(Fact.objects.filter(pk__in=list(trusted_before)))
        assert trusted_after == trusted_before
        if result is not None:
            assert R.is_untrusted_source(result.fact.source_type)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=writes)
def test_dedup_and_supersession_never_cross_origins(steps):
    workspace = create_workspace(f"prop-origin-{next(_names)}")
    written: list[str] = []
    for step in steps:
        origin = ORIGINS[step[4]]
        others_before = _snapshot(Fact.objects.filter(workspace=workspace).exclude(origin_key=origin.key))
        result = _apply(workspace, step, written)
        others_after = _snapshot(Fact.objects.filter(pk__in=list(others_before)))
        assert others_after == others_before
        if result is not None:
            assert result.fact.origin_key == origin.key
