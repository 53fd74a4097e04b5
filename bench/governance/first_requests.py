"""The first requests a freshly started web process serves, with its database sessions warmed as it
starts and without (`TIDELINE_WARM_SESSIONS`), alternating.

    python -m bench.governance.first_requests --reuse PREFIX [--starts 6] [--json]

PREFIX names workspaces `bench.governance.workspaces_load` seeded (its `var/PREFIX.json`). Each
start is one web process with a connection pool, as `tideline serve` runs it; once `/healthz`
answers, four recalls follow (`workspaces_load.cold_recalls`: each on a new connection), each to a workspace of 60–199 facts no process has served since its
start (its index built from the database in the request). Reports the median of the first, the
second, and the third and fourth, per setting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys


def _serve_once(seeded: list[dict], warm: str) -> list[float]:
    from bench.governance.api_load import _free_port, _wait_for
    from bench.governance.workspaces_load import cold_recalls
    from tideline_kit.serving import start_web

    port = _free_port()
    env = {**{k: v for k, v in os.environ.items() if k != "TIDELINE_Q_SYNC"}, "TIDELINE_DB_POOL": "1",
           "TIDELINE_WARM_SESSIONS": warm, "TIDELINE_API_RATE_PER_MINUTE": "0"}  # fmt: skip
    servers = start_web(port=port, workers=1, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(url)
        return cold_recalls(url, seeded)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=60)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.first_requests", description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", required=True, help="the prefix of workspaces workspaces_load seeded")
    parser.add_argument("--starts", type=int, default=6, help="starts per setting")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from bench.governance.workspaces_load import seeded_record

    seeded = json.loads(seeded_record(args.reuse).read_text())
    small = [w for w in seeded if 60 <= w["facts"] < 200]
    if len(small) < 8 * args.starts:
        parser.error(f"{args.reuse} has {len(small)} workspaces of 60–199 facts; {8 * args.starts} are needed")
    runs: dict[str, list[list[float]]] = {"0": [], "1": []}
    for start in range(args.starts):
        for warm in ("0", "1"):
            first = (2 * start + int(warm)) * 4
            runs[warm].append(_serve_once(small[first : first + 4], warm))
            print(f"warm sessions {warm}: {runs[warm][-1]} ms", file=sys.stderr, flush=True)
    report = {("warmed" if warm == "1" else "not_warmed"): {
        "first_ms": statistics.median(r[0] for r in times), "second_ms": statistics.median(r[1] for r in times),
        "third_fourth_ms": statistics.median(x for r in times for x in r[2:]), "runs": times}
        for warm, times in runs.items()}  # fmt: skip
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, figures in report.items():
        print(f"{name:>10}: first {figures['first_ms']:.1f} ms, second {figures['second_ms']:.1f} ms, "
              f"third and fourth {figures['third_fourth_ms']:.1f} ms (medians of {args.starts} starts)")  # fmt: skip


if __name__ == "__main__":
    main()
