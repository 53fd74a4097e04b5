"""The Memory Graph page in a real browser at 5,000 nodes: `python -m bench.memory.graph_page [FACTS] [RUNS]`.

Builds a scratch workspace of FACTS (default 5,000) linked facts — communities of 20–200 facts,
about four links a fact (~20,000 edges), some across communities — in a throwaway SQLite database
(or in DATABASE_URL, which must then be a scratch database: the workspace is written to it), serves
the console on a local port and drives Debian's Chromium through Playwright (`TIDELINE_CHROMIUM`,
default /usr/bin/chromium). Each run measures:

* server: the graph page's HTML — time to first byte and its size;
* first draw: navigation start to the frame after the one holding sigma's first render (on screen);
* click → panel: mouse down on a node to the fact's side panel in the page;
* filter redraw: choosing a community (then a segment) to the frame after the one holding sigma's redraw;
* reset redraw: back to "all".

each once "cold" (the server exports the graph: decrypts, takes the kept communities, lays out) and once
"warm" (same revision: the page's graph is kept in memory), and prints the median of RUNS runs
(default 5), plus the JSON it also writes to
`test-artifacts/graph-page-timings.json`. The browser test `tests/browser/test_memory_graph_scale.py`
uses the same workspace builder and measurement.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

GRAPH_SEED = 20261122
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]  # fmt: skip
ARTIFACT = Path(__file__).resolve().parents[2] / "test-artifacts" / "graph-page-timings.json"
PASSWORD = "graph-bench-pw-1"
WORDS = ("depot", "parcel", "route", "invoice", "meeting", "deadline", "sensor", "report", "budget", "release",
         "ticket", "vendor", "backup", "schema", "ledger", "forecast", "survey", "contract", "roadmap", "audit")  # fmt: skip
KINDS = ("relates_to", "same_topic", "supports", "part_of", "uses", "precedes", "causes", "contradicts", "relates")


def build_records(count: int = 5000, links_per_fact: float = 4.0, seed: int = GRAPH_SEED) -> list[dict]:
    """facts.jsonl records: `count` facts in communities, ~`links_per_fact` links each (90 % inside)."""
    from memory.engine.facts import records as R

    rng = random.Random(seed)
    now_ms = int(time.time() * 1000)
    communities: list[list[int]] = []
    start = 0
    while start < count:
        size = min(count - start, rng.randint(20, 200))
        communities.append(list(range(start, start + size)))
        start += size
    community_of = {n: c for c, members in enumerate(communities) for n in members}
    records = []
    for n in range(count):
        segment = R.SEGMENTS[community_of[n] % len(R.SEGMENTS)]
        defaults = R.SEGMENT_DEFAULTS[segment]
        topic = WORDS[community_of[n] % len(WORDS)]
        created = now_ms - rng.randint(0, 60) * 86_400_000 - n
        records.append({
            "memoryId": f"mem_graph_{n:05d}",
            "content": f"Note {n} on the {topic} of team {community_of[n]}: {rng.choice(WORDS)} and {rng.choice(WORDS)}.",
            "segment": segment, "tier": defaults.tier, "importance": round(rng.uniform(0.2, 1.0), 3),
            "decayRate": defaults.decay_rate, "accessCount": rng.randint(0, 9), "lastAccessedAt": created,
            "createdAt": created, "lifecycle": "active", "createdBy": R.Origin.owner().as_created_by(),
            "sourceType": "owner_message",
        })  # fmt: skip
    total = int(count * links_per_fact)
    seen = set()
    while len(seen) < total:
        source = rng.randrange(count)
        members = communities[community_of[source]]
        target = rng.choice(members) if rng.random() < 0.9 or len(communities) == 1 else rng.randrange(count)
        kind = rng.choice(KINDS)
        if target == source or (source, target, kind) in seen:
            continue
        seen.add((source, target, kind))
        records[source].setdefault("links", []).append({"kind": kind, "target": f"mem_graph_{target:05d}"})
    return records


def load_graph_workspace(name: str, count: int = 5000, *, username: str = "graph-owner"):
    """Create the workspace (bulk import, one transaction per batch) and an owner who can sign in."""
    from django.contrib.auth import get_user_model

    from memory.models import Membership
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts

    workspace = create_workspace(name)
    lines = [json.dumps(record) for record in build_records(count)]
    import_facts(workspace=workspace, lines=lines, actor="bench", strict=True, source_name="graph-bench")
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    Membership.objects.create(user=user, workspace=workspace, role="owner")
    workspace.refresh_from_db()
    return workspace, user


def login(page, base_url: str, username: str = "graph-owner") -> None:
    page.goto(base_url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/")


_NODE_TO_CLICK = """() => {
    const { graph, renderer } = window.tidelineGraph;
    // A well-connected node that is drawn on top: the most important node with links.
    let best = null;
    graph.forEachNode((id, a) => { if (graph.degree(id) > 0 && (!best || a.size > best.size)) best = { id, size: a.size }; });
    const pos = renderer.graphToViewport(graph.getNodeAttributes(best.id));
    const box = document.getElementById('graph').getBoundingClientRect();
    return { id: best.id, x: box.left + pos.x, y: box.top + pos.y };
}"""

_SELECT_AND_TIME = """([selector, value]) => new Promise((resolve) => {
    const { renderer } = window.tidelineGraph;
    const select = document.querySelector(selector);
    const started = performance.now();
    let rendered = null;
    renderer.once('afterRender', () => { rendered = performance.now(); });
    select.value = value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    // The redraw may be synchronous or scheduled: wait for sigma's render, then for the frame after
    // the one that holds it (the drawing is on screen; software WebGL does its work in that frame).
    const wait = () => rendered === null ? requestAnimationFrame(wait)
        : requestAnimationFrame(() => requestAnimationFrame(() => resolve({ render: rendered - started, frame: performance.now() - started })));
    wait();
})"""


def measure(page, base_url: str, workspace_name: str) -> dict:
    """One run of the page's timings, in milliseconds (see the module docstring)."""
    url = f"{base_url}/w/{workspace_name}/graph/"
    page.goto(url)
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.drawnAt", timeout=60_000)
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const { graph, drawnAt } = window.tidelineGraph;
        const mark = (name) => (performance.getEntriesByName(name)[0] || { startTime: NaN }).startTime;
        return { ttfb: nav.responseStart, html_done: nav.responseEnd, dom_ready: nav.domContentLoadedEventEnd,
                 drawn: drawnAt, bytes: nav.transferSize || nav.encodedBodySize, nodes: graph.order, edges: graph.size,
                 script: mark('graph:start'), parse: mark('graph:parsed') - mark('graph:start'),
                 build: mark('graph:built') - mark('graph:parsed'), sigma: mark('graph:rendered') - mark('graph:built') };
    }""")
    node = page.evaluate(_NODE_TO_CLICK)
    page.evaluate("() => { window.__down = null; document.addEventListener('mousedown', (e) => { window.__down = performance.now(); }, { capture: true, once: true }); }")
    page.mouse.click(node["x"], node["y"])
    page.wait_for_selector("#graph-panel-body", timeout=30_000)
    click = page.evaluate("() => window.tidelineGraph.panelShownAt - window.__down")
    cluster = page.eval_on_selector("#graph-cluster", "(s) => s.options[1].value")
    segment = page.eval_on_selector("#graph-segment", "(s) => s.options[1].value")
    by_cluster = page.evaluate(_SELECT_AND_TIME, ["#graph-cluster", cluster])
    reset = page.evaluate(_SELECT_AND_TIME, ["#graph-cluster", ""])
    by_segment = page.evaluate(_SELECT_AND_TIME, ["#graph-segment", segment])
    page.evaluate(_SELECT_AND_TIME, ["#graph-segment", ""])
    return {
        "nodes": timing["nodes"], "edges": timing["edges"], "html_bytes": timing["bytes"],
        "server_ttfb_ms": round(timing["ttfb"], 1), "html_loaded_ms": round(timing["html_done"], 1),
        "dom_ready_ms": round(timing["dom_ready"], 1), "script_start_ms": round(timing["script"], 1),
        "json_parse_ms": round(timing["parse"], 1), "graph_build_ms": round(timing["build"], 1),
        "sigma_init_ms": round(timing["sigma"], 1), "first_draw_ms": round(timing["drawn"], 1),
        "click_to_panel_ms": round(click, 1), "filter_community_ms": round(by_cluster["frame"], 1),
        "filter_segment_ms": round(by_segment["frame"], 1), "filter_reset_ms": round(reset["frame"], 1),
        "filter_community_render_ms": round(by_cluster["render"], 1),
    }  # fmt: skip


def summarize(runs: list[dict]) -> dict:
    """The median of each timing over the runs (sizes taken from the first run)."""
    keys = [k for k in runs[0] if k.endswith("_ms")]
    return {**{k: runs[0][k] for k in runs[0] if not k.endswith("_ms")},
            **{k: round(statistics.median(r[k] for r in runs), 1) for k in keys}, "runs": len(runs)}  # fmt: skip


def write_artifact(result: dict, path: Path = ARTIFACT) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    scratch = tempfile.mkdtemp(prefix="tl-graph-bench-")
    os.environ.setdefault("TIDELINE_VAR_DIR", scratch)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop in this thread
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    if "*" not in settings.ALLOWED_HOSTS:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1", "localhost"]
    call_command("migrate", verbosity=0)
    name = f"graph-bench-{count}-{int(time.time())}"
    started = time.perf_counter()
    load_graph_workspace(name, count, username=name)
    print(f"built {name}: {count:,} facts in {time.perf_counter() - started:.1f} s (database: {settings.DATABASES['default']['NAME']})")
    from memory.models import Workspace
    from memory.services.maintenance import graph

    started = time.perf_counter()
    graph.recompute(Workspace.objects.get(name=name).pk)  # what the worker does after the writes
    print(f"communities kept in {time.perf_counter() - started:.1f} s (python-louvain, cold, as the worker runs it)")
    server = LiveServerThread("127.0.0.1", _static_handler(), port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    base_url = f"http://127.0.0.1:{server.port}"
    chromium = os.environ.get("TIDELINE_CHROMIUM", "/usr/bin/chromium")
    cold, warm = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS, headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            login(page, base_url, username=name)
            measure(page, base_url, name)  # warms the browser's cache of the static files
            for _ in range(runs):
                forget_graph_pages()  # cold: the server exports the graph again
                cold.append(measure(page, base_url, name))
                warm.append(measure(page, base_url, name))  # the same revision: served from memory
            browser.close()
    finally:
        server.terminate()
    result = {"cold": summarize(cold), "warm": summarize(warm), "load_average": [round(x, 2) for x in os.getloadavg()],
              "cpus": os.cpu_count(), "runs": {"cold": cold, "warm": warm}}  # fmt: skip
    write_artifact(result)
    for label in ("cold", "warm"):
        print(f"{label} (server exports the graph)" if label == "cold" else f"{label} (same revision, page kept in memory)")
        for key, value in result[label].items():
            print(f"  {key:<28} {value}")
    print(f"load average {result['load_average']} on {result['cpus']} CPUs; median of {runs} runs; raw runs in {ARTIFACT}")


def forget_graph_pages() -> None:
    from memory import views

    with views._GRAPH_PAGES_LOCK:
        views._GRAPH_PAGES.clear()


def _static_handler():
    from django.contrib.staticfiles.handlers import StaticFilesHandler

    return StaticFilesHandler


if __name__ == "__main__":
    main()
