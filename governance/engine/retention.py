"""Retention policies as plain rules: validation, the TTL ladder preset, the words, and the run plan.

A policy is a dict of the `RetentionPolicy` fields. `validate` refuses what cannot be enforced and
returns the fields normalised; `compile_rule` turns them into the `ExpiryRule` recall enforces.

Scope decision: a policy whose scope is empty (no origin, segment, classification, tier or trust)
would expire every fact of the workspace. That is refused unless the admin says so explicitly
(`every_fact=True`: the console's "every fact" box, the CLI's `--every-fact`), so a form submitted
with nothing ticked never becomes a rule that ages out the whole memory.

The run plan (`selection`) says which facts a policy takes now, as filters a database can apply
(an age cutoff and scope sets), so the service never loops over every fact in Python; `takes` is
the same decision for one fact, the reference the filters are tested against.

Pure: no Django. Times are epoch milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry

SCOPE_FIELDS = ("origin_kind", "origin_key", "segments", "classifications", "tiers", "trust")
RULE_FIELDS = ("basis", "max_age_seconds", "keep_confirmed", "keep_permanent", "action")
FIELDS = ("name", "enabled", *SCOPE_FIELDS, *RULE_FIELDS)
DEFAULTS: dict[str, Any] = {
    "name": "", "enabled": True, "origin_kind": "", "origin_key": "", "segments": [], "classifications": [],
    "tiers": [], "trust": "", "basis": "created", "max_age_seconds": None, "keep_confirmed": True,
    "keep_permanent": True, "action": "archive",
}  # fmt: skip
NAME_MAX = 100
ORIGIN_MAX = 900
# A hundred years: longer is "never" (and would overflow date arithmetic); a policy then makes no sense.
MAX_AGE_SECONDS = 100 * 365 * 24 * 3600

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
_UNIT_WORDS = {"second": "s", "minute": "m", "hour": "h", "day": "d", "week": "w", "year": "y",
               "sec": "s", "min": "m", "hr": "h"}  # fmt: skip

# The TTL ladder in seconds (ENGINE-SPEC §6.2) ("never" is no policy at all).
LADDER = {name: (ms // 1000 if ms else None) for name, ms in expiry.TTL_LADDER.items()}
LADDER_BY = ("tiers", "classifications")
# The ladder's usual reading of Tideline's tiers: working memory (short) a month, long a year, permanent never.
LADDER_TIERS = {"short": "30 days", "long": "1 year", "permanent": "never"}


class PolicyError(ValueError):
    """A policy that cannot be enforced; `problems` lists every reason, in words for a person."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse_age(text: Any) -> int:
    """Seconds from "30d", "30 days", "1h", "90 minutes", "1y" or a bare number of seconds."""
    if isinstance(text, bool):
        raise PolicyError([f"not an age: {text!r}"])
    if isinstance(text, int):
        return text
    match = re.fullmatch(r"\s*(-?\d+)\s*([a-z]*)\s*", str(text or "").lower())
    if not match:
        raise PolicyError([f"not an age: {text!r} (write e.g. 30d, 12h, 1y or a number of seconds)"])
    number, unit = int(match[1]), match[2]
    unit = unit.rstrip("s") if len(unit) > 1 else unit
    unit = _UNIT_WORDS.get(unit, unit)
    if unit and unit not in UNITS:
        raise PolicyError([f"unknown unit in {text!r}: use s, m, h, d, w or y"])
    return number * UNITS[unit or "s"]


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = value.split(",")
    return sorted({str(item).strip() for item in value if str(item).strip()})


def has_scope(fields: Mapping[str, Any]) -> bool:
    return any(fields.get(name) for name in SCOPE_FIELDS)


