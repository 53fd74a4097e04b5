"""What waits for one person, across every workspace they belong to, by the roles they hold there.

* owners (and admins): open contradictions and held writes to decide;
* approvers (and admins): durable promotions to decide that they did not write, proposals awaiting a
  decision that they did not author, gold sets to approve that they did not make;
* every member: approved proposals waiting to be applied;
* owners and admins: proposal evaluations and settings searches that failed; admins: console
  imports that failed (the last 14 days).

Counts only, grouped by workspace in one query however many workspaces and kinds of work, each with
a link to the page where the work is done.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from django.core.cache import cache
from django.db.models import Count, F, Value
from django.urls import reverse
from django.utils import timezone

from governance.models import GoldSet, ImportJob, Proposal, ReviewItem, SettingsSearch
from memory.models import Membership

FAILED_WINDOW = timedelta(days=14)
TOTAL_CACHE_SECONDS = 20


@dataclass(frozen=True)
class Waiting:
    workspace: str
    what: str  # in words: "3 contradictions to decide"
    count: int
    url: str
    role: str  # the role that makes it this person's: owner, approver, admin, member


def memberships(user) -> dict[int, tuple[str, set[str]]]:
    """{workspace id: (its name, the roles `user` holds there)}."""
    out: dict[int, tuple[str, set[str]]] = {}
    for workspace_id, name, role in Membership.objects.filter(user=user).values_list("workspace_id", "workspace__name",
                                                                                      "role"):  # fmt: skip
        out.setdefault(workspace_id, (name, set()))[1].add(role)
    return out


def waiting_for(user, *, roles: dict[int, tuple[str, set[str]]] | None = None) -> list[Waiting]:
    """Everything waiting for `user`, workspace by workspace (workspaces by name, then the order below);
    `roles`: their `memberships`, when the caller read them already."""
    roles = memberships(user) if roles is None else roles
    if not roles:
        return []
    actor = f"user:{user.get_username()}"
    name = user.get_username()
    # The workspaces where the person holds these roles, as subqueries: the person's workspaces as
    # lists of ids made a statement of hundreds of parameters, slower to build than to answer.
    mine = Membership.objects.filter(user=user)
    members = mine.values("workspace_id")
    deciders = mine.filter(role__in=("owner", "admin")).values("workspace_id")
    approvers = mine.filter(role__in=("approver", "admin")).values("workspace_id")
    admins = mine.filter(role="admin").values("workspace_id")
    found: dict[int, list[Waiting]] = defaultdict(list)

    def add(ws: int, count: int, singular: str, plural: str, url_name: str, role: str, query: str = "") -> None:
        if count:
            label = roles[ws][0]
            found[ws].append(Waiting(label, f"{count} {singular if count == 1 else plural}", count,
                                     reverse(url_name, args=[label]) + query, role))  # fmt: skip

    open_items = ReviewItem.objects.filter(status=ReviewItem.Status.OPEN)
    since = timezone.now() - FAILED_WINDOW
    counts = [  # (what, the rows to count by workspace); "kind": the review item's own kind
        ("kind", open_items.filter(workspace_id__in=deciders, kind__in=("contradiction", "quarantine"))),
        ("promotion", open_items.filter(workspace_id__in=approvers, kind="promotion").exclude(fact__written_by=actor)),
        ("pending", Proposal.objects.filter(workspace_id__in=approvers, status=Proposal.Status.PENDING).exclude(author=user)),
        ("approved", Proposal.objects.filter(workspace_id__in=members, status=Proposal.Status.APPROVED)),
        ("gold", GoldSet.objects.filter(workspace_id__in=approvers, approved_at__isnull=True).exclude(created_by=name)),
        ("failed-evaluation", Proposal.objects.filter(workspace_id__in=deciders, evaluation=Proposal.Evaluation.FAILED,
                                                      status=Proposal.Status.PENDING)),  # fmt: skip
        ("failed-search", SettingsSearch.objects.filter(workspace_id__in=deciders, status=SettingsSearch.Status.FAILED,
                                                        created_at__gte=since)),  # fmt: skip
        ("failed-import", ImportJob.objects.filter(workspace_id__in=admins, status=ImportJob.Status.FAILED,
                                                   created_at__gte=since)),  # fmt: skip
    ]
    # One query for all of them (UNION ALL): under load a page waits for the interpreter lock after
    # every query it makes, so eight round trips cost far more than eight small counts.
    grouped = [rows.order_by().values_list("workspace_id", F("kind") if what == "kind" else Value(what))
               .annotate(n=Count("pk")) for what, rows in counts]  # fmt: skip
    counted = {(ws, what): n for ws, what, n in grouped[0].union(*grouped[1:], all=True)}
    for ws in sorted(roles, key=lambda pk: roles[pk][0]):
        add(ws, counted.get((ws, "contradiction"), 0), "contradiction to decide", "contradictions to decide",
            "governance:review-list", "owner", "?kind=contradiction")  # fmt: skip
        add(ws, counted.get((ws, "quarantine"), 0), "held write to decide", "held writes to decide",
            "governance:review-list", "owner", "?kind=quarantine")  # fmt: skip
        add(ws, counted.get((ws, "promotion"), 0), "durable promotion to approve", "durable promotions to approve",
            "governance:review-list", "approver", "?kind=promotion")  # fmt: skip
        add(ws, counted.get((ws, "pending"), 0), "proposal awaiting a decision", "proposals awaiting a decision",
            "governance:proposals", "approver", "?status=pending")  # fmt: skip
        add(ws, counted.get((ws, "gold"), 0), "gold set to approve", "gold sets to approve", "governance:gold", "approver")
        add(ws, counted.get((ws, "approved"), 0), "approved proposal to apply", "approved proposals to apply",
            "governance:proposals", "member", "?status=approved")  # fmt: skip
        add(ws, counted.get((ws, "failed-evaluation"), 0), "proposal evaluation failed", "proposal evaluations failed",
            "governance:proposals", "owner", "?status=pending")  # fmt: skip
        add(ws, counted.get((ws, "failed-search"), 0), "settings search failed", "settings searches failed",
            "governance:proposals", "owner")  # fmt: skip
        add(ws, counted.get((ws, "failed-import"), 0), "import failed", "imports failed", "governance:exports", "admin")
    return [item for ws in sorted(found, key=lambda pk: roles[pk][0]) for item in found[ws]]


def total_waiting(user, *, known: list[Waiting] | None = None) -> int:
    """How many things wait for `user` (the navigation's badge), kept a few seconds per person;
    `known`: what a caller just read with `waiting_for`, so the badge does not read it again."""
    key = f"tideline:inbox-total:{user.pk}"
    total = None if known is not None else cache.get(key)
    if total is None:
        total = sum(item.count for item in (known if known is not None else waiting_for(user)))
        cache.set(key, total, TOTAL_CACHE_SECONDS)
    return total
