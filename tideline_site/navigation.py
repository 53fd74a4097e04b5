"""The workspace navigation: four sections (memory, review, governance, settings), each with its pages.

Every page under /w/<workspace>/ belongs to one section, named by the first part of its path. The
primary row shows the four sections (the review queue's open items and the pending proposals as
counts); the secondary row shows the current section's pages. Pages an admin alone may use are listed
only for an admin. Plain links, so it works without JavaScript.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse


@dataclass(frozen=True)
class Page:
    path: str  # the page's path under /w/<workspace>/ without slashes at the ends ("" is the overview)
    label: str
    url_name: str
    admin_only: bool = False


SECTIONS: tuple[tuple[str, str, tuple[Page, ...]], ...] = (
    ("memory", "Memory", (
        Page("", "Overview", "memory:workspace-overview"),
        Page("facts", "Facts", "memory:fact-list"),
        Page("recall", "Recall", "memory:recall-playground"),
        Page("graph", "Graph", "memory:memory-graph"),
        Page("events", "Event log", "memory:event-list"),
    )),
    ("review", "Review", (
        Page("review", "Queue", "governance:review-list"),
        Page("review/settings", "What is held", "governance:review-settings"),
    )),
    ("governance", "Governance", (
        Page("proposals", "Proposals", "governance:proposals"),
        Page("gold", "Gold sets", "governance:gold"),
        Page("retention", "Retention", "governance:retention"),
        Page("purge", "Purge", "governance:purge", admin_only=True),
        Page("shred", "Shred", "governance:shred", admin_only=True),
        Page("exports", "Exports", "governance:exports", admin_only=True),
    )),
    ("settings", "Settings", (
        Page("members", "Members", "governance:members"),
        Page("tokens", "Tokens", "governance:tokens", admin_only=True),
        Page("webhooks", "Webhooks", "governance:webhooks", admin_only=True),
    )),
)  # fmt: skip

# Which section the first part of a page's path belongs to.
SECTION_OF = {page.path.split("/")[0]: key for key, _label, pages in SECTIONS for page in pages}


@dataclass(frozen=True)
class Link:
    label: str
    url: str
    current: str  # "page" on the page itself, "true" on a page under it (a fact under Facts), else ""


@dataclass(frozen=True)
class Section:
    key: str
    label: str
    url: str  # its first page the person may open
    current: str  # "page" for a one-page section on that page, "true" in the section, else ""
    pages: tuple[Link, ...]


def sections(workspace: str, path: str, roles: frozenset[str] | set[str]) -> list[Section]:
    """The sections and their pages for a person with `roles` on the page at `path` (/w/<workspace>/…)."""
    parts = [part for part in path.split("/")[3:] if part]  # after "", "w", the workspace
    first = parts[0] if parts else ""
    admin = "admin" in roles
    current_section = SECTION_OF.get(first)
    # The page the path is on or under: the longest page path that starts it (a fact is under Facts;
    # review/settings is its own page, not a review item).
    matches = [page.path for _key, _label, pages in SECTIONS for page in pages
               if (page.path.split("/") if page.path else []) == parts[: len(page.path.split("/")) if page.path else 0]]
    best = max(matches, key=lambda found: len(found.split("/")) if found else 0, default=None)

    def marked(page: Page) -> str:
        if page.path != best:
            return ""
        return "page" if len(parts) == (len(page.path.split("/")) if page.path else 0) else "true"

    found = []
    for key, label, pages in SECTIONS:
        links = tuple(Link(page.label, reverse(page.url_name, args=[workspace]), marked(page))
                      for page in pages if admin or not page.admin_only)  # fmt: skip
        current = "" if key != current_section else ("page" if len(links) == 1 and links[0].current == "page" else "true")
        found.append(Section(key, label, links[0].url, current, links))
    return found
