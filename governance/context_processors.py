"""Template context: how many review items and pending proposals wait in the current workspace, which of its gold
sets the recall playground can score, and whether the signed-in user may create workspaces (the home page's link)."""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest

from governance.models import GoldSet, Proposal
from governance.selectors import open_review_count
from governance.services import gold
from governance.services.members import may_create_workspace
from memory.models import Workspace


def review_queue(request: HttpRequest) -> dict:
    """`open_review_count` on pages under /w/<workspace>/ for a member of it (0 for anyone else).

    It is a callable the template calls only if it shows the figure (once, then remembered), so pages
    that do not show it cost no query."""
    user = getattr(request, "user", None)
    name = getattr(getattr(request, "resolver_match", None), "kwargs", {}).get("workspace")
    if user is None or not user.is_authenticated or not name:
        return {}

    @cache
    def workspace():
        return Workspace.objects.filter(name=name, memberships__user=user).distinct().first()

    @cache
    def count() -> int:
        return open_review_count(workspace()) if workspace() is not None else 0

    @cache
    def pending_proposals() -> int:
        found = workspace()
        return Proposal.objects.filter(workspace=found, status=Proposal.Status.PENDING).count() if found else 0

    return {"open_review_count": count, "pending_proposal_count": pending_proposals}


def workspace_creation(request: HttpRequest) -> dict:
    """`can_create_workspace`, a callable the template calls only where it offers the link."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"can_create_workspace": cache(lambda: may_create_workspace(user))}


def gold_scoring(request: HttpRequest) -> dict:
    """`gold_sets_to_score` on pages under /w/<workspace>/ for a member of it: a callable giving the
    workspace's live gold sets (those scored against its facts), each with its id, name and the number
    of cases whose query is written; a query only when a page shows them."""
    user = getattr(request, "user", None)
    name = getattr(getattr(request, "resolver_match", None), "kwargs", {}).get("workspace")
    if user is None or not user.is_authenticated or not name:
        return {}

    @cache
    def live_sets() -> list[dict]:
        found = Workspace.objects.filter(name=name, memberships__user=user).distinct().first()
        if found is None:
            return []
        return [{"id": s.pk, "name": s.name, "cases": s.case_count - s.placeholder_count}
                for s in gold.sets(found).filter(kind=GoldSet.Kind.LIVE)]  # fmt: skip

    return {"gold_sets_to_score": live_sets}