def validate(fields: Mapping[str, Any], *, every_fact: bool = False) -> dict[str, Any]:
    """The policy's fields normalised (lists sorted, age in whole seconds), or `PolicyError` naming
    every problem. Missing fields take their defaults; unknown names are ignored."""
    out = {name: fields.get(name, DEFAULTS[name]) for name in FIELDS}
    problems: list[str] = []
    name = str(out["name"] or "").strip()
    if not name:
        problems.append("give the policy a name")
    elif len(name) > NAME_MAX or "\x00" in name:
        problems.append(f"the name must be at most {NAME_MAX} characters")
    out["name"] = name
    for key in ("segments", "classifications", "tiers"):
        out[key] = _as_list(out[key])
    out["classifications"] = sorted({c.upper() for c in out["classifications"]})
    for key, allowed in (("segments", R.SEGMENTS), ("classifications", R.CLASSIFICATIONS), ("tiers", R.TIERS)):
        unknown = sorted(set(out[key]) - set(allowed))
        if unknown:
            problems.append(f"unknown {key}: {', '.join(unknown)} (known: {', '.join(allowed)})")
    for key in ("origin_kind", "origin_key", "trust", "basis", "action"):
        out[key] = str(out[key] or "").strip()
    out["basis"] = out["basis"] or "created"
    out["action"] = out["action"] or "archive"
    if out["origin_kind"] not in expiry.ORIGIN_KINDS:
        problems.append("origin kind must be owner or channel (or empty for any origin)")
    if len(out["origin_key"]) > ORIGIN_MAX or "\x00" in out["origin_key"]:
        problems.append("that origin is too long to name any fact's origin")
    elif out["origin_key"]:
        kind = "owner" if out["origin_key"] == "owner" else "channel"
        if out["origin_kind"] and out["origin_kind"] != kind:
            problems.append(f"origin {out['origin_key']!r} is not of kind {out['origin_kind']!r}")
        out["origin_kind"] = ""  # one origin is narrower than its kind: keep one way of saying it
    if out["trust"] not in expiry.TRUSTS:
        problems.append("trust must be trusted or untrusted (or empty for any source)")
    if out["basis"] not in expiry.BASES:
        problems.append("the age counts from created or last_used")
    if out["action"] not in expiry.ACTIONS:
        problems.append("the action must be archive or purge")
    for key in ("enabled", "keep_confirmed", "keep_permanent"):
        out[key] = bool(out[key])
    try:
        age = out["max_age_seconds"]
        age = parse_age(age) if age is not None and age != "" else None
    except PolicyError as error:
        problems += error.problems
        age = 0
    if age is None:
        problems.append("say how old a fact may get (e.g. 30d)")
    elif age < 1:
        problems.append("the age must be more than zero (a fact cannot be expired before it is written)")
    elif age > MAX_AGE_SECONDS:
        problems.append("the age must be at most 100 years (longer means never: no policy)")
    out["max_age_seconds"] = age
    if not has_scope(out) and not every_fact:
        problems.append("a policy with no scope would expire every fact: choose an origin, segments, "
                        "classifications, tiers or trust, or tick 'every fact' to mean it")  # fmt: skip
    if has_scope(out) and every_fact:
        problems.append("'every fact' was ticked but a scope is set: choose one")
    if problems:
        raise PolicyError(problems)
    return out


def compile_rule(fields: Mapping[str, Any], *, policy: int, version: int) -> expiry.ExpiryRule:
    """The enforceable form of a validated policy."""
    return expiry.ExpiryRule(
        policy=policy, name=fields["name"], version=version, max_age_ms=int(fields["max_age_seconds"]) * 1000,
        basis=fields["basis"], origin_kind=fields["origin_kind"], origin_key=fields["origin_key"],
        segments=frozenset(fields["segments"]), classifications=frozenset(fields["classifications"]),
        tiers=frozenset(fields["tiers"]), trust=fields["trust"], keep_confirmed=fields["keep_confirmed"],
        keep_permanent=fields["keep_permanent"], action=fields["action"],
    )  # fmt: skip


# ---------------------------------------------------------------- the TTL ladder preset


def ladder(mapping: Mapping[str, str], *, by: str = "tiers", prefix: str = "ladder",
           **common: Any) -> list[dict[str, Any]]:
    """Policies from the TTL ladder: `mapping` gives each tier (or classification) a rung ("1 hour",
    "30 days", "1 year", "never"). Values on the same rung share one policy; "never" makes none.
    `common` fields (basis, action, keeps, origin…) go on every policy. Returns validated fields."""
    if by not in LADDER_BY:
        raise PolicyError([f"the ladder maps onto {' or '.join(LADDER_BY)}"])
    allowed = R.TIERS if by == "tiers" else R.CLASSIFICATIONS
    problems, rungs = [], {}
    for value, rung in mapping.items():
        value = value.upper() if by == "classifications" else value
        if value not in allowed:
            problems.append(f"unknown {by[:-1]} {value!r} (known: {', '.join(allowed)})")
        elif rung not in LADDER:
            problems.append(f"unknown rung {rung!r} for {value} (the ladder: {', '.join(LADDER)})")
        elif LADDER[rung] is not None:
            rungs.setdefault(rung, []).append(value)
    if problems:
        raise PolicyError(problems)
    if not rungs:
        raise PolicyError(["every value is on 'never': the ladder makes no policy"])
    out = []
    for rung, values in sorted(rungs.items(), key=lambda item: LADDER[item[0]]):
        fields = {**common, by: sorted(values), "max_age_seconds": LADDER[rung],
                  "name": f"{prefix}: {by[:-1]} {', '.join(sorted(values))} · {rung}"}  # fmt: skip
        out.append(validate(fields))
    return out


