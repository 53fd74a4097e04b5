"""The hard purge's provenance cascade (memory.engine.lifecycle.provenance): what goes with the seeds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.lifecycle.provenance import cascade, sources_of


def _run(seeds, pointers, links=(), live=None, **kw):
    sources = sources_of(pointers, links)
    facts = set(pointers) | {f for pair in links for f in pair} | set(seeds)
    return cascade(seeds, sources, facts if live is None else set(live), known=facts, **kw)


def test_a_summary_of_one_purged_fact_goes_and_its_own_summary_too():
    result = _run(["a"], {"a": [], "s": ["a"], "ss": ["s"], "x": []})
    assert result.seeds == ("a",) and result.cascaded == ("s", "ss") and set(result.purged) == {"a", "s", "ss"}


def test_a_fact_with_another_live_source_stays():
    assert _run(["a"], {"a": [], "b": [], "s": ["a", "b"]}).cascaded == ()


def test_an_archived_or_missing_other_source_keeps_nothing_alive():
    assert _run(["a"], {"a": [], "b": [], "s": ["a", "b", "gone"]}, live={"a", "s"}).cascaded == ("s",)


def test_derived_from_links_count_like_source_pointers():
    assert _run(["a"], {"a": [], "s": []}, links=[("s", "a")]).cascaded == ("s",)
    assert _run(["a"], {"a": [], "b": [], "s": ["b"]}, links=[("s", "a")]).cascaded == ()


def test_two_facts_that_only_stand_on_each_other_and_the_seed_go_with_it():
    assert set(_run(["a"], {"a": [], "p": ["a", "q"], "q": ["a", "p"]}).cascaded) == {"p", "q"}
    # ... unless one of them has a live source of its own.
    assert _run(["a"], {"a": [], "b": [], "p": ["a", "q"], "q": ["a", "p", "b"]}).cascaded == ()


def test_purging_both_sources_takes_their_summary():
    assert _run(["a", "b"], {"a": [], "b": [], "s": ["a", "b"]}).cascaded == ("s",)


def test_an_ineligible_member_stays_and_holds_up_what_stands_on_it():
    pointers = {"a": [], "young": ["a"], "old": ["young"], "other": ["a"]}
    result = _run(["a"], pointers, eligible={"old", "other"})
    assert result.cascaded == ("other",)
    assert _run(["a"], pointers, eligible=lambda f: f != "young").cascaded == ("other",)


def test_no_cascade_and_unknown_seeds():
    assert _run(["a"], {"a": [], "s": ["a"]}, follow=False).purged == ("a",)
    result = cascade(["a", "nope", "a"], {"s": {"a"}}, {"a", "s"}, known={"a", "s"})
    assert result.seeds == ("a",) and result.cascaded == ("s",)


ids = st.sampled_from([f"f{i}" for i in range(12)])


@settings(max_examples=300, deadline=None)
@given(
    pointers=st.dictionaries(ids, st.lists(ids, max_size=3), min_size=1),
    links=st.lists(st.tuples(ids, ids), max_size=8),
    live=st.sets(ids),
    seeds=st.lists(ids, max_size=3),
    eligible=st.none() | st.sets(ids),
)
def test_cascade_properties(pointers, links, live, seeds, eligible):
    sources = sources_of(pointers, links)
    known = set(pointers) | {f for pair in links for f in pair}
    result = cascade(seeds, sources, live, known=known, eligible=eligible)
    purged = set(result.purged)
    assert set(result.seeds) == {s for s in seeds if s in known}
    assert len(result.purged) == len(purged)  # no duplicates
    for fact in result.cascaded:
        srcs = sources.get(fact, set())
        # Nothing with a surviving live source is purged ...
        assert not {s for s in srcs if s in live} - purged
        # ... and every purged non-seed stands on something purged, and may go.
        assert srcs & purged
        assert eligible is None or fact in eligible
    assert purged == _naive(set(result.seeds), sources, live, known, eligible)


def _naive(seeds, sources, live, known, eligible):
    """The same largest consistent set, computed the slow obvious way: start from every eligible
    known fact standing (transitively) on a seed, drop violators until none is left."""
    members = set(seeds)
    grown = True
    while grown:
        more = {f for f in known - members if (eligible is None or f in eligible) and sources.get(f, set()) & members}
        members |= more
        grown = bool(more)
    while True:
        bad = {f for f in members - seeds
               if not (sources.get(f, set()) & members) or {s for s in sources.get(f, set()) if s in live} - members}
        if not bad:
            return members
        members -= bad
