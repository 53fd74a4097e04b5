"""The HTTP API's endpoints (docs/ARCHITECTURE.md §6). Each reads a JSON body, checks the token, calls one service.

Every response is JSON. Refusals carry `{"error": {"kind", "message", …}}`: 401 without a valid
token, 403 outside its scope or verbs (or a write naming a source type more trusted than its token's), 404 for a fact the token cannot see (whether or not it
exists), 413 for a body over the limit, 422 for a body that is not what the endpoint takes or a
write the gates refuse (`validation`, `unworthy`, `write_gate`, `threat`, with the rules that fired),
429 past the token's rate. Changes are made as `token:<name>`, so they land in the event log next to
console and CLI actions; reads are counted on the token.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt

from governance.api import visibility
from governance.api.auth import ApiError, acting_origin, acting_source, bearer, clearance, require, throttle
from governance.services import purge, tokens
from memory import selectors
from memory.engine.facts import jsonbody
from memory.engine.facts import records as R
from memory.engine.recall.context import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS
from memory.engine.writes.gate import TidelineError
from memory.models import Fact
from memory.services.errors import RequestError
from memory.services.lifecycle import retract_and_purge as purging
from memory.services.maintenance import passes as maintenance
from memory.services.recall import verbs as recall_service
from memory.services.writes import interchange
from memory.services.writes.write_path import NewFact, write_fact
from memory.tideline import FactRecord

log = logging.getLogger("tideline.api")
MAX_K = 50
MAX_QUERY = 2000
STATUS_OF_KIND = {"validation": 422, "not_found": 404, "conflict": 409, "unauthorized": 401, "forbidden": 403,
                  "unworthy": 422, "write_gate": 422, "threat": 422, "secret": 422,
                  "unavailable": 503}  # fmt: skip


def _json(payload: dict, status: int = 200, headers: dict[str, str] | None = None) -> JsonResponse:
    response = JsonResponse(payload, status=status, json_dumps_params={"ensure_ascii": False})
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def endpoint(methods: dict[str, tuple[str, Callable]]):
    """A view taking `{METHOD: (verb, handler)}`; handlers get (request, grant, body, **kwargs)."""

    def view(request: HttpRequest, **kwargs) -> JsonResponse:
        try:
            if request.method not in methods:
                raise ApiError(405, "method_not_allowed", f"use {' or '.join(methods)}",
                               headers={"Allow": ", ".join(methods)})  # fmt: skip
            verb, handler = methods[request.method]
            grant = tokens.authenticate(bearer(request))
            status, payload = perform(request, grant, verb, handler, lambda: _body(request), **kwargs)
            return _json(payload, status)
        except ApiError as error:
            return _json(error.payload(), error.status, error.headers)
        except TidelineError as error:
            return _json({"error": error.to_dict()}, 422)
        except RequestError as error:
            return _json({"error": error.to_dict()}, STATUS_OF_KIND.get(error.kind, 400))
        except Exception:  # noqa: BLE001 — an agent gets JSON, never an HTML page or a traceback
            log.exception("API call failed: %s %s", request.method, request.path)
            return _json({"error": {"kind": "internal", "message": "the server could not complete this call"}}, 500)
        finally:
            # Back to the pool from this thread, now: a client that gave up (a timeout) makes Django
            # skip the usual end-of-request close, and the connection would otherwise be lost to it.
            _release_connection()

    return csrf_exempt(view)


def perform(request, grant, verb: str, handler: Callable, body: Callable[[], dict[str, Any]], **kwargs):
    """One operation as every interface makes it (this API and the MCP tools): the token's rate and
    verb checked, the body read, the handler run, the use counted. Returns (status, payload)."""
    throttle(grant)
    require(grant, verb)
    _release_connection()
    status, payload = handler(request, grant, body(), **kwargs)
    tokens.note_use(grant, reads=1 if verb == "read" else 0)
    return status, payload


def _release_connection() -> None:
    """Hand the database connection back to the pool before the work: a recall may wait for its
    index (a cold build takes seconds at 100,000 facts), and a request waiting there must not hold a
    connection others need. Inside a transaction (tests) it stays."""
    if connection.settings_dict.get("OPTIONS", {}).get("pool") and not connection.in_atomic_block:
        connection.close()


def _body(request: HttpRequest) -> dict[str, Any]:
    if request.method in ("GET", "DELETE", "HEAD"):
        return {}
    limit = int(getattr(settings, "TIDELINE_API_MAX_BODY", 256 * 1024))
    size = int(request.headers.get("Content-Length") or 0)
    if size > limit:
        raise ApiError(413, "too_large", f"the body is {size:,} bytes; the limit is {limit:,}")
    raw = request.body
    if len(raw) > limit:
        raise ApiError(413, "too_large", f"the body is {len(raw):,} bytes; the limit is {limit:,}")
    if not raw.strip():
        return {}
    try:
        body = jsonbody.loads(raw)
    except jsonbody.JsonTooDeep as error:
        raise ApiError(422, "validation", f"the body is refused: {error}") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(422, "validation", f"the body is not JSON: {error}") from error
    if not isinstance(body, dict):
        raise ApiError(422, "validation", "the body must be a JSON object")
    return body


# ---------------------------------------------------------------- reading the body


def _text(body: dict, name: str, *, required: bool = False, limit: int = MAX_QUERY) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(422, "validation", f"'{name}' is required")
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise ApiError(422, "validation", f"'{name}' must be a non-empty string")
    if "\x00" in value:  # no database stores it, and no person typed it
        raise ApiError(422, "validation", f"'{name}' contains a NUL character")
    if len(value) > limit:
        raise ApiError(422, "validation", f"'{name}' is {len(value):,} characters; the limit is {limit:,}")
    return value


def _int(body: dict, name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(422, "validation", f"'{name}' must be a whole number from {low} to {high}")
    return value


def _number(body: dict, name: str) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ApiError(422, "validation", f"'{name}' must be a number")
    return float(value)


def _moment(body: dict, name: str) -> datetime | None:
    text = _text(body, name, limit=64)
    if text is None:
        return None
    try:
        moment = parse_datetime(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ApiError(422, "validation", f"'{name}' must be an ISO 8601 time with a zone, e.g. 2026-01-31T09:00:00Z")
    return moment


def _filters(grant, body: dict) -> recall_service.RecallFilters:
    intent = _text(body, "intent", limit=200)
    return visibility.recall_filters(grant, clearance=clearance(grant, body.get("clearance")), intent=intent,
                                     as_of=_moment(body, "as_of"))  # fmt: skip


def _visible_fact(grant, memory_id: str) -> Fact:
    """The fact, if this token may see it (`visibility.readable_fact`: scope, clearance, never held,
    expired or shredded); otherwise 404 (never saying whether it exists)."""
    fact = visibility.readable_fact(grant, memory_id)
    if fact is None:
        raise ApiError(404, "not_found", f"no fact {memory_id!r} this token may see")
    return fact


def _fact(fact: Fact) -> dict[str, Any]:
    return FactRecord.from_fact(fact).to_dict()


# ---------------------------------------------------------------- endpoints


def _whoami(request, grant, body):
    token = grant.token
    return 200, {**grant.to_dict(), "last_used_at": token.last_used_at.isoformat() if token.last_used_at else None,
                 "use_count": token.use_count, "read_count": token.read_count}  # fmt: skip


def _write(request, grant, body):
    content = _text(body, "content", required=True, limit=100_000)
    segment = _text(body, "segment", limit=32) or "knowledge"
    supersedes = body.get("supersedes") or []
    if not isinstance(supersedes, list) or not all(isinstance(x, str) for x in supersedes):
        raise ApiError(422, "validation", "'supersedes' must be a list of fact ids")
    new = NewFact(
        content=content, segment=segment, origin=acting_origin(grant, body.get("origin")),
        source_type=acting_source(grant, body.get("source_type")), subject_key=_text(body, "subject_key", limit=200),
        supersedes=tuple(supersedes), importance=_number(body, "importance"), tier=_text(body, "tier", limit=32),
        classification=_text(body, "classification", limit=16), intent_scope=_text(body, "intent_scope", limit=200),
    )  # fmt: skip
    result = write_fact(workspace=grant.workspace, new=new, actor=grant.actor)
    record = FactRecord.from_fact(result.fact, result)
    # What the write found (kinds of personal data and secrets, never their values) and the classification
    # it was stored with: an agent learns that a secret was replaced, or why the fact is PII now.
    return (201 if result.outcome == "created" else 200), {
        "id": record.id, "outcome": result.outcome, "detected": list(result.detected),
        "classification": record.classification, "fact": record.to_dict()}  # fmt: skip


def _list(request, grant, body):
    return _list_from(grant, request.GET)


def _list_from(grant, params):
    if any("\x00" in str(value) for value in params.values()):
        raise ApiError(422, "validation", "a parameter contains a NUL character")
    origin = acting_origin(grant, params.get("origin") or None)
    lifecycle = params.get("lifecycle") or "active"
    if lifecycle == "held":
        raise ApiError(422, "validation", "held writes wait for a person's review: no token reads them")
    if lifecycle not in visibility.rules.READABLE_LIFECYCLES:
        raise ApiError(422, "validation", "lifecycle must be active, archived or pruned")
    facts = visibility.readable_facts(grant, origin=origin).filter(lifecycle=lifecycle)
    if params.get("segment"):
        if params["segment"] not in R.SEGMENTS:
            raise ApiError(422, "validation", f"segment must be one of {', '.join(R.SEGMENTS)}")
        facts = facts.filter(segment=params["segment"])
    page = selectors.fact_page(facts.order_by(*selectors.SORTS["-created"]), "-created",
                               {"after": params.get("cursor") or ""})  # fmt: skip
    items = [_fact(f) for f in page.object_list if visibility.readable_content(f)]
    return 200, {"items": items, "next_cursor": page.next_cursor}


def _get(request, grant, body, memory_id: str):
    fact = _visible_fact(grant, memory_id)
    events, more = selectors.events_of_fact(grant.workspace, memory_id, limit=20)
    readable = visibility.readable_facts(grant).values("pk")  # links name only facts the token may read too
    outbound = [{"kind": link.kind, "to": link.to_fact.memory_id if link.to_fact else link.dangling_target}
                for link in fact.outbound_links.filter(Q(to_fact__isnull=True) | Q(to_fact__in=readable))
                .select_related("to_fact").order_by("position", "pk")]  # fmt: skip
    inbound = [{"kind": link.kind, "from": link.from_fact.memory_id}
               for link in fact.inbound_links.filter(from_fact__in=readable).select_related("from_fact").order_by("pk")]  # fmt: skip
    history = [{"kind": e.kind, "at": e.at.isoformat(), "actor": e.actor, "revision": e.revision} for e in events]
    return 200, {**_fact(fact), "links": {"outbound": outbound, "inbound": inbound}, "history": history,
                 "history_truncated": more}  # fmt: skip


def _retract(request, grant, body, memory_id: str):
    _visible_fact(grant, memory_id)
    reason = (request.GET.get("reason") or "retracted through the API").replace("\x00", "")[:1000]
    purging.retract_facts(grant.workspace, [memory_id], actor=grant.actor, reason=reason)
    return 200, {"id": memory_id, "outcome": "retracted"}


def _visible_ids(grant, body: dict) -> list[str]:
    """The body's `ids`: 1 to 1,000 fact ids, every one a fact this token may see (else 422/404)."""
    ids = body.get("ids")
    if not isinstance(ids, list) or not ids or len(ids) > 1000 or not all(isinstance(i, str) for i in ids):
        raise ApiError(422, "validation", "'ids' must be a list of 1 to 1,000 fact ids")
    for memory_id in ids:
        _visible_fact(grant, memory_id)
    return ids


