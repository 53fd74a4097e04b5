"""Retention policies as pure rules: what is refused and why, the TTL ladder preset, the words an
admin reads, and the run plan (the database filters must take exactly what the rule expires)."""

from __future__ import annotations

import itertools

import pytest

from governance.engine import retention as E
from memory.engine.lifecycle.expiry import DAY_MS, FactAge

BASE = {"name": "chat logs", "segments": ["context"], "max_age_seconds": "30d"}


def test_a_valid_policy_is_normalised():
    out = E.validate({**BASE, "classifications": "pii, internal", "tiers": ["short", "short"]})
    assert out["max_age_seconds"] == 30 * 86400 and out["classifications"] == ["INTERNAL", "PII"]
    assert out["tiers"] == ["short"] and out["action"] == "archive" and out["basis"] == "created"
    assert out["keep_confirmed"] and out["keep_permanent"] and out["enabled"]


def test_a_policy_with_no_scope_is_refused_unless_every_fact_is_meant():
    with pytest.raises(E.PolicyError) as refused:
        E.validate({"name": "all", "max_age_seconds": 3600})
    assert "no scope would expire every fact" in str(refused.value)
    assert E.validate({"name": "all", "max_age_seconds": 3600}, every_fact=True)["max_age_seconds"] == 3600
    with pytest.raises(E.PolicyError, match="'every fact' was ticked but a scope is set"):
        E.validate(BASE, every_fact=True)


@pytest.mark.parametrize(("change", "words"), [
    ({"max_age_seconds": 0}, "more than zero"),
    ({"max_age_seconds": "-3d"}, "more than zero"),
    ({"max_age_seconds": None}, "how old a fact may get"),
    ({"max_age_seconds": "soon"}, "not an age"),
    ({"max_age_seconds": "3 fortnights"}, "unknown unit"),
    ({"max_age_seconds": "200y"}, "at most 100 years"),
    ({"segments": ["context", "gossip"]}, "unknown segments: gossip"),
    ({"tiers": ["forever"]}, "unknown tiers: forever"),
    ({"classifications": ["SECRET"]}, "unknown classifications: SECRET"),
    ({"name": "  "}, "give the policy a name"),
    ({"name": "x" * 101}, "at most 100 characters"),
    ({"action": "burn"}, "archive or purge"),
    ({"basis": "read"}, "created or last_used"),
    ({"trust": "maybe"}, "trusted or untrusted"),
    ({"origin_kind": "owner", "origin_key": "channel:[x]"}, "is not of kind 'owner'"),
])  # fmt: skip
def test_what_cannot_be_enforced_is_refused_in_words(change, words):
    with pytest.raises(E.PolicyError) as refused:
        E.validate({**BASE, **change})
    assert words in str(refused.value)


def test_every_problem_is_named_at_once():
    with pytest.raises(E.PolicyError) as refused:
        E.validate({"name": "", "max_age_seconds": -1, "tiers": ["x"]})
    assert [p.split(" ")[0:2] for p in refused.value.problems] == [["give", "the"], ["unknown", "tiers:"], ["the", "age"]]


@pytest.mark.parametrize(("text", "seconds"), [
    ("30d", 30 * 86400), ("30 days", 30 * 86400), ("1 hour", 3600), ("90m", 5400), ("2 weeks", 14 * 86400),
    ("1y", 365 * 86400), ("45", 45), (45, 45), ("12h", 43200),
])  # fmt: skip
def test_ages_are_read_in_the_units_people_write(text, seconds):
    assert E.parse_age(text) == seconds


def test_the_ladder_makes_one_policy_per_rung_and_none_for_never():
    made = E.ladder(E.LADDER_TIERS, by="tiers", action="archive")
    assert [(p["tiers"], p["max_age_seconds"]) for p in made] == [(["short"], 30 * 86400), (["long"], 365 * 86400)]
    assert made[0]["name"] == "ladder: tier short · 30 days"
    grouped = E.ladder({"public": "1 hour", "INTERNAL": "1 hour", "PII": "30 days"}, by="classifications")
    assert [(p["classifications"], p["max_age_seconds"]) for p in grouped] == [
        (["INTERNAL", "PUBLIC"], 3600), (["PII"], 30 * 86400)]  # fmt: skip


