"""Query-string links and pagers shared by the console's list pages (facts, review queue)."""

from __future__ import annotations

from django.http import HttpRequest


def page_link(request: HttpRequest, **changes) -> str:
    """This page's URL with some query parameters changed (None removes one)."""
    params = request.GET.copy()
    for key, value in changes.items():
        params.pop(key, None)
        if value is not None:
            params[key] = value
    return request.path + (f"?{params.urlencode()}" if params else "")


def numbered_pager(request: HttpRequest, page, total: str) -> dict:
    """Pager links and labels for a Django `Page`; `total` is the page's own count label."""
    return {
        "total": total,
        "previous": page_link(request, page=page.previous_page_number()) if page.has_previous() else None,
        "next": page_link(request, page=page.next_page_number()) if page.has_next() else None,
        "position": f"Page {page.number} of {page.paginator.num_pages}",
    }
