"""Prometheus metrics at `/metrics`: latencies and outcomes of what Tideline does, and counts of what
waits, never content.

What is measured where:
* every operation memory and governance announce (`tideline_kit.telemetry`): `tideline_write_seconds`
  and `tideline_writes_total{outcome}` (stored, reinforced, held, unchanged, refused:<kind>),
  `tideline_recall_seconds{operation}` and `tideline_recalls_total{operation,outcome}` (answered or
  abstained), `tideline_recall_index_builds_total{source}` and
  `tideline_recall_index_build_seconds{source}`, and every other operation (maintenance
  passes, governance verbs, backups) as `tideline_operation_seconds{operation,outcome}`;
* every request: `tideline_http_request_seconds{route,method,status}` (the URL pattern, never the path);
* at scrape time, from the database and the worker's status: `tideline_review_items_open{workspace}`,
  `tideline_proposals_waiting{workspace,status}`, `tideline_worker_queue_depth`,
  `tideline_worker_heartbeat_age_seconds`, and `tideline_recall_index_bytes` (the indexes each
  process holds, summed over live processes).

Several processes (`tideline serve --workers N`, the worker) share one registry when
`PROMETHEUS_MULTIPROC_DIR` names a folder (`tideline serve` makes and empties `var/metrics`): each
process writes its samples there and a scrape adds them up (prometheus_client's multiprocess mode).

The endpoint is off until `TIDELINE_METRICS_TOKEN` (a bearer token the scraper sends) or
`TIDELINE_METRICS_ALLOW` (addresses or networks the scraper connects from, e.g. `10.0.0.0/8`) is
set; it is answered before the host check, like the probes.
"""

from __future__ import annotations

import gc
import hmac
import ipaddress
import logging
import os
import time
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from tideline_kit import telemetry

logger = logging.getLogger(__name__)

# Few buckets on purpose: a scrape merges every process's series, and its time grows with their number
# (docs/BENCHMARKS.md, "Metrics"). Requests get fewer still: they are the most numerous series.
LATENCY_BUCKETS = (0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0, 30.0)
REQUEST_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)

WRITE_SECONDS = Histogram("tideline_write_seconds", "Time to write one fact (the write path)",
                          buckets=LATENCY_BUCKETS)  # fmt: skip
WRITES = Counter("tideline_writes", "Writes by how they ended", ["outcome"])
RECALL_SECONDS = Histogram("tideline_recall_seconds", "Time to recall (recall and context)", ["operation"],
                           buckets=LATENCY_BUCKETS)  # fmt: skip
RECALLS = Counter("tideline_recalls", "Recalls by how they ended (answered, abstained)", ["operation", "outcome"])
INDEX_BUILDS = Counter("tideline_recall_index_builds", "Recall index builds, from a snapshot or the database",
                       ["source"])  # fmt: skip
INDEX_BUILD_SECONDS = Histogram("tideline_recall_index_build_seconds", "Time to build a recall index, by source",
                                ["source"], buckets=LATENCY_BUCKETS)  # fmt: skip
OPERATION_SECONDS = Histogram("tideline_operation_seconds", "Time of maintenance passes, governance verbs and backups",
                              ["operation", "outcome"], buckets=LATENCY_BUCKETS)  # fmt: skip
REQUEST_SECONDS = Histogram("tideline_http_request_seconds", "Time to answer a request, by route",
                            ["route", "method", "status"], buckets=REQUEST_BUCKETS)  # fmt: skip
INDEX_BYTES = Gauge("tideline_recall_index_bytes", "Memory the recall indexes of live processes hold (estimated)",
                    multiprocess_mode="livesum")  # fmt: skip

RECALL_OPERATIONS = frozenset({"memory.recall", "memory.context"})
WAITING_PROPOSALS = ("pending", "approved")


class PrometheusObserver:
    """Turns finished operations into samples (cheap: a dict lookup and a lock per sample)."""

    def started(self, op: telemetry.Operation) -> None:
        return None

    def finished(self, op: telemetry.Operation, handle: object) -> None:
        if op.name == "memory.write":
            WRITE_SECONDS.observe(op.seconds)
            WRITES.labels(op.outcome).inc()
        elif op.name in RECALL_OPERATIONS:
            RECALL_SECONDS.labels(op.name).observe(op.seconds)
            RECALLS.labels(op.name, op.outcome).inc()
        elif op.name == "memory.recall_index.build":
            source = str(op.attributes.get("source", "database"))
            INDEX_BUILDS.labels(source).inc()
            INDEX_BUILD_SECONDS.labels(source).observe(op.seconds)
            _note_index_bytes()
        else:
            OPERATION_SECONDS.labels(op.name, op.outcome).observe(op.seconds)


OBSERVER = PrometheusObserver()


def _note_index_bytes() -> None:
    from memory.services.recall.index import registry

    INDEX_BYTES.set(registry.held_bytes())


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    REQUEST_SECONDS.labels(route or "unmatched", method, f"{status // 100}xx").observe(seconds)


# -- scrape ------------------------------------------------------------------------------------------------------


