"""A forked process (django-q2's sentinel, pusher, monitor and workers are forked) never talks to
PostgreSQL through its parent's connection or pool: it opens its own, and its parent's stays good."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]

# The parent queries (so it holds a connection, pooled or not), forks, and each side reports the
# server process it talked to; the parent queries again after its child has exited.
FORK = """
import django, json, os; django.setup()
from django.db import connection
def backend():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]
before = backend()
read, write = os.pipe()
child = os.fork()
if child == 0:
    os.close(read)
    try:
        os.write(write, json.dumps({"child": backend(), "again": backend()}).encode())
    finally:
        os._exit(0)
os.close(write)
seen = json.loads(os.read(read, 1000) or b"{}")
os.waitpid(child, 0)
print(json.dumps({"parent": before, "after": backend(), **seen}))
"""


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="forked connections are a PostgreSQL matter")
@pytest.mark.parametrize("pooled", ["1", "0"])
def test_a_forked_child_opens_its_own_connection(pooled):
    db = connection.settings_dict
    env = {**os.environ, "TIDELINE_DB_POOL": pooled, "DJANGO_SETTINGS_MODULE": "tideline_site.settings",
           "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", FORK], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["child"] and seen["child"] == seen["again"]  # the child's own session, kept while it lives
    assert seen["child"] != seen["parent"]
    assert seen["after"] == seen["parent"]  # the parent's session survived its child
