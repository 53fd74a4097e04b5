"""A real `kill -9` in the middle of a crypto-shred: the shred is either not begun or finished by a retry.

The shred commits its intent first, then destroys the key and writes the receipt in one transaction.
The shredding process is killed at each window in between (intent committed and the key still
there; key file destroyed and the receipt not yet committed). The console's shred page and
`tideline shred` then say the shred is unfinished, and running it again finishes it: one receipt,
no intent left, no key, no vectors or postings, the review item closed, nothing readable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memory.engine.facts import records as R
from tests.processes import kill_when_marked

ROOT = Path(__file__).resolve().parents[3]
PEER = "channel:slack/team/s1"

def seed() -> None:
    """A workspace `w`: 31 facts of the peer (with vectors and postings), one of the owner, one open item."""
    import numpy as np

    from governance.models import ReviewItem
    from memory.models import Fact
    from memory.services.recall.embedding import store_vectors
    from memory.services.workspaces import create_workspace
    from memory.tideline import Tideline

    class Fake:
        fingerprint = "fake-embedder:0001"

        def embed(self, texts):
            return np.ones((len(texts), 8), dtype=np.float32)

    ws = create_workspace("w")
    tl = Tideline(ws)
    peer = R.parse_origin(PEER)
    first = tl.add("The vault combination is 7-3-9-1 behind the painting.", segment="knowledge", origin=peer)
    for k in range(30):
        tl.add(f"Peer secret number {k} about the vault {k}.", segment="knowledge", origin=peer)
    mine = tl.add("My passport is in the drawer.", segment="knowledge")
    store_vectors(list(Fact.objects.filter(workspace=ws)), Fake())
    a, b = Fact.objects.get(memory_id=first.id), Fact.objects.get(memory_id=mine.id)
    ReviewItem.objects.create(workspace=ws, kind="contradiction", reason="r", fact=a, fact_memory_id=a.memory_id,
                              other_fact=b, other_memory_id=b.memory_id)  # fmt: skip


def state() -> dict:
    from governance.models import ReviewItem
    from memory import sealing
    from memory.models import Fact, FactTerm, FactVector, MemoryEvent, ShredIntent, TermStat, Workspace

    ws, key = Workspace.objects.get(name="w"), R.parse_origin(PEER).key
    sealing.keyring.forget_cache()
    return {
        "intents": [list(row) for row in ShredIntent.objects.filter(workspace=ws).values_list("origin_key", "actor", "reason")],
        "receipts": MemoryEvent.objects.filter(workspace=ws, kind="shredded").count(),
        "key": sealing.keyring.exists(ws.pk, key),
        "readable": sum(f.is_readable for f in Fact.objects.filter(workspace=ws, origin_key=key)),
        "peer_facts": Fact.objects.filter(workspace=ws, origin_key=key).count(),
        "owner_readable": sum(f.is_readable for f in Fact.objects.filter(workspace=ws, origin_key="owner")),
        "vectors": FactVector.objects.filter(workspace=ws, fact__origin_key=key).count(),
        "postings": FactTerm.objects.filter(workspace=ws, origin_key=key).count()
        + TermStat.objects.filter(workspace=ws, origin_key=key).count(),
        "open_items": ReviewItem.objects.filter(workspace=ws, status="open").count(),
    }


# The same, in another process (the SQLite database of these tests is a file of their own).
SEED = ("import django, json; django.setup()\nfrom tests.governance.faults.test_shred_kill import seed, state\nseed()\n"
        "print(json.dumps(state()))")
STATE = "import django, json; django.setup()\nfrom tests.governance.faults.test_shred_kill import state\nprint(json.dumps(state()))"

# Shred the peer's origin as an admin would, and stop for good at the named point.
STALL = """
import django, pathlib, sys, time; django.setup()
from memory import sealing
from memory.services.keys import crypto_shred as shredding
from governance.services import shred
marker, point = pathlib.Path(sys.argv[1]), sys.argv[2]
def stop():
    written = marker.with_name(marker.name + ".part")  # whole or absent: the test polls for the marker
    written.write_text(point)
    written.replace(marker)
    time.sleep(600)
