"""The agent-facing HTTP API (`/api/v1/…`, JSON; docs/ARCHITECTURE.md §6): identity and scope come from the token.

`auth.py` reads the bearer token and decides what a call may do; `views.py` holds the endpoints (thin:
each calls a memory or governance service); `schema.py` is the OpenAPI document they are checked
against.
"""
