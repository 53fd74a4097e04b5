"""Crypto-shred of one origin, as governance offers it: a preview, a typed confirmation, a receipt.

The shred itself is memory's (`memory.services.keys.crypto_shred.shred_origin`: one mutation, one `shredded`
event, the key destroyed). Governance adds what a person needs before an irreversible act: what
becomes unreadable (facts, links, vectors, and the open review items that will be closed), and a
confirmation that must be typed: the origin's key or its fact count, never a mere click. Who may do
it (admins) is checked by the console view and the CLI, which know who is asking.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db.models import Q

from governance.models import ReviewItem
from governance.services.acting import actor_text, require_role
from memory.models import Fact, Workspace
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import (
    ShredReport,
    origins_with_counts,
    preview_shred,
    resolve_origin,
    shred_origin,
    unfinished_shred,
    unfinished_shreds,
)
from tideline_kit import telemetry


@dataclass(frozen=True)
class Preview:
    workspace: str
    origin_key: str
    label: str
    facts: int
    links: int
    vectors: int
    open_review_items: int
    unfinished_since: str = ""  # when a shred of it was begun and never finished (ISO time), else ""
    begun_by: str = ""

    def to_dict(self) -> dict:
        out = asdict(self)
        if not self.unfinished_since:  # said only of an origin with an unfinished shred
            del out["unfinished_since"], out["begun_by"]
        return out

    def accepts(self, typed: str) -> bool:
        """Whether `typed` confirms this shred: the origin (its key or label), or its fact count."""
        typed = (typed or "").strip()
        return bool(typed) and (typed in (self.origin_key, self.label) or typed.replace(",", "") == str(self.facts))


def origins(workspace: Workspace) -> list[tuple[str, str, int]]:
    """The workspace's origins (key, label) with their fact counts, most facts first (what the page offers)."""
    return origins_with_counts(workspace)


def preview(workspace: Workspace, origin_key: str) -> Preview:
    """What shredding `origin_key` (a key or label) makes unreadable; `RequestError` for an origin it would refuse."""
    origin_key = resolve_origin(origin_key)
    counts = preview_shred(workspace, origin_key)
    named = Q(fact__origin_key=origin_key) | Q(other_fact__origin_key=origin_key)
    items = ReviewItem.objects.filter(named, workspace=workspace, status=ReviewItem.Status.OPEN).count()
    begun = unfinished_shred(workspace, origin_key)
    first = Fact.objects.filter(workspace=workspace, origin_key=origin_key).first()
    label = first.origin.label() if first is not None else begun.origin_label or origin_key
    return Preview(workspace.name, origin_key, label, counts.facts, counts.links, counts.vectors, items,
                   begun.begun_at.isoformat() if begun else "", begun.actor if begun else "")  # fmt: skip


def unfinished(workspace: Workspace):
    """Shreds begun and never finished (a process stopped between the decision and the receipt)."""
    return unfinished_shreds(workspace)


@telemetry.operation("governance.shred.finish")
def finish(workspace: Workspace, origin_key: str, *, user=None, actor: str) -> ShredReport:
    """Finish a shred that was begun and stopped: the decision was confirmed when it was begun (its
    key may be gone already), so no confirmation is asked again; the receipt names both actors."""
    require_role(user, workspace, "shred", "shred origins")
    actor = actor_text(actor)
    origin_key = resolve_origin(origin_key)
    if unfinished_shred(workspace, origin_key) is None:
        preview_shred(workspace, origin_key)  # says why, for an origin shredded already (or unknown)
        raise RequestError(f"origin {origin_key!r} has no unfinished shred to finish", kind="conflict")
    return shred_origin(workspace, origin_key, actor=actor)


@telemetry.operation("governance.shred.apply")
def apply(workspace: Workspace, origin_key: str, *, user=None, typed: str, actor: str, reason: str = "") -> ShredReport:
    """Shred after checking the typed confirmation against a fresh preview; nothing changes otherwise.
    An unfinished shred of the origin is finished as it was begun (its confirmation was typed then)."""
    require_role(user, workspace, "shred", "shred origins")
    actor = actor_text(actor)
    current = preview(workspace, origin_key)
    if not current.unfinished_since and not current.accepts(typed):
        raise RequestError(
            f"the confirmation did not match: type the origin ({current.label}) or its fact count ({current.facts}) "
            "to shred it; nothing was changed",
            kind="confirmation",
        )
    return shred_origin(workspace, current.origin_key, actor=actor, reason=reason)
