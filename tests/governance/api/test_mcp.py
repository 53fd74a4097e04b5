"""A real MCP client (the official SDK's) against Tideline's MCP server (ENGINE-SPEC §10.1): over stdio
(`tideline mcp --token T`) and over streamable HTTP (`/mcp/` in the uvicorn server `make run` starts),
each on a scratch database made by the CLI. Lists the tools, writes, recalls, and is refused outside
its token's scope."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tideline_kit.serving import start_web

ROOT = Path(__file__).resolve().parents[3]
PEER = "channel:slack/general/s1"


def _run_async(coroutine):
    """`asyncio.run` in a thread of its own: another test's fixture (Playwright's sync API) may keep an
    event loop running in this one."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=300)


def _cli(env: dict, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "tideline_site.cli", *args, "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A migrated scratch database with one workspace, an owner fact, a peer fact and three tokens."""
    root = tmp_path_factory.mktemp("mcp")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{root / 'tideline.sqlite3'}", "TIDELINE_VAR_DIR": str(root),
           "TIDELINE_KEYSTORE_DIR": str(root / "keystore")}  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    _cli(env, "add", "I am allergic to peanuts", "--workspace", "w", "--create", "--segment", "identity")
    _cli(env, "add", "The standup moved to 10am on Mondays", "--workspace", "w", "--segment", "knowledge",
         "--origin", PEER)  # fmt: skip
    made = {name: _cli(env, "tokens", "create", "--workspace", "w", "--origin", origin, "--verbs", verbs, "--name", name,
                       "--source", source)["token"]
            for name, origin, verbs, source in (("owner", "owner", "read,write", "owner_message"),
                                                ("peer", PEER, "read,write", "channel_message"),
                                                ("reader", "owner", "read", "owner_message"),
                                                ("tools", "owner", "read,write", "tool_output"))}  # fmt: skip
    return env, made


MCP_CANARY = "glpat-QuorvithMcpCanary01234"


async def _exercise(session: ClientSession, tokens_kind: str) -> dict:
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    out: dict = {"tools": tools}
    out["recall"] = await session.call_tool("recall_memory", {"query": "what am I allergic to"})
    for hit in out["recall"].structured_content["hits"][:1]:  # a peer's session recalls none of the owner's facts
        out["feedback"] = await session.call_tool("feedback_memory", {"id": hit["id"], "signal": "up",
                                                                      "query": "what am I allergic to"})  # fmt: skip
    out["write"] = await session.call_tool("write_memory", {"content": f"I keep a journal every evening ({tokens_kind})",
                                                            "segment": "preference"})  # fmt: skip
    out["secret"] = await session.call_tool("write_memory", {"content": f"The CI token is {MCP_CANARY} ({tokens_kind})",
                                                             "segment": "knowledge"})  # fmt: skip
    out["outside"] = await session.call_tool("recall_memory", {"query": "standup", "origin": PEER})
    out["manage"] = await session.call_tool("manage_memory", {"action": "export"})
    return out


def _check(out: dict) -> None:
    tools = out["tools"]
    assert set(tools) == {"write_memory", "recall_memory", "read_memory", "manage_memory", "feedback_memory"}
    assert not out["feedback"].is_error and out["feedback"].structured_content["signal"] == "up"
    assert tools["recall_memory"].annotations.read_only_hint and tools["manage_memory"].annotations.destructive_hint
    assert "query" in tools["recall_memory"].input_schema["properties"]
    recall = out["recall"]
    assert not recall.is_error and recall.structured_content["hits"][0]["content"] == "I am allergic to peanuts"
    assert not out["write"].is_error and out["write"].structured_content["outcome"] == "created"
    secret = out["secret"].structured_content  # the write says what it found, and the token never comes back
    assert secret["detected"] == ["gitlab_token"] and "[secret: GitLab token]" in secret["fact"]["content"]
    assert MCP_CANARY not in str(secret)
    assert out["outside"].is_error and "forbidden" in out["outside"].content[0].text
    assert out["manage"].is_error and "may not manage" in out["manage"].content[0].text


def test_stdio_lists_writes_recalls_and_refuses_outside_its_scope(scratch):
    env, made = scratch
    params = StdioServerParameters(command=sys.executable, args=["-m", "tideline_site.cli", "mcp", "--token", made["owner"]],
                                   env=env, cwd=str(ROOT))  # fmt: skip

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _exercise(session, "stdio")

    _check(_run_async(main()))
    # The vote named its query: it waits as a gold-case candidate (once, however often it is sent).
    candidates = _cli(env, "gold", "candidates", "--workspace", "w")["candidates"]
    assert [(c["query"], c["fact"], c["source"]) for c in candidates] == [
        ("what am I allergic to", "I am allergic to peanuts", "up_vote")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(scratch):
    env, made = scratch
    port = _free_port()
    processes = start_web(port=port, workers=2, env=env)  # as `tideline serve` runs them
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url + "/api/v1/openapi.json", timeout=1).status_code == 200:
                break
        except httpx2.HTTPError:
            time.sleep(0.2)
    yield url, made
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=20)


