"""Expiry: the retention rules recall enforces, so a fact past its policy never surfaces.

Retention policies are governance's (who writes them, previews, scheduled runs); what recall needs
is only their compiled form, an `ExpiryRule`: which facts it covers (scope), how old they may get
(rule) and which it always keeps. Memory enforces those at recall time, before any job has archived
or purged anything, so expiry never waits for the nightly run.

Pure: plain values and numpy arrays in, booleans out. Times are epoch milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from memory.engine.facts import records as R

BASES = ("created", "last_used")
ACTIONS = ("archive", "purge")
TRUSTS = ("", "trusted", "untrusted")
ORIGIN_KINDS = ("", "owner", "channel")

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
# The TTL ladder (ENGINE-SPEC §6.2): working memory an hour, episodic thirty days, semantic a year, durable never.
# A preset the admin maps onto tiers or classifications; "never" means no policy at all.
TTL_LADDER: dict[str, int | None] = {"1 hour": HOUR_MS, "30 days": 30 * DAY_MS, "1 year": 365 * DAY_MS, "never": None}


@dataclass(frozen=True)
class ExpiryRule:
    """One enabled retention policy as recall applies it. Empty scope sets mean "any"."""

    policy: int
    name: str
    version: int
    max_age_ms: int
    basis: str = "created"
    origin_kind: str = ""
    origin_key: str = ""
    segments: frozenset[str] = field(default_factory=frozenset)
    classifications: frozenset[str] = field(default_factory=frozenset)
    tiers: frozenset[str] = field(default_factory=frozenset)
    trust: str = ""
    keep_confirmed: bool = True
    keep_permanent: bool = True
    action: str = "archive"

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.max_age_ms, int) or self.max_age_ms < 1:
            problems.append("max_age_ms must be a positive whole number of milliseconds")
        if self.basis not in BASES:
            problems.append(f"basis must be one of {BASES}")
        if self.action not in ACTIONS:
            problems.append(f"action must be one of {ACTIONS}")
        if self.trust not in TRUSTS:
            problems.append(f"trust must be one of {TRUSTS}")
        if self.origin_kind not in ORIGIN_KINDS:
            problems.append(f"origin_kind must be one of {ORIGIN_KINDS}")
        for name, allowed in (("segments", R.SEGMENTS), ("classifications", R.CLASSIFICATIONS), ("tiers", R.TIERS)):
            unknown = set(getattr(self, name)) - set(allowed)
            if unknown:
                problems.append(f"unknown {name}: {', '.join(sorted(unknown))}")
        if problems:
            raise ValueError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for name in ("segments", "classifications", "tiers"):
            out[name] = sorted(out[name])
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExpiryRule:
        values = dict(data)
        for name in ("segments", "classifications", "tiers"):
            values[name] = frozenset(values.get(name) or ())
        return cls(**{k: v for k, v in values.items() if k in cls.__dataclass_fields__})

    def describe(self) -> str:
        """The rule in words, e.g. "retention policy 'chat logs' (v3): older than 30 days since it was written"."""
        since = "since it was last used" if self.basis == "last_used" else "since it was written"
        return f"retention policy {self.name!r} (v{self.version}): older than {age_words(self.max_age_ms)} {since}"


def age_words(ms: int) -> str:
    for unit, size in (("day", DAY_MS), ("hour", HOUR_MS), ("minute", 60_000)):
        if ms >= size and ms % size == 0:
            n = ms // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{ms / 1000:g} seconds"


def rules_from(data: Iterable[Mapping[str, Any]] | None) -> tuple[ExpiryRule, ...]:
    """Stored rules back to objects; a malformed entry is skipped (it cannot be enforced, and recall
    must not fail because a stored row is odd: governance validates before writing)."""
    out = []
    for item in data or ():
        try:
            out.append(ExpiryRule.from_dict(item))
        except (TypeError, ValueError):
            continue
    return tuple(out)


@dataclass(frozen=True)
class FactAge:
    """What a rule looks at for one fact."""

    origin_key: str
    segment: str
    classification: str
    tier: str
    source_type: str | None
    status: str | None
    created_ms: float
    last_used_ms: float


def _origin_kind(origin_key: str) -> str:
    return "owner" if origin_key == "owner" else "channel"


def covers(rule: ExpiryRule, fact: FactAge) -> bool:
    """Whether the fact is in the rule's scope and not one it keeps (whatever its age)."""
    if rule.origin_kind and _origin_kind(fact.origin_key) != rule.origin_kind:
        return False
    if rule.origin_key and fact.origin_key != rule.origin_key:
        return False
    if rule.segments and fact.segment not in rule.segments:
        return False
    if rule.classifications and fact.classification not in rule.classifications:
        return False
    if rule.tiers and fact.tier not in rule.tiers:
        return False
    if rule.trust and R.trust_class(fact.source_type) != rule.trust:
        return False
    if rule.keep_confirmed and fact.status == "confirmed":
        return False
    return not (rule.keep_permanent and fact.tier == "permanent")


def expires_at_ms(rule: ExpiryRule, fact: FactAge) -> float | None:
    """When the rule expires the fact, or None when it never does."""
    if not covers(rule, fact):
        return None
    start = fact.last_used_ms if rule.basis == "last_used" else fact.created_ms
    return start + rule.max_age_ms


def expiring_rule(rules: Sequence[ExpiryRule], fact: FactAge, now_ms: float) -> ExpiryRule | None:
    """The rule that has expired the fact by `now_ms` (the earliest to do so), or None.

    Strictly older than the limit expires (ENGINE-SPEC §6.2: `now − createdAt > ttl`)."""
    found = [(at, rule) for rule in rules if (at := expires_at_ms(rule, fact)) is not None and now_ms - at > 0]
    return min(found, key=lambda pair: (pair[0], pair[1].policy))[1] if found else None


def expired_mask(
    rules: Sequence[ExpiryRule],
    now_ms: float,
    *,
    origin_key: str,
    segments: Sequence[str],
    classifications: np.ndarray,
    tiers: np.ndarray,
    source_types: Sequence[str | None],
    confirmed: np.ndarray,
    created_at: np.ndarray,
    last_accessed_at: np.ndarray,
) -> np.ndarray:
    """Per fact of one origin (the recall index's scope), whether any rule has expired it by `now_ms`.

    The vector form of `expiring_rule`, for recall: one pass of array comparisons per rule."""
    n = len(created_at)
    expired = np.zeros(n, dtype=bool)
    if not rules or n == 0:
        return expired
    seg = None
    trust = None
    for rule in rules:
        if rule.origin_kind and _origin_kind(origin_key) != rule.origin_kind:
            continue
        if rule.origin_key and origin_key != rule.origin_key:
            continue
        start = last_accessed_at if rule.basis == "last_used" else created_at
        hit = (now_ms - start) > rule.max_age_ms
        if rule.segments:
            seg = np.asarray(segments, dtype=object) if seg is None else seg
            hit &= np.isin(seg, list(rule.segments))
        if rule.classifications:
            hit &= np.isin(classifications, list(rule.classifications))
        if rule.tiers:
            hit &= np.isin(tiers, list(rule.tiers))
        if rule.trust:
            if trust is None:
                trust = np.array([R.is_untrusted_source(s) for s in source_types], dtype=bool)
            hit &= trust if rule.trust == "untrusted" else ~trust
        if rule.keep_confirmed:
            hit &= ~confirmed
        if rule.keep_permanent:
            hit &= tiers != "permanent"
        expired |= hit
    return expired
