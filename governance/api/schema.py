"""The API's OpenAPI 3.1 document (`/api/v1/openapi.json`) and its docs page (`/api/v1/docs`).

Written out by hand, next to the endpoints it describes; `tests/governance/api/test_api_schema.py`
fuzzes every operation from it and checks each response against it.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import mark_safe

from memory.engine.facts.fields import fields_for
from memory.engine.facts.records import SOURCE_TYPES
from memory.engine.recall.context import MAX_MAX_CHARS, MIN_MAX_CHARS

STR = {"type": "string"}
COUNT = {"type": "integer", "minimum": 0}
NULLABLE_STR = {"type": ["string", "null"]}
ORIGIN = {"type": "string", "maxLength": 900, "description": "owner or channel:CHANNEL/CONVERSATION/SESSION; "
          "must be one the token may act for (default: the token's own)"}  # fmt: skip


SOURCE_TYPE = {"enum": list(SOURCE_TYPES), "description": "who or what this fact comes from (default: the token's "
               "source, see whoami). It may name a less trusted source type than the token's, never a more trusted "
               "one (403); 'legacy' (none, trusted) is for importing old records and is refused (422)"}  # fmt: skip


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


ERROR = {
    "type": "object", "required": ["error"],
    "properties": {"error": {"type": "object", "required": ["kind", "message"], "properties": {
        "kind": STR, "message": STR, "rules": {"type": "array", "items": STR}, "details": {}}}},
}  # fmt: skip
# The facade's read record as `FactRecord.to_dict` writes it: the fact vocabulary's read fields,
# then what the write reports about itself.
FACT = {
    "type": "object", "required": [spec.attr("read") for spec in fields_for("read") if spec.api_required],
    "properties": {
        **{spec.attr("read"): spec.json_schema() for spec in fields_for("read")},
        "outcome": STR, "superseded": {"type": "array", "items": STR},
        "review_item_id": {"type": ["integer", "null"]}, "rules": {"type": "array", "items": STR},
        "detected": {"type": "array", "items": STR}, "deduplicated": {"type": "boolean"},
    },
}  # fmt: skip
HIT = {
    "type": "object", "required": ["id", "content", "relevance", "why", "score"],
    "properties": {"id": STR, "content": STR, "relevance": {"type": "number", "minimum": 0, "maximum": 1},
                   "why": STR, "score": {"type": "number"}, "segment": STR, "trust_class": STR,
                   "blocked": {"type": "boolean"}},
}  # fmt: skip
RECALL_BODY = {
    "type": "object", "required": ["query"], "additionalProperties": True,
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 2000}, "k": {"type": "integer", "minimum": 1, "maximum": 50},
        "origin": ORIGIN, "clearance": {"enum": ["PUBLIC", "INTERNAL", "PII"]}, "intent": STR,
        "as_of": {"type": "string", "format": "date-time"},
    },
}  # fmt: skip
WRITE_BODY = {
    "type": "object", "required": ["content"], "additionalProperties": True,
    "properties": {
        "content": {"type": "string", "minLength": 1, "maxLength": 100000},
        "segment": {"enum": ["identity", "correction", "relationship", "preference", "project", "knowledge", "context"]},
        "origin": ORIGIN, "source_type": SOURCE_TYPE, "subject_key": STR, "importance": {"type": "number"},
        "tier": STR, "classification": STR, "intent_scope": STR, "supersedes": {"type": "array", "items": STR},
    },
}  # fmt: skip


def _json_body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


REFUSALS = {code: _ok(_ref("Error"), text) for code, text in (
    ("401", "no valid token"), ("403", "outside the token's scope or verbs"), ("404", "not found, or not visible to this token"),
    ("413", "body too large"), ("422", "invalid body, or a write the gates refused"), ("429", "rate limited (see Retry-After)"),
)}  # fmt: skip


def _op(summary: str, ok: dict, *, body: dict | None = None, params: list | None = None, status: str = "200",
        extra_ok: dict | None = None, operation: str) -> dict:  # fmt: skip
    out: dict[str, Any] = {"summary": summary, "operationId": operation, "responses": {status: ok, **(extra_ok or {}), **REFUSALS}}
    if body is not None:
        out["requestBody"] = _json_body(body)
    if params:
        out["parameters"] = params
    return out


def _query(name: str, description: str, schema: dict | None = None) -> dict:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema or STR}


LEFT_OUT = {"type": "object", "description": "How many candidates recall left out, per reason: under the relevance "
            "floor, under the cut (a share of the best hit's relevance), or past k",
            "properties": {"floor": COUNT, "cut": COUNT, "limit": COUNT}}  # fmt: skip
RECALL_RESULT = {"type": "object", "required": ["query", "hits", "nothing_relevant"],
                 "properties": {"query": STR, "hits": {"type": "array", "items": _ref("Hit")},
                                "nothing_relevant": {"type": "boolean"}, "left_out": LEFT_OUT}}  # fmt: skip
CONTEXT_RESULT = {"type": "object", "required": ["context", "nothing_relevant"],
                  "properties": {"query": STR, "origin": STR, "context": STR, "nothing_relevant": {"type": "boolean"}}}  # fmt: skip
WRITE_RESULT = {"type": "object", "required": ["id", "outcome", "detected", "classification", "fact"],
                "properties": {"id": STR, "outcome": {"enum": ["created", "reinforced", "confined", "held", "unchanged"]},
                               "detected": {"type": "array", "items": STR}, "classification": STR,
                               "fact": _ref("Fact")}}  # fmt: skip
MEMORY_ID = {"name": "memory_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 128}}


def document() -> dict:
    """The whole OpenAPI document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tideline agent API", "version": "1",
                 "description": "Long-term memory for AI agents. Identity and scope come from the bearer token "
                                "(`tideline tokens create`), never from the request, and so does the trust of a write: a token "
                                "carries a source type (`--source`; default `tool_output`, untrusted), a write that names "
                                "none is stored as it, and `source_type` may lower it but never raise it. `POST /memories` and "
                                "`POST /search` are named as mem0's are; `DELETE /memories/{id}` retracts (it can be "
                                "restored), and a correction is a new fact that supersedes (`supersedes`)."},  # fmt: skip
        "servers": [{"url": "/api/v1"}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR, "Fact": FACT, "Hit": HIT},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/whoami": {"get": _op("What this token is and may do (its origin, verbs, clearance and source)",
                                   _ok({"type": "object", "required": ["workspace", "origin", "verbs", "source"]}),
                                   operation="whoami")},
            "/memories": {
                "post": _op("Write a fact through the full write path", _ok(WRITE_RESULT, "stored"), body=WRITE_BODY,
                            status="201", extra_ok={"200": _ok(WRITE_RESULT, "reinforced, confined, held or unchanged")},
                            operation="write_memory"),
                "get": _op("List facts (newest first, cursor pagination)", _ok({"type": "object", "required": ["items"], "properties": {
                    "items": {"type": "array", "items": _ref("Fact")}, "next_cursor": NULLABLE_STR}}),
                    params=[_query("origin", "whose facts (default: the token's)"),
                            _query("lifecycle", "active (default), archived or pruned (held writes are never read by a token)",
                                   {"enum": ["active", "archived", "pruned"]}),
                            _query("segment", "one segment"), _query("cursor", "next_cursor of the previous page")],
                    operation="list_memories"),
            },
            "/memories/{memory_id}": {
                "parameters": [MEMORY_ID],
                "get": _op("One fact with its links and history", _ok(_ref("Fact")), operation="read_memory"),
                "delete": _op("Retract a fact (archived as retracted; restorable)", _ok(
                    {"type": "object", "required": ["id", "outcome"], "properties": {"id": STR, "outcome": STR}}),
                    params=[_query("reason", "why, for the event log")], operation="retract_memory"),
            },
            "/recall": {"post": _op("Recall by meaning; only hits above the relevance floor", _ok(RECALL_RESULT),
                                    body=RECALL_BODY, operation="recall_memory")},
            "/search": {"post": _op("mem0's name for /recall", _ok(RECALL_RESULT), body=RECALL_BODY, operation="search")},
            "/explain": {"post": _op("Recall with every score component", _ok(RECALL_RESULT), body=RECALL_BODY,
                                     operation="explain")},
            "/context": {"post": _op("Recall packed into a prompt-ready block", _ok(CONTEXT_RESULT), body={
                **RECALL_BODY, "properties": {**RECALL_BODY["properties"], "max_chars": {"type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS}}},
                operation="context")},
            "/auto-recall": {"post": _op("The context block for an incoming message, as its sender", _ok(CONTEXT_RESULT), body={
                "type": "object", "required": ["message"], "properties": {
                    "message": {"type": "string", "minLength": 1, "maxLength": 2000}, "origin": ORIGIN,
                    "max_chars": {"type": "integer", "minimum": MIN_MAX_CHARS, "maximum": MAX_MAX_CHARS},
                    "k": {"type": "integer", "minimum": 1, "maximum": 50}}}, operation="auto_recall")},
            "/manage": {"post": _op("Governance verbs for manage tokens: run the dream, export the scope's facts, request a purge",
                                    _ok({"type": "object", "required": ["action"]}), body={
                "type": "object", "required": ["action"], "properties": {
                    "action": {"enum": ["dream", "export", "purge_request"]}, "dry_run": {"type": "boolean"},
                    "origin": ORIGIN, "ids": {"type": "array", "items": STR}}},
                operation="manage_memory")},
            "/feedback": {"post": _op("Up- or down-vote a fact", _ok({"type": "object", "required": ["id", "signal"]}), body={
                "type": "object", "required": ["id", "signal"], "properties": {"id": STR, "signal": {"enum": ["up", "down"]},
                                                                "query": {"type": "string", "maxLength": 2000}}},
                extra_ok={"409": _ok(_ref("Error"), "the fact is not active")}, operation="feedback")},
        },
    }  # fmt: skip


def openapi_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(document(), json_dumps_params={"ensure_ascii": False})


def docs(request: HttpRequest):
    spec = document()
    operations = [
        {"method": method.upper(), "path": path, "summary": op["summary"], "operation": op["operationId"],
         "body": sorted(op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("properties", {}))}
        for path, item in spec["paths"].items() for method, op in item.items() if method != "parameters"
    ]  # fmt: skip
    # The description is written for OpenAPI viewers (Markdown); on this page `code` becomes <code>.
    parts = escape(spec["info"]["description"]).split("`")
    description = mark_safe("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))  # noqa: S308
    return render(request, "governance/api_docs.html", {"operations": operations, "description": description})