def _retract_many(request, grant, body):
    ids = _visible_ids(grant, body)
    reason = (_text(body, "reason", limit=1000) or "retracted through MCP")
    report = purging.retract_facts(grant.workspace, ids, actor=grant.actor, reason=reason)
    return 200, {"ids": ids, "outcome": "retracted", "report": report.to_dict()}


def _recall_args(grant, body) -> dict[str, Any]:
    return {"workspace": grant.workspace, "query": _text(body, "query", required=True),
            "origin": acting_origin(grant, body.get("origin")), "k": _int(body, "k", 8, 1, MAX_K),
            "filters": _filters(grant, body)}  # fmt: skip


def _recall(request, grant, body):
    args = _recall_args(grant, body)
    found = recall_service.recall_selection(**args, left_out=False)
    return 200, {"query": args["query"], "hits": [_hit(h) for h in found.hits], "nothing_relevant": not found.hits,
                 "left_out": found.counts}  # fmt: skip


def _hit(hit) -> dict[str, Any]:
    return {"id": hit.id, "content": hit.content, "relevance": hit.relevance, "why": hit.why, "score": hit.score,
            "segment": hit.segment, "trust_class": hit.trust_class, "blocked": hit.blocked}  # fmt: skip


def _explain(request, grant, body):
    args = _recall_args(grant, body)
    found = recall_service.explain_selection(**args)
    return 200, {"query": args["query"], "hits": [h.to_dict() for h in found.hits], "nothing_relevant": not found.hits,
                 "left_out": found.counts}  # fmt: skip


