"""Template context that joins the two apps: what a memory page shows of governance.

Memory's templates never name governance's URLs or its context; where a memory page links to a
governance page (the review queue, retention, the downloads on the exports page, the gold sets) or
shows one of its figures, it reads `site_pages`, which the site fills in here. The workspace
navigation that lists both apps' pages is the site's template `_workspace_nav.html`.
"""

from __future__ import annotations

from functools import cache

from django.http import HttpRequest
from django.urls import reverse

from governance.context_processors import gold_scoring, review_queue, workspace_creation
from tideline_site import navigation

# A memory page's name for another app's page → that page's URL name (each takes the workspace).
WORKSPACE_PAGES = {
    "review_queue": "governance:review-list",
    "retention": "governance:retention",
    "events_download": "governance:export-events",
    "graph_download": "governance:export-graph",
    "gold_from_playground": "governance:gold-from-playground",
    "gold_page": "governance:gold",
    "gold_score": "governance:gold-score",
}


class SitePages:
    """`site_pages.<name>` in a template: a URL of WORKSPACE_PAGES for the request's workspace,
    `new_workspace` (the URL where the user may create workspaces, else ""), `open_review_count`, or
    `gold_sets_to_score` (the workspace's live gold sets: id, name, written cases).
    Each is worked out when a template first reads it, so pages that show none cost nothing."""

    def __init__(self, request: HttpRequest, governance: dict) -> None:
        self._governance = governance  # governance's own context for this request (its figures, cached once)
        self._workspace = getattr(getattr(request, "resolver_match", None), "kwargs", {}).get("workspace")
        self._values: dict[str, object] = {}

    def __getitem__(self, name: str) -> object:
        if name not in self._values:
            self._values[name] = self._find(name)
        return self._values[name]

    def _find(self, name: str) -> object:
        if name in WORKSPACE_PAGES and self._workspace:
            return reverse(WORKSPACE_PAGES[name], args=[self._workspace])
        if name == "new_workspace":
            may_create = self._governance.get("can_create_workspace")
            return reverse("governance:workspace-create") if may_create is not None and may_create() else ""
        if name == "open_review_count":
            count = self._governance.get("open_review_count")
            return count() if count is not None else ""
        if name == "gold_sets_to_score":
            found = self._governance.get("gold_sets_to_score")
            return found() if found is not None else []
        raise KeyError(name)


def site_pages(request: HttpRequest) -> dict:
    """Governance's context (for its own templates and the navigation) and `site_pages` over it."""
    governance = {**review_queue(request), **workspace_creation(request), **gold_scoring(request)}
    return {**governance, "site_pages": SitePages(request, governance), "workspace_nav": _workspace_nav(request)}


def _workspace_nav(request: HttpRequest):
    """The workspace navigation's sections (tideline_site/navigation.py), worked out when a page shows it."""
    workspace = getattr(getattr(request, "resolver_match", None), "kwargs", {}).get("workspace")
    if not workspace:
        return ()
    return cache(lambda: navigation.sections(workspace, request.path, getattr(request, "workspace_roles", frozenset())))
