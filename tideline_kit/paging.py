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


def numbered_pager(request: HttpRequest, page, total: str = "") -> dict:
    """Pager links and labels for a Django `Page` (the count is known, so its pages are numbered);
    `total` is the page's own count label. Rendered by templates/_pager.html."""
    paginator = page.paginator
    numbers = []
    # The first and last pages, and two either side of this one; a gap stands for the rest.
    for number in paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1):
        if number == paginator.ELLIPSIS:
            numbers.append({"gap": True})
        else:
            numbers.append({"number": number, "current": number == page.number,
                            "url": page_link(request, page=number)})  # fmt: skip
    return {
        "total": total,
        "previous": page_link(request, page=page.previous_page_number()) if page.has_previous() else None,
        "next": page_link(request, page=page.next_page_number()) if page.has_next() else None,
        "position": f"Page {page.number} of {paginator.num_pages:,}",
        "numbers": numbers if paginator.num_pages > 1 else [],
    }