class WaitingWork:
    """Read at each scrape: what waits for people and for the worker (counts only)."""

    def collect(self):
        try:
            yield from self._counts()
        except DatabaseError as error:  # the process's own samples are still worth a scrape
            logger.warning("metrics: the database did not answer: %s", error)
        yield from _worker_metrics()

    def _counts(self):
        from django.db.models import Count

        from governance.models import Proposal, ReviewItem

        items = GaugeMetricFamily("tideline_review_items_open", "Open review items", labels=["workspace"])
        for name, count in (ReviewItem.objects.filter(status=ReviewItem.Status.OPEN).order_by()
                            .values_list("workspace__name").annotate(n=Count("pk"))):  # fmt: skip
            items.add_metric([name], count)
        yield items
        waiting = GaugeMetricFamily("tideline_proposals_waiting", "Proposals awaiting approval (pending) or apply "
                                    "(approved)", labels=["workspace", "status"])  # fmt: skip
        for name, status, count in (Proposal.objects.filter(status__in=WAITING_PROPOSALS).order_by()
                                    .values_list("workspace__name", "status").annotate(n=Count("pk"))):  # fmt: skip
            waiting.add_metric([name, status], count)
        yield waiting


def _worker_metrics():
    from django.utils import timezone
    from django_q.brokers import get_broker
    from django_q.status import Stat

    if settings.Q_CLUSTER.get("sync"):
        return
    depth = GaugeMetricFamily("tideline_worker_queue_depth", "Tasks waiting in the broker's queue")
    try:
        depth.add_metric([], get_broker().queue_size() or 0)
        yield depth
    except Exception as error:  # noqa: BLE001 — a scrape reports what it can
        logger.warning("metrics: the broker's queue size is unavailable: %s", error)
    try:
        stats = Stat.get_all() or []
    except Exception as error:  # noqa: BLE001
        logger.warning("metrics: the worker's status is unavailable: %s", error)
        return
    newest = max((stat.timestamp for stat in stats), default=None)
    if newest is not None:
        age = GaugeMetricFamily("tideline_worker_heartbeat_age_seconds", "Seconds since the worker last reported")
        age.add_metric([], max((timezone.now() - newest).total_seconds(), 0.0))
        yield age


def multiprocess_dir() -> Path | None:
    value = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "").strip()
    return Path(value) if value else None


def _forget_dead_processes(directory: Path) -> None:
    """Live gauges of processes that exited must not count (a restarted web worker, say)."""
    for path in directory.glob("gauge_live*_*.db"):
        try:
            pid = int(path.stem.rsplit("_", 1)[1])
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, str(directory))
        except (ValueError, PermissionError, IndexError):
            continue


def exposition() -> bytes:
    """The scrape's text. It makes tens of thousands of short-lived objects: the collector is paused
    meanwhile, so a scrape never pays for a collection of the whole heap (docs/BENCHMARKS.md, "Metrics,
    traces and backups")."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _exposition()
    finally:
        if enabled:
            gc.enable()


def _exposition() -> bytes:
    registry = CollectorRegistry()
    directory = multiprocess_dir()
    _note_index_bytes()
    if directory is not None:
        _forget_dead_processes(directory)
        MultiProcessCollector(registry, path=str(directory))
    else:  # one process: its own samples
        for collector in (WRITE_SECONDS, WRITES, RECALL_SECONDS, RECALLS, INDEX_BUILDS, INDEX_BUILD_SECONDS,
                          OPERATION_SECONDS, REQUEST_SECONDS, INDEX_BYTES):  # fmt: skip
            registry.register(collector)
    registry.register(WaitingWork())
    return generate_latest(registry)


# -- the endpoint ------------------------------------------------------------------------------------------------


def _allowed_networks() -> list:
    networks = []
    for part in str(getattr(settings, "TIDELINE_METRICS_ALLOW", "") or "").split(","):
        if part.strip():
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
    return networks


def _authorised(request: HttpRequest) -> bool | None:
    """True or False; None when metrics are off (neither a token nor an allow-list is set)."""
    token = str(getattr(settings, "TIDELINE_METRICS_TOKEN", "") or "")
    networks = _allowed_networks()
    if not token and not networks:
        return None
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer ") and hmac.compare_digest(header[7:].strip().encode(), token.encode()):
        return True
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in networks)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return JsonResponse({"error": {"kind": "method_not_allowed", "message": "GET /metrics"}}, status=405)
    allowed = _authorised(request)
    if allowed is None:
        return JsonResponse({"error": {"kind": "not_found", "message": "metrics are off: set TIDELINE_METRICS_TOKEN "
                                       "or TIDELINE_METRICS_ALLOW"}}, status=404)  # fmt: skip
    if not allowed:
        response = JsonResponse({"error": {"kind": "unauthorised", "message": "send Authorization: Bearer "
                                           "<TIDELINE_METRICS_TOKEN>"}}, status=401)  # fmt: skip
        response["WWW-Authenticate"] = 'Bearer realm="tideline metrics"'
        return response
    started = time.perf_counter()
    body = exposition()
    response = HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    response["X-Scrape-Ms"] = f"{(time.perf_counter() - started) * 1000:.1f}"
    return response
