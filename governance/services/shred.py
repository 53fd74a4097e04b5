"""Crypto-shred of one origin, as governance offers it: a preview, a typed confirmation, a receipt.

The shred itself is memory's (`memory.services.shredding.shred_origin`: one mutation, one `shredded`
event, the key destroyed). Governance adds what a person needs before an irreversible act: what
becomes unreadable (facts, links, vectors, and the open review items that will be closed), and a
confirmation that must be typed: the origin's key or its fact count, never a mere click. Who may do
it (admins) is checked by the console view and the CLI, which know who is asking.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db.models import Q

from governance.models import ReviewItem
from memory.models import Fact, Workspace
from memory.services.errors import RequestError
from memory.services.shredding import (
    ShredReport,
    origins_with_counts,
    preview_shred,
    resolve_origin,
    shred_origin,
)


@dataclass(frozen=True)
class Preview:
    workspace: str
    origin_key: str
    label: str
    facts: int
    links: int
    vectors: int
    open_review_items: int

    def to_dict(self) -> dict:
        return asdict(self)

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
    label = Fact.objects.filter(workspace=workspace, origin_key=origin_key).first().origin.label()
    return Preview(workspace.name, origin_key, label, counts.facts, counts.links, counts.vectors, items)


def apply(workspace: Workspace, origin_key: str, *, typed: str, actor: str, reason: str = "") -> ShredReport:
    """Shred after checking the typed confirmation against a fresh preview; nothing changes otherwise."""
    current = preview(workspace, origin_key)
    if not current.accepts(typed):
        raise RequestError(
            f"the confirmation did not match: type the origin ({current.label}) or its fact count ({current.facts}) "
            "to shred it; nothing was changed",
            kind="confirmation",
        )
    return shred_origin(workspace, current.origin_key, actor=actor, reason=reason)
