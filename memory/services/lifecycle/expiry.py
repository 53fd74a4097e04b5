"""Retention as memory enforces it: the workspace's expiry rules, and which facts they expire.

Governance owns retention policies (their pages, versions, previews and scheduled runs) and hands
memory their compiled form through `set_expiry_rules` whenever one changes. From then on recall never
surfaces a fact a rule has expired (memory.services.recall.verbs), and `expired_by` tells replay and the
inspector which rule did it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry
from memory.models import Fact
from memory.services.mutation import Mutation
from memory.timestamps import to_ms


def set_expiry_rules(m: Mutation, rules: Sequence[expiry.ExpiryRule]) -> None:
    """Replace the workspace's expiry rules inside mutation `m` (its caller records why, e.g. a
    `settings_changed` event naming the policy and its version). The mutation's revision tells
    every process's recall index to re-read them."""
    m.workspace.expiry_rules = [rule.to_dict() for rule in rules]
    m.workspace.save(update_fields=["expiry_rules"])


def rules_of(workspace) -> tuple[expiry.ExpiryRule, ...]:
    return expiry.rules_from(workspace.expiry_rules)


def fact_age(fact: Fact) -> expiry.FactAge:
    return expiry.FactAge(
        origin_key=fact.origin_key, segment=fact.segment, classification=fact.classification, tier=fact.tier,
        source_type=fact.source_type, status=fact.status, created_ms=to_ms(fact.created_at),
        last_used_ms=to_ms(fact.last_accessed_at),
    )  # fmt: skip


def expired_by(fact: Fact, *, now: datetime | None = None, rules=None) -> expiry.ExpiryRule | None:
    """The retention rule that keeps `fact` out of recall at `now`, or None."""
    rules = rules_of(fact.workspace) if rules is None else rules
    if not rules:
        return None
    return expiry.expiring_rule(rules, fact_age(fact), to_ms(now or timezone.now()))


def expired_q(rules: Sequence[expiry.ExpiryRule], now: datetime) -> Q | None:
    """The facts `rules` have expired by `now`, as a filter (None when no rule is in force): the
    queryset form of `expiry.expiring_rule`, so a read path can leave them out as recall does."""
    expired = None
    for rule in rules:
        limit = now - timedelta(milliseconds=rule.max_age_ms)  # strictly older than the limit expires
        q = Q(last_accessed_at__lt=limit) if rule.basis == "last_used" else Q(created_at__lt=limit)
        if rule.origin_kind:
            q &= Q(origin_kind=rule.origin_kind)
        if rule.origin_key:
            q &= Q(origin_key=rule.origin_key)
        for name, values in (("segment", rule.segments), ("classification", rule.classifications), ("tier", rule.tiers)):
            if values:
                q &= Q(**{f"{name}__in": sorted(values)})
        untrusted = Q(source_type__in=sorted(R.UNTRUSTED_SOURCE_TYPES))
        if rule.trust:
            q &= untrusted if rule.trust == "untrusted" else ~untrusted
        if rule.keep_confirmed:
            q &= ~Q(status="confirmed")
        if rule.keep_permanent:
            q &= ~Q(tier="permanent")
        expired = q if expired is None else expired | q
    return expired
