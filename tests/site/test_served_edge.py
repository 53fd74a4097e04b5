"""The edge of a real served process (`tideline_kit.serving`, two web workers, as `tideline serve`
starts them): a token's rate limit holds under concurrent calls spread over both workers, and the
login lockout counts the socket's address, whatever X-Forwarded-For claims."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest
from django.conf import settings

from tideline_kit.serving import start_web

ROOT = Path(__file__).resolve().parents[2]
PORT = 18211  # this area's test port range: 18200-18299
LIMIT = 40
PASSWORD = "pw-olga-edge-1234"


def _cli(env: dict, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, check=False, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("edge")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{root / 'tideline.sqlite3'}", "TIDELINE_VAR_DIR": str(root),
           "TIDELINE_KEYSTORE_DIR": str(root / "keystore"), "TIDELINE_API_RATE_PER_MINUTE": str(LIMIT),
           "TIDELINE_INSECURE_HTTP": "1"}  # fmt: skip
    env.pop("TIDELINE_BEHIND_PROXY", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    _cli(env, "workspace", "create", "w", "--admin", "olga", "--create-user", "--password-stdin", stdin=PASSWORD + "\n")
    token = json.loads(_cli(env, "tokens", "create", "--workspace", "w", "--origin", "owner", "--verbs", "read",
                            "--name", "edge", "--json"))["token"]  # fmt: skip
    processes = start_web(port=PORT, workers=2, env=env)
    url = f"http://127.0.0.1:{PORT}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx2.get(url + "/login/", timeout=1).status_code == 200:
                break
        except httpx2.HTTPError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
    yield url, token
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=20)


def test_concurrent_calls_over_both_workers_never_pass_the_tokens_limit(served):
    url, token = served
    if time.time() % 60 > 45:  # one window for the whole burst: wait for the next minute to start
        time.sleep(60 - time.time() % 60 + 0.1)
    started = int(time.time() // 60)

    def calls(_):
        # A connection of its own per thread, reopened each call: the kernel spreads them over both workers.
        out = []
        for _ in range(12):
            response = httpx2.get(url + "/api/v1/whoami", headers={"Authorization": f"Bearer {token}"}, timeout=30)
            out.append((response.status_code, response.headers.get("Retry-After")))
        return out

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = [r for batch in pool.map(calls, range(8)) for r in batch]
    assert int(time.time() // 60) == started, "the burst crossed a minute: rerun"
    statuses = [status for status, _ in results]
    assert statuses.count(200) == LIMIT and statuses.count(429) == len(results) - LIMIT
    assert all(1 <= int(retry) <= 60 for status, retry in results if status == 429)


def _login(client: httpx2.Client, url: str, password: str, forwarded: str) -> httpx2.Response:
    page = client.get(url + "/login/")
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    return client.post(url + "/login/", data={"username": "olga", "password": password, "csrfmiddlewaretoken": csrf},
                       headers={"X-Forwarded-For": forwarded})  # fmt: skip


def test_a_forged_x_forwarded_for_does_not_dodge_the_login_lockout(served):
    url, _ = served
    with httpx2.Client(timeout=30) as client:
        for n in range(settings.AXES_FAILURE_LIMIT):  # each guess claims another address
            _login(client, url, f"guess-{n}", f"203.0.113.{n}")
        response = _login(client, url, PASSWORD, "198.51.100.77")
    assert response.status_code == 429 and "Too many failed logins" in response.text