# ---------------------------------------------------------------- words


def age_words(seconds: int) -> str:
    return expiry.age_words(int(seconds) * 1000)


def scope_words(fields: Mapping[str, Any]) -> str:
    """E.g. "channel peers' facts in segment context, tier short, from untrusted sources"."""
    if fields.get("origin_key"):
        who = f"facts of origin {fields['origin_key']}"
    elif fields.get("origin_kind") == "owner":
        who = "the owner's facts"
    elif fields.get("origin_kind") == "channel":
        who = "channel peers' facts"
    else:
        who = "facts of any origin"
    parts = [who]
    for key, word in (("segments", "segment"), ("classifications", "classification"), ("tiers", "tier")):
        values = list(fields.get(key) or ())
        if values:
            parts.append(f"{word}{'s' if len(values) > 1 else ''} {', '.join(values)}")
    if fields.get("trust"):
        parts.append(f"from {fields['trust']} sources")
    if len(parts) == 1 and who == "facts of any origin":
        return "every fact"
    return ", ".join(parts)


def rule_words(fields: Mapping[str, Any]) -> str:
    """E.g. "older than 30 days since it was written; keeps confirmed and permanent facts; archive"."""
    since = "since it was last used" if fields.get("basis") == "last_used" else "since it was written"
    keeps = [word for key, word in (("keep_confirmed", "confirmed"), ("keep_permanent", "permanent")) if fields.get(key)]
    kept = f"keeps {' and '.join(keeps)} facts" if keeps else "keeps nothing back"
    action = "purge (rows gone, receipt kept)" if fields.get("action") == "purge" else "archive (reversible)"
    return f"older than {age_words(fields['max_age_seconds'])} {since}; {kept}; {action}"


# ---------------------------------------------------------------- the run plan


@dataclass(frozen=True)
class Selection:
    """What a policy takes now, as filters: facts whose `basis` time is before `cutoff_ms`, in scope,
    and not kept. Empty sets mean "any"; `origin_is_owner` is None for any origin."""

    cutoff_ms: float
    basis: str
    origin_key: str
    origin_is_owner: bool | None
    segments: frozenset[str]
    classifications: frozenset[str]
    tiers: frozenset[str]
    untrusted_sources: frozenset[str] | None  # the trust filter: these source types (or None)
    trusted: bool | None  # True: not in untrusted_sources (or no source type); False: in them
    exclude_confirmed: bool
    exclude_permanent: bool
    lifecycles: tuple[str, ...] | None  # archive takes active facts; purge every lifecycle (ENGINE-SPEC §6.2)


def selection(rule: expiry.ExpiryRule, now_ms: float) -> Selection:
    """The database filters equivalent to `takes(rule, fact, now_ms)` for every fact."""
    trusted = None if not rule.trust else rule.trust == "trusted"
    return Selection(
        cutoff_ms=now_ms - rule.max_age_ms, basis=rule.basis, origin_key=rule.origin_key,
        origin_is_owner=None if not rule.origin_kind else rule.origin_kind == "owner",
        segments=rule.segments, classifications=rule.classifications, tiers=rule.tiers,
        untrusted_sources=R.UNTRUSTED_SOURCE_TYPES if trusted is not None else None, trusted=trusted,
        exclude_confirmed=rule.keep_confirmed, exclude_permanent=rule.keep_permanent,
        lifecycles=("active",) if rule.action == "archive" else None,
    )  # fmt: skip


def takes(rule: expiry.ExpiryRule, fact: expiry.FactAge, now_ms: float, *, lifecycle: str = "active") -> bool:
    """Whether a run of `rule` at `now_ms` takes this fact: archived (if active) or purged (any lifecycle)."""
    if rule.action == "archive" and lifecycle != "active":
        return False
    return expiry.expiring_rule([rule], fact, now_ms) is not None


def plan(rule: expiry.ExpiryRule, facts: Iterable[tuple[str, str, expiry.FactAge]], now_ms: float) -> list[str]:
    """The ids a run takes among `(memory_id, lifecycle, age)` candidates (the reference of `selection`)."""
    return [memory_id for memory_id, lifecycle, age in facts if takes(rule, age, now_ms, lifecycle=lifecycle)]