def test_the_ladder_refuses_unknown_rungs_values_and_an_all_never_mapping():
    with pytest.raises(E.PolicyError, match="unknown rung '2 days'"):
        E.ladder({"short": "2 days"})
    with pytest.raises(E.PolicyError, match="unknown tier 'medium'"):
        E.ladder({"medium": "1 hour"})
    with pytest.raises(E.PolicyError, match="makes no policy"):
        E.ladder({"short": "never", "long": "never"})


def test_scope_and_rule_in_words():
    fields = E.validate({**BASE, "origin_kind": "channel", "tiers": ["short"], "trust": "untrusted", "action": "purge",
                         "keep_confirmed": False})  # fmt: skip
    assert E.scope_words(fields) == "channel peers' facts, segment context, tier short, from untrusted sources"
    assert E.rule_words(fields) == "older than 30 days since it was written; keeps permanent facts; purge (rows gone, receipt kept)"
    assert E.scope_words(E.validate({"name": "x", "max_age_seconds": 1}, every_fact=True)) == "every fact"


def _fact(**over):
    values = dict(origin_key="owner", segment="context", classification="INTERNAL", tier="short",
                  source_type="owner_message", status="asserted", created_ms=0, last_used_ms=0)  # fmt: skip
    values.update(over)
    return FactAge(**values)


def _matches(sel: E.Selection, fact: FactAge, lifecycle: str) -> bool:
    """The selection's filters, read the way the service turns them into SQL."""
    start = fact.last_used_ms if sel.basis == "last_used" else fact.created_ms
    ok = start < sel.cutoff_ms
    ok &= not sel.origin_key or fact.origin_key == sel.origin_key
    ok &= sel.origin_is_owner is None or (fact.origin_key == "owner") == sel.origin_is_owner
    ok &= not sel.segments or fact.segment in sel.segments
    ok &= not sel.classifications or fact.classification in sel.classifications
    ok &= not sel.tiers or fact.tier in sel.tiers
    if sel.trusted is not None:
        ok &= (fact.source_type in sel.untrusted_sources) != sel.trusted
    ok &= not (sel.exclude_confirmed and fact.status == "confirmed")
    ok &= not (sel.exclude_permanent and fact.tier == "permanent")
    return ok and (sel.lifecycles is None or lifecycle in sel.lifecycles)


def test_the_run_plan_filters_take_exactly_what_the_rule_expires():
    now = 100 * DAY_MS
    rules = [E.compile_rule(E.validate(fields, every_fact=not E.has_scope(fields)), policy=1, version=1) for fields in (
        {"name": "a", "max_age_seconds": "30d", "segments": ["context"]},
        {"name": "b", "max_age_seconds": "30d", "origin_kind": "owner", "basis": "last_used", "action": "purge"},
        {"name": "c", "max_age_seconds": "1d", "trust": "untrusted", "keep_confirmed": False, "keep_permanent": False},
        {"name": "d", "max_age_seconds": "1d", "origin_key": "channel:[s1]", "tiers": ["short", "permanent"]},
        {"name": "e", "max_age_seconds": "1d", "classifications": ["PII"], "trust": "trusted"},
    )]  # fmt: skip
    facts = [
        _fact(origin_key=o, segment=s, classification=c, tier=t, source_type=src, status=st, created_ms=cr, last_used_ms=lu)
        for o, s, c, t, src, st, cr, lu in itertools.product(
            ("owner", "channel:[s1]"), ("context", "identity"), ("PII", "PUBLIC"), ("short", "permanent"),
            ("owner_message", "tool_output", None), ("confirmed", None), (0, 99 * DAY_MS), (0, now - 1))
    ]  # fmt: skip
    for rule in rules:
        sel = E.selection(rule, now)
        for fact, lifecycle in itertools.product(facts, ("active", "archived")):
            assert E.takes(rule, fact, now, lifecycle=lifecycle) == _matches(sel, fact, lifecycle), (rule.name, fact, lifecycle)


def test_exactly_the_age_is_not_yet_expired():
    rule = E.compile_rule(E.validate(BASE), policy=1, version=1)
    assert not E.takes(rule, _fact(created_ms=0), 30 * DAY_MS)
    assert E.takes(rule, _fact(created_ms=0), 30 * DAY_MS + 1)
    assert E.plan(rule, [("a", "active", _fact()), ("b", "archived", _fact())], 31 * DAY_MS) == ["a"]
