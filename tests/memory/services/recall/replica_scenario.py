"""Run by test_replica_builds.py in a process of its own, against a PostgreSQL primary and its streaming
replica that the test started (DATABASE_URL, TIDELINE_REPLICA_URL). Prints one JSON object of what it
saw; the test asserts on it.

    python tests/memory/services/recall/replica_scenario.py live   # the replica serving, then lagging
    python tests/memory/services/recall/replica_scenario.py down   # after the test stopped the replica
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")

import django  # noqa: E402

django.setup()

from django.db import connections  # noqa: E402

from memory import replica  # noqa: E402
from memory.services.recall.index import registry  # noqa: E402
from memory.services.workspaces import create_workspace, get_workspace  # noqa: E402
from memory.tideline import Tideline  # noqa: E402
from tideline_kit import telemetry  # noqa: E402

NAME = "replicated"
FACTS = [
    "The harbour office opens at seven in the morning.",
    "Maria's sailing boat is called Albatross.",
    "The ferry to the island leaves from pier four.",
    "Jonas repairs fishing nets every Thursday.",
    "The lighthouse was painted red and white in 1998.",
    "The fish market closes when the bell rings at noon.",
]
builds: list[str] = []


class Builds:
    """Where each recall index build read from."""

    def started(self, op):
        return None

    def finished(self, op, handle) -> None:
        if op.name == "memory.recall_index.build":
            builds.append(str(op.attributes.get("source")))


def revision(alias: str, workspace_id: int) -> int | None:
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT revision FROM memory_workspace WHERE id = %s", [workspace_id])
        found = cursor.fetchone()
    return found[0] if found else None


def caught_up(workspace_id: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while revision("replica", workspace_id) != revision("default", workspace_id):
        if time.monotonic() > deadline:
            raise SystemExit("the replica did not catch up")
        time.sleep(0.05)
        connections["replica"].close()  # a new snapshot of the replica each time


def recall(tl: Tideline, query: str) -> tuple[str, list[str]]:
    """A cold recall (this process holds no index): where its build read from, and the hits."""
    registry.clear()
    before = len(builds)
    hits = [h.content for h in tl.recall(query, reinforce=False)]
    return (builds[before] if len(builds) > before else "none"), hits


def live() -> dict:
    out: dict = {}
    workspace = create_workspace(NAME, actor="scenario")
    tl = Tideline(workspace, actor="scenario")
    ids = {content: tl.add(content, segment="knowledge").id for content in FACTS}
    caught_up(workspace.pk)
    out["caught_up"] = recall(tl, "What is Maria's boat called?")

    # Real lag: the replica stops replaying, the primary goes on.
    with connections["replica"].cursor() as cursor:
        cursor.execute("SELECT pg_wal_replay_pause()")
    try:
        tl.add("The lighthouse keeper's cat is called Marmalade.", segment="knowledge")
        tl.purge([ids[FACTS[2]]], hard=True, reason="scenario")  # the ferry
        connections["replica"].close()
        out["behind_by"] = revision("default", workspace.pk) - revision("replica", workspace.pk)
        out["lagging_new"] = recall(tl, "What is the lighthouse keeper's cat called?")
        out["lagging_purged"] = recall(tl, "Where does the ferry to the island leave from?")
        from django.conf import settings

        settings.TIDELINE_REPLICA_MAX_BEHIND = 0  # too far behind: the primary serves the build
        out["too_far_behind"] = recall(tl, "What is the lighthouse keeper's cat called?")
        settings.TIDELINE_REPLICA_MAX_BEHIND = 1000
    finally:
        with connections["replica"].cursor() as cursor:
            cursor.execute("SELECT pg_wal_replay_resume()")
    # A workspace the replica does not have yet (created while it was paused, say): the primary serves.
    with connections["replica"].cursor() as cursor:
        cursor.execute("SELECT pg_wal_replay_pause()")
    try:
        fresh = create_workspace(f"{NAME}-fresh", actor="scenario")
        Tideline(fresh, actor="scenario").add("The new quay opens in spring.", segment="knowledge")
        out["not_replicated_yet"] = recall(Tideline(fresh, actor="scenario"), "When does the new quay open?")
    finally:
        with connections["replica"].cursor() as cursor:
            cursor.execute("SELECT pg_wal_replay_resume()")
    return out


def down() -> dict:
    tl = Tideline(get_workspace(NAME), actor="scenario")
    first = recall(tl, "What is Maria's boat called?")
    available_after = replica.available()
    second = recall(tl, "What is the lighthouse keeper's cat called?")
    return {"first": first, "available_after": available_after, "second": second}


if __name__ == "__main__":
    telemetry.observe(Builds())
    print(json.dumps(live() if sys.argv[1] == "live" else down()))
