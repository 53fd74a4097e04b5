"""`tideline serve` — the web console, agent API and MCP server, and the background worker; Ctrl-C stops both.

The web side is uvicorn serving `tideline_site.asgi` in `--workers` processes (2 by default: one
per core here), each on its own socket of the shared port (tideline_kit/serving.py): a production
ASGI server, so a slow request never holds up the rest, and the MCP
server's streamable HTTP transport (an ASGI app) is mounted beside Django at `/mcp/`. Static files
are served by WhiteNoise inside Django. Every worker keeps its own recall index and syncs it by the
workspace's revision, so several workers (or hosts) on one PostgreSQL stay coherent.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

from memory.services.demo import DEMO_PASSWORD, DEMO_USERS
from memory.services.errors import RequestError
from memory.services.keys import binding as key_binding
from tideline_kit.serving import PortInUse, start_web, worker_environment
from tideline_kit.worker_watch import WorkerWatch

HELP = "run the web console and the django-q2 worker together"


def add_arguments(parser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2, help="web worker processes (default 2)")
    parser.add_argument("--no-worker", action="store_true", help="start only the web console")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def run(options: dict) -> None:
    # Refuse to start on a key store or master key that is not this database's (KeyStoreMismatchError
    # is a RequestError: one line, exit 2). Binds a database that has no binding yet.
    if key_binding.binding_table_ready():
        key_binding.verify(bind=True)
    # Started from a script or a service manager, SIGINT may arrive ignored; Ctrl-C and SIGTERM
    # must still stop both processes cleanly.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    env = {**os.environ, **_plain_http_for_the_local_console(), **_shared_metrics(),
           "TIDELINE_DB_POOL": os.environ.get("TIDELINE_DB_POOL", "1")}  # one connection pool per web process
    worker_env = worker_environment(env)
    address = f"{options['host']}:{options['port']}"
    try:
        web = start_web(host=options["host"], port=options["port"], workers=options["workers"], env=env,
                        cwd=settings.BASE_DIR)  # fmt: skip
    except PortInUse as error:
        raise RequestError(str(error), kind="port_in_use") from error
    worker = None if options["no_worker"] else WorkerWatch([*manage, "qcluster"], worker_env)
    if worker is not None:
        worker.start()  # started again (and said on stderr) whenever it stops or stops reporting
    database = "SQLite at " + str(settings.DATABASES["default"]["NAME"]) if settings.EMBEDDED else "PostgreSQL"
    print(f"\nTideline is running at http://{address}  ({database})", flush=True)
    if env.get("TIDELINE_INSECURE_HTTP", "").strip().lower() not in ("1", "true", "yes", "on"):
        print("Production settings: HTTPS only (redirect, Secure cookies, HSTS), through your TLS proxy "
              "(TIDELINE_BEHIND_PROXY=1); TIDELINE_INSECURE_HTTP=1 allows plain HTTP.", flush=True)
    print("Demo logins (password " + DEMO_PASSWORD + "): " + ", ".join(f"{u} ({r})" for u, r in DEMO_USERS))
    print("Press Ctrl-C to stop.\n", flush=True)
    try:
        while all(child.poll() is None for child in web):
            if worker is not None:
                worker.check()
            time.sleep(0.5)
        print("stopped: web server exited", file=sys.stderr)
    except KeyboardInterrupt:
        print("\nstopping…", file=sys.stderr)
    finally:
        for child in web:
            if child.poll() is None:
                child.terminate()  # uvicorn shuts down cleanly on SIGTERM
        if worker is not None and worker.process is not None and worker.process.poll() is None:
            worker.process.terminate()  # and so does qcluster
        deadline = time.time() + 10
        for child in web:
            try:
                child.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if worker is not None:
            worker.stop(timeout=deadline - time.time())  # and sweeps what is left of its session


def _shared_metrics() -> dict[str, str]:
    """One Prometheus registry for the web processes and the worker: a folder they all write their
    samples to (prometheus_client's multiprocess mode), emptied at each start. An operator's own
    PROMETHEUS_MULTIPROC_DIR is kept (and emptied by whoever set it)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return {}
    directory = Path(settings.VAR_DIR) / "metrics"
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True, mode=0o700)
    return {"PROMETHEUS_MULTIPROC_DIR": str(directory)}


def _plain_http_for_the_local_console() -> dict[str, str]:
    """Plain HTTP (no HTTPS redirect, no Secure cookies, no HSTS) only for the embedded console on
    SQLite (`make run`, http://127.0.0.1:8000); a server database gets the production defaults
    (docs/SECURITY.md) unless TIDELINE_INSECURE_HTTP is set explicitly."""
    if settings.EMBEDDED and "TIDELINE_INSECURE_HTTP" not in os.environ:
        return {"TIDELINE_INSECURE_HTTP": "1"}
    return {}
