"""Server time of the console's heaviest pages on a big workspace: `python -m memory.bench.pages WORKSPACE`.

Signs in a bench user (created on first use, member of the workspace) through Django's test client,
warms each page once, then times N requests of the dashboard, the facts list (first page, a filtered
page reached by number, the next page by cursor) and a fact inspector.
Run it against a scratch database that a `tideline bench` run filled (ALLOWED_HOSTS must allow
`testserver`).
"""

from __future__ import annotations

import os
import sys
import time


def time_page(client, url: str, count: int):
    """Server time of `count` GETs of `url` after one warming request (which must answer 200)."""
    from memory.bench.writes import LatencySummary

    status = client.get(url).status_code
    if status != 200:
        raise SystemExit(f"{url} answered {status}")
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        client.get(url)
        samples.append((time.perf_counter() - started) * 1000)
    return LatencySummary.of(samples)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from memory import selectors
    from memory.models import Fact, Membership, Workspace

    name, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    workspace = Workspace.objects.get(name=name)
    user, _ = get_user_model().objects.get_or_create(username="bench-viewer")
    Membership.objects.get_or_create(user=user, workspace=workspace, role="owner")
    client = Client()
    client.force_login(user)
    fact = Fact.objects.filter(workspace=workspace, lifecycle="active").order_by("-pk").first()
    first = selectors.fact_page(selectors.filtered_facts(workspace, {}), "-created", {})
    pages = {
        "dashboard": f"/w/{name}/",
        "facts list": f"/w/{name}/facts/",
        "facts list, filtered": f"/w/{name}/facts/?segment=project&page=3",
        "facts list, next page": f"/w/{name}/facts/?after={first.next_cursor}",
        "fact inspector": f"/w/{name}/facts/{fact.memory_id}/",
    }
    print(f"{workspace.facts.count():,} facts in {name}")
    for label, url in pages.items():
        summary = time_page(client, url, count)
        print(f"  {label:<22} p50 {summary.p50_ms:7.1f} ms   p95 {summary.p95_ms:7.1f} ms   (n={count})")


if __name__ == "__main__":
    main()
