"""Recall index builds from a real PostgreSQL streaming replica (memory.replica): the test starts a
primary and a replica of it (initdb, pg_basebackup, two postmasters on free ports), migrates the
primary, and runs `replica_scenario.py` against them in processes of their own.

What a user relies on: a recall is exact whatever the replica's lag (a fact written or purged on the
primary a moment ago is seen as the primary has it), builds come from the replica while it serves,
and from the primary when it is too far behind, lacks the workspace, or is down.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
SCENARIO = Path(__file__).with_name("replica_scenario.py")

pytestmark = [
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                       reason="the replica check runs with the PostgreSQL suite (it starts its own servers)"),  # fmt: skip
]


def _bindir() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").exists() and Path(candidate, "pg_basebackup").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_basebackup") else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="module")
def pair():
    """A primary and its streaming replica: (primary URL, replica URL, stop the replica)."""
    bindir = _bindir()
    if bindir is None or (os.geteuid() == 0 and not shutil.which("runuser")):
        pytest.skip("PostgreSQL's server programs (initdb, pg_basebackup) are not installed here")
    # Not under pytest's own temporary folder: as root that is closed to the `postgres` user.
    base = Path(tempfile.mkdtemp(prefix="tideline-pgpair-"))
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
    ports = {"primary": _free_port(), "replica": _free_port()}

    def run(*command: str) -> None:
        done = subprocess.run(_as_postgres([*command]), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command[0]} failed: {done.stderr[-2000:]}"

    def start(name: str) -> None:
        run(str(bindir / "pg_ctl"), "-D", str(base / name), "-l", str(base / f"{name}.log"), "-w", "start",
            "-o", f"-p {ports[name]} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off")  # fmt: skip

    def stop(name: str) -> None:
        subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", str(base / name), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=60)  # fmt: skip

    run(str(bindir / "initdb"), "-D", str(base / "primary"), "-A", "trust", "-U", "postgres")
    start("primary")
    try:
        run(str(bindir / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(ports["primary"]), "-U", "postgres",
            "-D", str(base / "replica"), "-R", "-X", "stream")  # fmt: skip
        start("replica")
        run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(ports["primary"]), "-U", "postgres", "tideline")
        urls = tuple(f"postgres://postgres@127.0.0.1:{ports[name]}/tideline" for name in ("primary", "replica"))
        yield (*urls, lambda: stop("replica"))
    finally:
        stop("replica")
        stop("primary")
        shutil.rmtree(base, ignore_errors=True)


def _scenario(env: dict, phase: str) -> dict:
    done = subprocess.run([sys.executable, str(SCENARIO), phase], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_builds_read_the_replica_and_recall_stays_exact_whatever_its_lag(pair, tmp_path):
    primary, replica_url, stop_replica = pair
    env = {**os.environ, "DATABASE_URL": primary, "TIDELINE_REPLICA_URL": replica_url, "TIDELINE_VAR_DIR": str(tmp_path),
           "TIDELINE_TEST_VAR_DIR": str(tmp_path), "TIDELINE_REPLICA_RETRY_SECONDS": "600"}  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)

    live = _scenario(env, "live")
    source, hits = live["caught_up"]
    assert source == "replica" and hits[0] == "Maria's sailing boat is called Albatross."

    assert live["behind_by"] >= 2  # the write and the purge the paused replica has not replayed
    source, hits = live["lagging_new"]
    assert source == "replica"  # built as of the replica's older revision…
    assert hits[0] == "The lighthouse keeper's cat is called Marmalade."  # …then synced from the primary
    source, hits = live["lagging_purged"]
    assert source == "replica" and not any("ferry" in hit for hit in hits)  # purged on the primary: gone

    source, hits = live["too_far_behind"]
    assert source == "database" and hits[0] == "The lighthouse keeper's cat is called Marmalade."
    source, hits = live["not_replicated_yet"]
    assert source == "database" and hits == ["The new quay opens in spring."]

    stop_replica()
    down = _scenario(env, "down")
    source, hits = down["first"]
    assert source == "database" and hits[0] == "Maria's sailing boat is called Albatross."  # no error, the primary served
    assert down["available_after"] is False  # left alone for a while…
    source, hits = down["second"]
    assert source == "database" and hits[0] == "The lighthouse keeper's cat is called Marmalade."
