"""Retention as memory enforces it: the workspace's expiry rules, and which facts they expire.

Governance owns retention policies (their pages, versions, previews and scheduled runs) and hands
memory their compiled form through `set_expiry_rules` whenever one changes. From then on recall never
surfaces a fact a rule has expired (memory.services.recall), and `expired_by` tells replay and the
inspector which rule did it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.utils import timezone

from memory.engine import expiry
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
