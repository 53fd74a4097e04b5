"""Logs an operator's tools can read: with `TIDELINE_LOG_FORMAT=json`, one JSON object per line, each
with the request's (or task's) id; and one line per request (`tideline.requests`, at INFO): method,
route, status, duration, the id. Never a query string or a body: they may hold memory content."""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

from tideline_kit import request_ids
from tideline_site import metrics

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}

requests_log = logging.getLogger("tideline.requests")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request id, any extra fields, and the
    exception's traceback as one string."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
               "level": record.levelname, "logger": record.name, "message": record.getMessage()}  # fmt: skip
        request_id = getattr(record, "request_id", None) or request_ids.current.get()
        if request_id:
            out["request_id"] = request_id
        out.update({k: v for k, v in vars(record).items() if k not in _STANDARD and k != "request_id"
                    and isinstance(v, str | int | float | bool | type(None))})  # fmt: skip
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class RequestIdMiddleware:
    """Gives every request an id (a proxy's well-formed `X-Request-ID`, or a new one), says it back in
    the response, and logs one line per request at INFO on `tideline.requests`."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_ids.from_header(request.headers.get("X-Request-ID"))
        token = request_ids.current.set(request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            match = getattr(request, "resolver_match", None)
            seconds = time.perf_counter() - started
            route = match.route if match else ""
            metrics.observe_request(route, request.method, response.status_code, seconds)
            requests_log.info("%s %s %s", request.method, request.path, response.status_code, extra={
                "method": request.method, "path": request.path, "route": route,
                "status": response.status_code, "ms": round(seconds * 1000, 1)})  # fmt: skip
            return response
        finally:
            request_ids.current.reset(token)


tasks_log = logging.getLogger("tideline.tasks")
_task_tokens: dict[str, tuple[object, float]] = {}


def task_started(sender=None, func=None, task=None, **kwargs) -> None:
    """django-q2's `pre_execute`: a task run by the worker gets an id of its own (`task-…`), which the
    events it writes carry; a task run inside a request (TIDELINE_Q_SYNC) keeps the request's."""
    if task is None or request_ids.current.get() is not None:
        return
    task_id = f"task-{task.get('id') or request_ids.new_id()}"
    _task_tokens[task_id] = (request_ids.current.set(task_id), time.perf_counter())


def task_finished(sender=None, func=None, task=None, **kwargs) -> None:
    """django-q2's `post_execute_in_worker`: one line per task (`tideline.tasks`, at INFO)."""
    if task is None:
        return
    task_id = request_ids.current.get() or ""
    token, started = _task_tokens.pop(task_id, (None, None))
    tasks_log.info("task %s %s", task.get("name") or "", "succeeded" if task.get("success") else "failed", extra={
        "task": task.get("name") or "", "func": getattr(func, "__qualname__", str(task.get("func", ""))),
        "success": bool(task.get("success")),
        "ms": round((time.perf_counter() - started) * 1000, 1) if started is not None else None})  # fmt: skip
    if token is not None:
        request_ids.current.reset(token)