def test_streamable_http_does_the_same_with_the_token_as_bearer(server):
    url, made = server

    async def main(token: str):
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            streamable_http_client(url + "/mcp/", http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            return await _exercise(session, "http")

    _check(_run_async(main(made["owner"])))
    peer = _run_async(main(made["peer"]))  # the same tools as the peer: its own session only
    assert peer["recall"].structured_content["hits"] == [] and peer["outside"].is_error is False
    assert peer["outside"].structured_content["hits"][0]["content"].startswith("The standup")


def test_http_without_a_valid_token_is_401_before_any_session(server):
    url, _ = server
    for headers in ({}, {"Authorization": "Bearer tl_nope"}):
        response = httpx2.post(url + "/mcp/", headers={**headers, "Content-Type": "application/json"}, content=b"{}")
        assert response.status_code == 401 and response.json()["error"]["kind"] == "unauthorized"


def test_two_workers_stay_coherent_writing_and_recalling(server):
    """Writes through one worker are recalled through the other: each syncs its index by revision."""
    url, made = server
    headers = {"Authorization": f"Bearer {made['owner']}"}
    for n in range(6):
        content = f"Parking spot number {n} is reserved for visitors on level {n + 2}"
        assert httpx2.post(url + "/api/v1/memories", headers=headers, json={"content": content}).status_code == 201
        found = [httpx2.post(url + "/api/v1/recall", headers=headers, json={"query": f"parking spot {n} visitors level {n + 2}"})
                 .json()["hits"][0]["content"] for _ in range(4)]  # fmt: skip
        assert found == [content] * 4


def test_deeply_nested_json_is_refused_as_a_client_error_on_both_http_transports(server):
    """50,000 nested brackets (under the size limit) were a 500 from the API (RecursionError)."""
    url, made = server
    deep = "[" * 50_000 + "]" * 50_000
    headers = {"Authorization": f"Bearer {made['owner']}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    api = httpx2.post(url + "/api/v1/memories", headers=headers, content='{"content": ' + deep + "}")
    assert api.status_code == 422 and "nested too deeply" in api.json()["error"]["message"]
    call = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write_memory", "arguments": {"content": ' + deep + "}}}"
    mcp = httpx2.post(url + "/mcp/", headers=headers, content=call)
    assert mcp.status_code == 400, (mcp.status_code, mcp.text[:300])  # the SDK's parser bounds nesting itself
    assert mcp.json()["error"]["code"] == -32700 and "recursion limit" in mcp.json()["error"]["message"]


def test_write_memory_takes_its_tokens_source_and_never_a_more_trusted_one(server):
    """Through a real MCP client: a token made without --source writes as tool_output (untrusted);
    naming a more trusted source type or legacy is refused; naming a less trusted one is kept; an
    origin whose label would name another is refused."""
    url, made = server

    async def main():
        results = {}
        for token, label, source in ((made["tools"], "plain", None), (made["tools"], "raise", "owner_message"),
                                     (made["owner"], "legacy", "legacy"), (made["owner"], "lower", "retrieved_document"),
                                     (made["peer"], "ambiguous", None)):  # fmt: skip
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                streamable_http_client(url + "/mcp/", http_client=http) as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                await session.initialize()
                args = {"content": f"The deploy window is Thursday evening ({label})"}
                if label == "ambiguous":  # a part holding '@' before the account: its label would not name it
                    args["origin"] = "channel:slack/gener@l/s1"
                results[label] = await session.call_tool("write_memory", {**args, **({"source_type": source} if source else {})})
        return results

    out = _run_async(main())
    assert not out["plain"].is_error and out["plain"].structured_content["fact"]["source_type"] == "tool_output"
    assert out["raise"].is_error and "forbidden" in out["raise"].content[0].text
    assert "writes as tool_output" in out["raise"].content[0].text
    assert out["legacy"].is_error and "old records only" in out["legacy"].content[0].text
    assert not out["lower"].is_error and out["lower"].structured_content["fact"]["source_type"] == "retrieved_document"
    assert out["ambiguous"].is_error and "validation: origin conversation 'gener@l' contains '@'" in out["ambiguous"].content[0].text