if point == "intent":  # the intent is committed; nothing else has happened
    def stalled_finish(*args, **kwargs):
        stop()
    shredding._finish = stalled_finish
else:  # the key file is destroyed inside the finishing transaction, which has not committed
    destroy = sealing.keyring.destroy
    def stalled_destroy(*args, **kwargs):
        destroy(*args, **kwargs)
        stop()
    sealing.keyring.destroy = stalled_destroy
from memory.models import Workspace
ws = Workspace.objects.get(name="w")
shred.apply(ws, "PEER", typed="PEER", actor="user:first-admin", reason="erasure request 7")
""".replace("PEER", PEER)


def _py(env: dict, code: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tideline_site.cli", "shred", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)  # fmt: skip


def _kill_at(env: dict, tmp_path: Path, point: str) -> None:
    marker = tmp_path / f"stopped-{point}"
    err = kill_when_marked(STALL, marker, point, env=env)
    assert marker.exists(), f"the shred never reached {point}: {err[-2000:]}"


def _kill_then_finish(env: dict, tmp_path: Path, point: str, *, here: bool) -> None:
    """`here`: the test's own database (PostgreSQL), seeded and read in this process; else in others."""
    env = {**env, "DJANGO_SETTINGS_MODULE": "tideline_site.settings"}
    read = state if here else (lambda: json.loads(_py(env, STATE).stdout))
    before = (seed(), state())[1] if here else json.loads(_py(env, SEED).stdout)
    assert before["readable"] == before["peer_facts"] == 31 and before["vectors"] == 31 and before["open_items"] == 1
    _kill_at(env, tmp_path, point)

    stopped = read()
    assert stopped["intents"] == [[R.parse_origin(PEER).key, "user:first-admin", "erasure request 7"]]
    assert stopped["receipts"] == 0 and stopped["key"] is (point == "intent")
    assert stopped["vectors"] == 31 and stopped["open_items"] == 1  # the finishing transaction rolled back

    # The CLI says the shred is unfinished and, run again, finishes it without a terminal to confirm
    # on (it was confirmed when it was begun); the receipt keeps the reason it was begun with.
    done = _cli(env, "--workspace", "w", "--origin", PEER)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "finished the unfinished shred begun by user:first-admin" in done.stdout
    assert "31 fact(s) are now unreadable tombstones, 31 vector(s) dropped, 1 review item(s) closed" in done.stdout

    after = read()
    assert after["intents"] == [] and after["receipts"] == 1 and after["key"] is False
    assert after["readable"] == 0 and after["peer_facts"] == 31  # tombstones, unreadable
    assert after["vectors"] == 0 and after["postings"] == 0 and after["open_items"] == 0
    assert after["owner_readable"] == 1
    if here:
        from memory.models import MemoryEvent

        receipt = MemoryEvent.objects.get(kind="shredded")
        assert receipt.reason == "erasure request 7" and receipt.data["begun_by"] == "user:first-admin"
        assert len(receipt.fact_ids) == 31
    again = _cli(env, "--workspace", "w", "--origin", PEER, "--yes", "--json")
    assert again.returncode != 0 and "already shredded" in again.stdout + again.stderr


def _sqlite_env(tmp_path: Path) -> dict:
    database = tmp_path / "tideline.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore")}
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    return env


def _postgres_env() -> dict:
    db = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
    }


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the PostgreSQL run kills at every window")
def test_kill_9_after_the_key_went_then_finish_on_sqlite(tmp_path):
    _kill_then_finish(_sqlite_env(tmp_path), tmp_path, "key_destroyed", here=False)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs against the PostgreSQL test database")
@pytest.mark.parametrize("point", ["intent", "key_destroyed"])
def test_kill_9_mid_shred_then_finish_on_postgresql(tmp_path, point):
    _kill_then_finish(_postgres_env(), tmp_path, point, here=True)
