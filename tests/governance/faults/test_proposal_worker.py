"""A real django-q2 worker evaluates a queued proposal (ENGINE-SPEC §7): `tideline proposals evaluate --queue`
hands it over, `manage.py qcluster` picks it up in another process, the progress columns move and the
verdict lands on the proposal with an `evaluated` event by the worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from governance.services import demo_gold

ROOT = Path(__file__).resolve().parents[3]
GOLD = ROOT / "tests" / "data" / "tideline-gold" / "hard.json"


def _cli(env: dict, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", *args, "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _demo_with_an_uploaded_set(tmp_path) -> dict:
    """A migrated scratch database holding the demo and an approved uploaded gold set; tasks queued."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'tideline.sqlite3'}",
           "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore"), "TIDELINE_Q_SYNC": "0"}  # fmt: skip
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    _cli(env, "demo", "--allow-server")
    _cli(env, "gold", "upload", str(GOLD), "--workspace", "demo", "--as", "demo-owner")
    _cli(env, "gold", "approve", "--set", "hard", "--workspace", "demo", "--as", "demo-approver")
    return env


def _with_a_worker(env: dict, look, finished) -> object:
    """Start `manage.py qcluster`, call `look()` until `finished(seen)` (at most 3 minutes), stop it."""
    cluster = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        deadline, seen = time.monotonic() + 180, None
        while time.monotonic() < deadline:
            seen = look()
            if finished(seen):
                break
            time.sleep(0.5)
    finally:
        os.killpg(cluster.pid, signal.SIGTERM)
        try:
            cluster.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(cluster.pid, signal.SIGKILL)
    return seen


def test_a_worker_in_another_process_evaluates_a_queued_proposal(tmp_path):
    env = _demo_with_an_uploaded_set(tmp_path)
    made = _cli(env, "proposals", "propose", "--workspace", "demo", "--set", "ngram_floor=0.2", "--rationale", "typos",
                "--as", "demo-owner")  # fmt: skip
    pid = str(made["proposed"][0]["id"])
    queued = _cli(env, "proposals", "evaluate", pid, "--workspace", "demo", "--queue")
    assert queued["evaluation"] == "queued"
    shown = _with_a_worker(env, lambda: _cli(env, "proposals", "show", pid, "--workspace", "demo"),
                           lambda seen: seen["evaluation"] in ("done", "failed"))  # fmt: skip
    assert shown.get("evaluation") == "done", shown
    assert shown["clears_bar"] in (True, False) and shown["bar_reason"]
    # Judged on every approved set: the uploaded one and the demo's own.
    sets = {"hard": 20, demo_gold.NAME: len(demo_gold.CASES)}
    assert {s["name"]: s["cases"] for s in shown["report"]["sets"]} == sets
    assert shown["report"]["cases"] == sum(sets.values()) and set(shown["report"]["capabilities"]) >= {"default", "bm25"}


def test_a_worker_in_another_process_runs_the_consoles_settings_search(tmp_path):
    env = _demo_with_an_uploaded_set(tmp_path)
    # What the console's "Search recall settings" button does, as demo-owner.
    script = ("from django.contrib.auth import get_user_model; from governance.services import settings_searches; "
              "from memory.services.workspaces import get_workspace; "
              "s = settings_searches.request(get_workspace('demo'), user=get_user_model().objects.get(username='demo-owner'), "
              "actor='demo-owner'); print(s.pk, s.status)")  # fmt: skip
    queued = subprocess.run([sys.executable, "manage.py", "shell", "-v0", "-c", script], cwd=ROOT, env=env, capture_output=True,
                            text=True, check=False)  # fmt: skip
    assert queued.returncode == 0 and queued.stdout.split() == ["1", "queued"], queued.stdout + queued.stderr
    look = ("from governance.models import SettingsSearch; s = SettingsSearch.objects.get(pk=1); "
            "print(s.status, s.done, s.total, s.proposal_id, '|', s.reason)")  # fmt: skip
    shown = _with_a_worker(env, lambda: subprocess.run([sys.executable, "manage.py", "shell", "-v0", "-c", look], cwd=ROOT,
                                                       env=env, capture_output=True, text=True, check=False).stdout.strip(),
                           lambda seen: seen.split(" ")[0] in ("done", "failed"))  # fmt: skip
    status, done, total, *_ = shown.split(" ")
    assert status == "done", shown
    assert int(total) > 0 and done == total and shown.split("|", 1)[1].strip()  # the bar filled; a reason given