def _context(request, grant, body):
    args = _recall_args(grant, body)
    if args["filters"].as_of is not None:
        raise ApiError(422, "validation", "context is always now: 'as_of' is for recall and explain")
    block = recall_service.context(**args, max_chars=_int(body, "max_chars", DEFAULT_MAX_CHARS, MIN_MAX_CHARS, MAX_MAX_CHARS))
    return 200, {"query": args["query"], "context": block or "", "nothing_relevant": not block}


def _auto_recall(request, grant, body):
    """The context block for an incoming message, as the peer that sent it: a gateway calls this
    before every turn. A peer the token does not cover is refused; an unknown one gets an empty block."""
    message = _text(body, "message", required=True)
    origin = acting_origin(grant, body.get("origin"))
    block = recall_service.context(workspace=grant.workspace, query=message, origin=origin,
                                   max_chars=_int(body, "max_chars", DEFAULT_MAX_CHARS, MIN_MAX_CHARS, MAX_MAX_CHARS), k=_int(body, "k", 8, 1, MAX_K),
                                   filters=visibility.recall_filters(grant, clearance=clearance(grant, body.get("clearance"))))  # fmt: skip
    return 200, {"origin": origin.label(), "context": block or "", "nothing_relevant": not block}


def _feedback(request, grant, body):
    memory_id = _text(body, "id", required=True, limit=128)
    signal = _text(body, "signal", required=True, limit=8)
    query = _text(body, "query")
    _visible_fact(grant, memory_id)
    fact = recall_service.feedback(workspace=grant.workspace, fact_id=memory_id, signal=signal, actor=grant.actor,
                                   query=query)  # fmt: skip
    if fact is None:
        raise ApiError(409, "conflict", f"fact {memory_id} is not active: feedback is for active facts")
    return 200, {"id": memory_id, "signal": signal, "fact": _fact(fact)}


