"""What an API token may read: ONE selector for every read path of the agent API and the MCP tools.

Get, list, export, purge-request previews (and feedback and retract, which name a fact) read facts
through `readable_facts`; recall, context, explain and auto-recall read the recall index with
`recall_filters`, which carries the same clearance into it (the index itself holds only active,
unexpired facts of one origin, and drops a shredded origin). The rules are in
`governance.engine.visibility`: the token's scope, its clearance, the lifecycles an agent may see
(never `held`), the workspace's retention rules as of now, and no shredded origin (nor one whose
shred was begun and not finished).
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.db.models.fields.json import KT
from django.utils import timezone

from governance.engine import tokens as token_rules
from governance.engine import visibility as rules
from governance.services.tokens import Grant
from memory import sealing
from memory.engine.facts import records as R
from memory.engine.lifecycle import expiry
from memory.models import Fact, MemoryEvent, ShredIntent, Workspace
from memory.services.lifecycle import expiry as expiry_service
from memory.services.recall import verbs as recall_service


def scope_q(scope: token_rules.Scope) -> Q:
    """The facts a scope covers: the owner's, one peer's, or every peer of one channel (a gateway)."""
    if scope.is_gateway:
        return Q(origin_kind="channel", channel_id=scope.channel)
    return Q(origin_key=scope.origin.key)


def readable_facts(grant: Grant, *, origin: R.Origin | None = None, now: datetime | None = None) -> QuerySet[Fact]:
    """Every fact `grant` may read (optionally of one origin it covers), unordered."""
    workspace = grant.workspace
    facts = Fact.objects.filter(workspace=workspace).filter(scope_q(grant.scope)).filter(
        lifecycle__in=rules.READABLE_LIFECYCLES, classification__in=rules.readable_classifications(grant.clearance))
    if origin is not None:
        facts = facts.filter(origin_key=origin.key)
    # Never a NULL in the list: `origin_key NOT IN (…, NULL)` would leave out every fact.
    shredded = (MemoryEvent.objects.filter(workspace=workspace, kind=MemoryEvent.Kind.SHREDDED)
                .annotate(key=KT("data__origin_key")).filter(key__isnull=False).values("key"))  # fmt: skip
    facts = facts.exclude(origin_key__in=shredded)
    # A shred begun and not yet finished (its process stopped): the decision stands, nothing is read.
    facts = facts.exclude(origin_key__in=ShredIntent.objects.filter(workspace=workspace).values("origin_key"))
    expired = expiry_service.expired_q(_expiry_rules(workspace), now or timezone.now())
    return facts.exclude(expired) if expired is not None else facts


def readable_fact(grant: Grant, memory_id: str) -> Fact | None:
    """The fact with this id if `grant` may read it, else None (whether or not it exists). A tombstone
    whose origin's key is gone is never read, even where no `shredded` event names it yet."""
    if not memory_id or "\x00" in memory_id or len(memory_id) > Fact._meta.get_field("memory_id").max_length:
        return None
    fact = readable_facts(grant).filter(memory_id=memory_id).first()
    return fact if fact is not None and readable_content(fact) else None


def readable_content(fact: Fact) -> bool:
    """Whether the fact's content can still be opened (False once its origin's key was destroyed)."""
    try:
        fact.content  # noqa: B018 - the read is the check
    except sealing.KeyDestroyedError:
        return False
    return True


def recall_filters(grant: Grant, *, clearance: str, intent: str | None = None,
                   as_of: datetime | None = None) -> recall_service.RecallFilters:  # fmt: skip
    """What recall, context, explain and auto-recall read with: the token's clearance (or a lower one
    the call asked for), never above it; active facts only (the recall index's own rules), and what
    retention expired by now stays out even of a point-in-time recall."""
    return recall_service.RecallFilters(clearance=token_rules.capped_clearance(grant.clearance, clearance),
                                        intent=intent, as_of=as_of, expired_now_hidden=True)  # fmt: skip


def _expiry_rules(workspace: Workspace) -> tuple[expiry.ExpiryRule, ...]:
    """The workspace's retention rules as stored now (a token's workspace object may be seconds old)."""
    stored = Workspace.objects.filter(pk=workspace.pk).values_list("expiry_rules", flat=True).first()
    return expiry.rules_from(stored)
