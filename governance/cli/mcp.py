"""`tideline mcp --token T` — Tideline as an MCP server on stdio, for agents that launch it themselves.

The token decides everything: workspace, whom it acts for, verbs and clearance (`tideline tokens
create`). stdout carries the protocol; messages for people go to stderr. Over HTTP the same tools are
served at `/mcp/` by `make run` (bearer token per request).
"""

from __future__ import annotations

import os
import sys

from governance.services import tokens
from memory.services.errors import RequestError

HELP = "serve the MCP tools (write_memory, recall_memory, read_memory, manage_memory) on stdio for one token"


def add_arguments(parser) -> None:
    parser.add_argument("--token", default=os.environ.get("TIDELINE_TOKEN", ""),
                        help="the API token (or the TIDELINE_TOKEN environment variable)")  # fmt: skip


def run(options: dict) -> None:
    from governance.mcp_tools import build_server, stdio_grant

    secret = (options.get("token") or "").strip()
    if not secret:
        raise RequestError("tideline mcp needs --token T (make one with tideline tokens create)", kind="validation")
    grant = tokens.authenticate(secret)  # refuse a bad token before speaking the protocol
    sys.stderr.write(f"tideline MCP server on stdio: workspace {grant.workspace.name}, acting as {grant.scope.label} "
                     f"({', '.join(grant.verbs)})\n")  # fmt: skip
    build_server(stdio_grant(secret)).run("stdio")
