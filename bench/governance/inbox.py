"""The home inbox for a busy person: how long `GET /` takes for someone in many workspaces with many open items.

    python -m bench.governance.inbox [--workspaces 50] [--items 10000] [--repeat 30]

Seeds `--workspaces` fresh workspaces (a unique prefix) where one new user is owner, approver and
admin, `--items` open review items spread over them and over the three kinds, two pending proposals
and a gold set to approve in each; then, signed in as that user through Django's test client, times
the home page `--repeat` times after a warm-up (the top bar's count is cached a few seconds, so every
timed request after the first also shows what the page itself costs). Run it on a scratch database.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid


def time_inbox(workspaces: int = 50, items: int = 10_000, repeat: int = 30) -> dict:
    """Seed `workspaces` workspaces with `items` open review items for one new person (owner, approver
    and admin of each), then time `GET /` for them: p50/p95/max over `repeat` requests after a warm-up,
    every other one with the cache cleared (so the top bar's count is recomputed)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    from governance.models import GoldSet, Proposal, ReviewItem
    from memory.models import Membership
    from memory.services.workspaces import create_workspace

    prefix = f"ibench-{uuid.uuid4().hex[:6]}"
    user = get_user_model().objects.create_user(prefix, password=uuid.uuid4().hex)
    spaces = [create_workspace(f"{prefix}-{n}", actor="bench") for n in range(workspaces)]
    Membership.objects.bulk_create([Membership(user=user, workspace=ws, role=role) for ws in spaces
                                    for role in ("owner", "approver", "admin")])  # fmt: skip
    kinds = ("contradiction", "quarantine", "promotion")
    ReviewItem.objects.bulk_create([ReviewItem(workspace=spaces[n % len(spaces)], kind=kinds[n % 3], reason="bench")
                                    for n in range(items)], batch_size=2000)  # fmt: skip
    Proposal.objects.bulk_create([Proposal(workspace=ws, change="tuning", source="manual", title="bench", rationale="bench",
                                           tuning={"ngram_floor": 0.5}, author_name="someone") for ws in spaces
                                  for _ in range(2)])  # fmt: skip
    GoldSet.objects.bulk_create([GoldSet(workspace=ws, name="bench", kind="live", source="scaffold", created_by="someone")
                                 for ws in spaces])  # fmt: skip
    client = Client()
    client.force_login(user)
    # The test client's requests name the host `testserver`, which a deployment does not list.
    with override_settings(ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "testserver"]):
        times, cold = _time_home(client, repeat)
    every = sorted(times + cold)
    return {"workspaces": workspaces, "open_items": items, "count": len(every), "p50_ms": statistics.median(every),
            "p95_ms": every[int(0.95 * (len(every) - 1))], "max_ms": every[-1],
            "p50_recounted_ms": statistics.median(cold) if cold else None}  # fmt: skip


def _time_home(client, repeat: int) -> tuple[list[float], list[float]]:
    from django.core.cache import cache

    first = client.get("/", secure=True)
    if first.status_code != 200:
        raise RuntimeError(f"the home page answered {first.status_code}")
    times, cold = [], []
    for index in range(repeat):
        if index % 2:
            cache.clear()  # every other request also recomputes the top bar's count
        started = time.perf_counter()
        response = client.get("/", secure=True)
        (cold if index % 2 else times).append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"the home page answered {response.status_code}")
    return times, cold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.inbox", description=__doc__.splitlines()[0])
    parser.add_argument("--workspaces", type=int, default=50)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from django.db import connection

    found = time_inbox(args.workspaces, args.items, args.repeat)
    print(f"{connection.vendor}: {args.workspaces} workspaces, {args.items} open items; GET / over {found['count']} requests: "
          f"p50 {found['p50_ms']:.1f} ms, p95 {found['p95_ms']:.1f} ms, max {found['max_ms']:.1f} ms "
          f"(with the count recomputed: p50 {found['p50_recounted_ms']:.1f} ms)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