MANAGE_ACTIONS = ("dream", "export", "purge_request")
EXPORT_MAX = 5000


def _manage(request, grant, body):
    """The governance verbs a `manage` token has: run the dream now (owner scope: it spans the
    workspace), export the facts the token may read (`visibility.readable_facts`, at most EXPORT_MAX), or
    request a hard purge of some of its facts: the answer is what the purge would take and where an
    admin confirms it (a hard purge is never an agent's to confirm)."""
    action = _text(body, "action", required=True, limit=16)
    if action not in MANAGE_ACTIONS:
        raise ApiError(422, "validation", f"action must be one of {', '.join(MANAGE_ACTIONS)}")
    if action == "dream":
        if grant.scope.is_gateway or not grant.scope.origin.is_owner:
            raise ApiError(403, "forbidden", "the dream spans the whole workspace: only an owner token may run it")
        dry_run = body.get("dry_run", False)
        if not isinstance(dry_run, bool):
            raise ApiError(422, "validation", "'dry_run' must be true or false")
        report = maintenance.run_dream(grant.workspace, dry_run=dry_run, actor=grant.actor)
        return 200, {"action": "dream", "report": report.to_dict()}
    if action == "purge_request":
        ids = _visible_ids(grant, body)
        selection = purge.Selection.parse(facts=[",".join(ids)])
        plan = purge.preview(grant.workspace, selection, hard=True, lists=False)
        confirm = reverse("governance:purge", args=[grant.workspace.name]) + "?" + urlencode({"facts": ",".join(ids), "mode": "hard"})
        return 200, {"action": "purge_request", "facts": plan.facts, "cascaded": plan.cascaded, "links": plan.links,
                     "review_items": plan.open_review_items, "confirm_at": confirm,
                     "note": "an admin confirms a hard purge on the Purge page; nothing was deleted"}  # fmt: skip
    origin = acting_origin(grant, body.get("origin"))
    facts = []
    readable = Q(pk__in=visibility.readable_facts(grant, origin=origin).values("pk"))
    for record in interchange.export_facts(workspace=grant.workspace, origin=origin, where=readable):
        if len(facts) == EXPORT_MAX:
            return 200, {"action": "export", "origin": origin.label(), "facts": facts, "truncated": True}
        facts.append(record)
    return 200, {"action": "export", "origin": origin.label(), "facts": facts, "truncated": False}


# The operations, for the MCP tools (governance/mcp_tools.py): (request or None, grant, body) → (status, payload).
handle_write, handle_recall, handle_context, handle_get = _write, _recall, _context, _get
handle_manage, handle_retract_many, handle_feedback = _manage, _retract_many, _feedback


def handle_list_body(request, grant, body):
    return _list_from(grant, body)


whoami = endpoint({"GET": ("read", _whoami)})
manage = endpoint({"POST": ("manage", _manage)})
memories = endpoint({"POST": ("write", _write), "GET": ("read", _list)})
memory = endpoint({"GET": ("read", _get), "DELETE": ("write", _retract)})
recall = endpoint({"POST": ("read", _recall)})
search = recall  # mem0's name for it
explain = endpoint({"POST": ("read", _explain)})
context = endpoint({"POST": ("read", _context)})
auto_recall = endpoint({"POST": ("read", _auto_recall)})
feedback = endpoint({"POST": ("write", _feedback)})


@csrf_exempt  # an agent's POST to a wrong path gets this JSON 404, not Django's HTML CSRF page
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    return _json({"error": {"kind": "not_found", "message": f"no API endpoint {request.path}"}}, 404)

