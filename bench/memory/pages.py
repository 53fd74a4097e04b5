"""Server time of the console's heaviest pages on a big workspace.

`tideline bench` times them on the workspace it seeded (`time_console`); on a workspace a bench run
left behind, `python -m bench.memory.pages WORKSPACE [REQUESTS]` does the same.

Each page is requested as a signed-in owner through Django's test client (the real middleware,
views and templates, no network): warmed once, where it must answer 200, then timed `repeat` times.
Memory's own pages are the overview, the facts list (first page, a filtered page reached by number,
the next page by cursor) and a fact inspector; governance's `console_pages(workspace, user)`
(bench.governance.queue) prepares the review queue's items and adds its pages, as
`{label: (url, request headers)}`. The bench sits above both apps, so it names each directly.
"""

from __future__ import annotations

import os
import sys
import time

from bench.memory.writes import LatencySummary
from memory.services.errors import RequestError

BENCH_USER = "bench-viewer"


def time_page(client, url: str, count: int, headers: dict | None = None) -> LatencySummary:
    """Server time of `count` GETs of `url` after one warming request (which must answer 200)."""
    headers = headers or {}
    status = client.get(url, secure=True, **headers).status_code
    if status != 200:
        raise RequestError(f"the console page {url} answered {status}", kind="bench_failed")
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        client.get(url, secure=True, **headers)
        samples.append((time.perf_counter() - started) * 1000)
    return LatencySummary.of(samples)


def memory_pages(workspace, user) -> dict[str, tuple[str, dict]]:
    """The overview, the facts list three ways and the inspector of the newest active fact."""
    from memory import selectors
    from memory.models import Fact

    name = workspace.name
    first = selectors.fact_page(selectors.filtered_facts(workspace, {}), "-created", {})
    fact = Fact.objects.filter(workspace=workspace, lifecycle="active").order_by("-pk").first()
    pages = {
        "overview": (f"/w/{name}/", {}),
        "facts list": (f"/w/{name}/facts/", {}),
        "facts list, filtered, page 3": (f"/w/{name}/facts/?segment=project&page=3", {}),
        "facts list, next page": (f"/w/{name}/facts/?after={first.next_cursor}", {}),
    }
    if first.next_cursor is None:
        del pages["facts list, next page"]
    if fact is not None:
        pages["fact inspector"] = (f"/w/{name}/facts/{fact.memory_id}/", {})
    return pages


def page_sources() -> list:
    """Memory's page list, then governance's (`bench.governance.queue.console_pages`)."""
    from bench.governance.queue import console_pages

    return [memory_pages, console_pages]


def time_console(workspace, repeat: int) -> dict[str, dict]:
    """`{label: {count, p50_ms, …, url}}` for every console page, as an owner of `workspace`."""
    from dataclasses import asdict

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import override_settings

    from memory.models import Membership

    user, _ = get_user_model().objects.get_or_create(username=BENCH_USER)
    Membership.objects.get_or_create(user=user, workspace=workspace, defaults={"role": "owner"})
    client = Client()
    client.force_login(user)
    out: dict[str, dict] = {}
    # The test client's requests name the host `testserver`, which a deployment does not list.
    with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
        for source in page_sources():
            for label, (url, headers) in source(workspace, user).items():
                out[label] = {**asdict(time_page(client, url, repeat, headers)), "url": url}
    return out


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from memory.models import Workspace

    name, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    workspace = Workspace.objects.get(name=name)
    print(f"{workspace.facts.count():,} facts in {name}")
    for label, summary in time_console(workspace, count).items():
        print(f"  {label:<30} p50 {summary['p50_ms']:7.1f} ms   p95 {summary['p95_ms']:7.1f} ms   (n={count})")


if __name__ == "__main__":
    main()
