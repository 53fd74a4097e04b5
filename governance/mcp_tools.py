"""Tideline as an MCP server (ENGINE-SPEC §10.1), on the official MCP Python SDK: the same operations, scoping
and audit as the HTTP API (`governance/api/views.py`), as four tools.

* `write_memory` — remember one fact through the full write path;
* `recall_memory` — recall by meaning (only hits above the relevance floor), or the packed context;
* `read_memory` — one fact with its links and history, or the newest facts of the token's scope;
  every tool reads what `governance.api.visibility.readable_facts` lets its token read;
* `manage_memory` — manage tokens only: run the dream, export the scope's facts, retract facts.

Two transports: stdio (`tideline mcp --token T`: the token is the process's) and streamable HTTP,
mounted at `/mcp/` by `tideline_site/asgi.py` (each request's `Authorization: Bearer` header; a
request without a valid one is refused with 401 before it reaches the server). Tools run the Django
services in a worker thread (`sync_to_async`), so the event loop never blocks on the database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from governance.api import views
from governance.api.auth import ApiError, bearer_value
from governance.services import tokens
from memory.engine.writes.gate import TidelineError
from memory.services.errors import RequestError

GrantOf = Callable[[Context], tokens.Grant]
INSTRUCTIONS = (
    "Long-term memory for this agent. Call recall_memory before answering about the user, their "
    "preferences, people or past events; it returns nothing when nothing relevant is stored, and then "
    "say so rather than guess. Call write_memory with one clear sentence per durable fact."
)


def _run(grant_of: GrantOf, ctx: Context, verb: str, handler, body: dict[str, Any], **kwargs) -> dict[str, Any]:
    """One tool call as the HTTP API makes it: authenticate, limit, check the verb, run, count."""
    try:
        given = {k: v for k, v in body.items() if v is not None}
        return views.perform(None, grant_of(ctx), verb, handler, lambda: given, **kwargs)[1]
    except ApiError as error:
        raise ToolError(f"{error.kind}: {error.message}") from error
    except TidelineError as error:
        rules = f" (rules: {', '.join(error.rules)})" if error.rules else ""
        raise ToolError(f"{error.kind}: {error.message}{rules}") from error
    except RequestError as error:
        raise ToolError(f"{error.kind}: {error.message}") from error


def build_server(grant_of: GrantOf) -> MCPServer:
    """The MCP server; `grant_of(ctx)` says which token a call is made with (or raises ApiError)."""
    server = MCPServer("tideline", instructions=INSTRUCTIONS)
    call = sync_to_async(_run, thread_sensitive=True)

    @server.tool(annotations=ToolAnnotations(title="Remember a fact", read_only_hint=False, destructive_hint=False,
                                             idempotent_hint=True, open_world_hint=False))  # fmt: skip
    async def write_memory(content: str, ctx: Context, segment: str = "knowledge", origin: str | None = None,
                           source_type: str | None = None, subject_key: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Remember one fact (one clear sentence). It passes the write gates: untrusted sources
        (tool_output, retrieved_document) never set who the owner is or what they prefer, and injected
        instructions are refused. Without source_type the fact is stored as the token's source (see
        GET /api/v1/whoami); source_type may name a less trusted source, never a more trusted one,
        never legacy. Returns the fact's id and outcome: created, reinforced (a duplicate), confined,
        or held for review."""
        body = {"content": content, "segment": segment, "origin": origin, "source_type": source_type,
                "subject_key": subject_key}  # fmt: skip
        return await call(grant_of, ctx, "write", views.handle_write, body)

    @server.tool(annotations=ToolAnnotations(title="Recall memories", read_only_hint=True, open_world_hint=False))
    async def recall_memory(query: str, ctx: Context, k: int = 8, origin: str | None = None,
                            mode: Literal["hits", "context"] = "hits", as_of: str | None = None,
                            clearance: Literal["PUBLIC", "INTERNAL", "PII"] | None = None,
                            intent: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Recall what memory holds about `query`: up to `k` facts, each with a relevance from 0 to 1
        and why, or (mode="context") one prompt-ready block. Returns nothing relevant rather than
        something unrelated. `as_of` (ISO time) recalls as memory stood then; `clearance` may only
        lower the token's."""
        body = {"query": query, "k": k, "origin": origin, "as_of": as_of, "clearance": clearance, "intent": intent}
        handler = views.handle_context if mode == "context" else views.handle_recall
        return await call(grant_of, ctx, "read", handler, body)

    @server.tool(annotations=ToolAnnotations(title="Judge a recalled fact", read_only_hint=False, destructive_hint=False,
                                             idempotent_hint=False, open_world_hint=False))  # fmt: skip
    async def feedback_memory(id: str, signal: Literal["up", "down"], ctx: Context,  # noqa: A002 - the tool's field name
                              query: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Say whether a recalled fact helped: up (it answered) or down (it did not). Pass the `query`
        you recalled with: the vote then also waits, for a person to accept or reject, as a case of
        the gold set recall's settings are judged on."""
        return await call(grant_of, ctx, "write", views.handle_feedback, {"id": id, "signal": signal, "query": query})

    @server.tool(annotations=ToolAnnotations(title="Read a fact", read_only_hint=True, open_world_hint=False))
    async def read_memory(ctx: Context, id: str | None = None, origin: str | None = None,  # noqa: A002 - the tool's field name
                          cursor: str | None = None) -> dict[str, Any]:  # fmt: skip
        """One fact by id, with its links and history; without an id, the newest active facts of the
        token's scope (50 per page; pass next_cursor back as cursor)."""
        if id:
            return await call(grant_of, ctx, "read", views.handle_get, {}, memory_id=id)
        return await call(grant_of, ctx, "read", views.handle_list_body, {"origin": origin, "cursor": cursor})

    @server.tool(annotations=ToolAnnotations(title="Govern memory", read_only_hint=False, destructive_hint=True,
                                             idempotent_hint=False, open_world_hint=False))  # fmt: skip
    async def manage_memory(action: Literal["retract", "dream", "export", "purge_request"], ctx: Context,
                            ids: list[str] | None = None,
                            reason: str | None = None, dry_run: bool = False) -> dict[str, Any]:  # fmt: skip
        """For manage tokens. retract: archive the facts `ids` as retracted (restorable in the console);
        dream: run the nightly consolidation now (owner tokens; dry_run to preview); export: every fact the
        token may read (its scope and clearance; never held or expired); purge_request: what a hard purge of `ids` would take, and where an admin
        confirms it."""
        if action == "retract":
            return await call(grant_of, ctx, "manage", views.handle_retract_many, {"ids": ids or [], "reason": reason})
        body = {"action": action, "dry_run": dry_run, "ids": ids}
        return await call(grant_of, ctx, "manage", views.handle_manage, body)

    return server


def stdio_grant(secret: str) -> GrantOf:
    """For `tideline mcp --token T`: every call is made with that token (checked on each call, so a
    revoked token stops working at once)."""
    return lambda ctx: tokens.authenticate(secret)


def header_grant(ctx: Context) -> tokens.Grant:
    """For streamable HTTP: the token of the request that carried this call."""
    headers = ctx.headers or {}
    return tokens.authenticate(bearer_value(headers.get("authorization") or headers.get("Authorization") or ""))
