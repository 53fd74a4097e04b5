"""Liveness and readiness for a load balancer or an orchestrator: `/healthz` and `/readyz`.

`/healthz` says the process answers, and touches nothing else. `/readyz` says whether this process
can serve: the database answers, its migrations are all applied, the key store and master key are
the ones this database's data keys belong to, and the django-q2 worker has reported recently. Both
are unauthenticated, cheap and carry no content: `/readyz` answers 200 or 503 with JSON naming each
check, and for a failing one, why.

Cheap: the database check is one `SELECT 1`; the migration plan is read from disk once and, once
everything is applied, trusted for `MIGRATED_TRUST_SECONDS`; the key store check is one row and one
small file; the worker's status is what its sentinel writes to the cache every half second (kept
3 s). A worker elsewhere that this host cannot see (another host with the file cache) is reported
but not required with `TIDELINE_READY_WORKER=optional`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, InterfaceError, connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

MIGRATED_TRUST_SECONDS = 60.0

def worker_stale_seconds() -> float:
    """How long the worker may be silent (20 s, as `tideline serve`'s own watch: tideline_kit/worker_watch.py)."""
    return float(getattr(settings, "TIDELINE_READY_WORKER_STALE_SECONDS", 20.0))


_lock = threading.Lock()
_state = {"migrated_until": 0.0, "worker_seen": None}


class NotReady(Exception):
    """A check's failure, in words an operator reads."""


class ProbeMiddleware:
    """First in the chain: answers `/healthz`, `/readyz` and `/metrics` before the host check and the HTTPS
    redirect, so a probe may come over plain HTTP with the address it dialled as its Host (as a
    load balancer's or Kubernetes' do). Any other path goes on as usual."""

    PROBES = {"/healthz": "healthz", "/healthz/": "healthz", "/readyz": "readyz", "/readyz/": "readyz",
              "/metrics": "metrics", "/metrics/": "metrics"}  # fmt: skip

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        probe = self.PROBES.get(request.path_info)
        if probe is not None:
            if probe == "metrics":
                from tideline_site.metrics import metrics_view

                return metrics_view(request)
            return healthz(request) if probe == "healthz" else readyz(request)
        return self.get_response(request)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> str:
    # A connection the database dropped is closed when the request ends (Django's request_finished),
    # so the next probe connects anew and sees the database back as soon as it is.
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except (DatabaseError, InterfaceError) as error:
        raise NotReady(f"the database does not answer: {_first_line(error)}") from None
    return f"{connection.vendor} answers"


def _migrations() -> str:
    if time.monotonic() < _state["migrated_until"]:
        return "every migration is applied"
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        raise NotReady(f"{len(plan)} migration(s) not applied (first: {plan[0][0].app_label}.{plan[0][0].name}): "
                       "run `python manage.py migrate`")  # fmt: skip
    with _lock:
        _state["migrated_until"] = time.monotonic() + MIGRATED_TRUST_SECONDS
    return "every migration is applied"


def _key_store() -> str:
    from memory.services.keys import binding

    problem = binding.problem()
    if problem:
        raise NotReady(problem)
    return "the key store and master key are this database's"


def _worker() -> str:
    if settings.Q_CLUSTER.get("sync"):
        return "tasks run in the request (TIDELINE_Q_SYNC): no worker is needed"
    from django_q.status import Stat

    stats = Stat.get_all() or []
    newest = max((stat.timestamp for stat in stats), default=None)
    with _lock:
        if newest is not None and (_state["worker_seen"] is None or newest > _state["worker_seen"]):
            _state["worker_seen"] = newest
        seen = _state["worker_seen"]
    if seen is None:
        raise NotReady("no django-q2 worker has reported since this process started (is `tideline serve` or "
                       "`manage.py qcluster` running, with the same cache?)")  # fmt: skip
    age = (timezone.now() - seen).total_seconds()
    if age > worker_stale_seconds():
        raise NotReady(f"the django-q2 worker last reported {age:.0f} s ago")
    return f"the worker reported {max(age, 0):.1f} s ago"


CHECKS: tuple[tuple[str, Callable[[], str]], ...] = (
    ("database", _database), ("migrations", _migrations), ("key_store", _key_store), ("worker", _worker))


def worker_required() -> bool:
    return getattr(settings, "TIDELINE_READY_WORKER", "required") != "optional"


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, dict] = {}
    database_ok = True
    for name, check in CHECKS:
        if not database_ok and name in ("migrations", "key_store"):
            checks[name] = {"ok": False, "detail": "not checked: the database does not answer"}
            continue
        started = time.perf_counter()
        try:
            checks[name] = {"ok": True, "detail": check()}
        except NotReady as failure:
            checks[name] = {"ok": False, "detail": str(failure)}
        except Exception as error:  # noqa: BLE001 — a probe says what broke; it never answers 500
            checks[name] = {"ok": False, "detail": f"the check failed: {type(error).__name__}: {_first_line(error)}"}
        checks[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
        if name == "database":
            database_ok = checks[name]["ok"]
    if not worker_required():
        checks["worker"]["required"] = False
    ready = all(c["ok"] for name, c in checks.items() if c.get("required", True))
    failing = [name for name, c in checks.items() if not c["ok"] and c.get("required", True)]
    return JsonResponse({"ready": ready, "failing": failing, "checks": checks}, status=200 if ready else 503)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
