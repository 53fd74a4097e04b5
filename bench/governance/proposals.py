"""Evaluating a proposal on a large gold set, and the proposals pages' server time (docs/BENCHMARKS.md).

    python -m bench.governance.proposals [--facts 5000] [--cases 600] [--proposals 300] [--requests 50] [--json]

Seeds a fresh workspace (a unique name; run it on a scratch database) with `--facts` facts through
the bulk import path, and an approved live gold set of `--cases` cases, each a query made of four of
its fact's words in another order (one of them misspelt for a third of the cases, so the n-gram
lane matters). Then times, each with the function the django-q2 worker calls
(`governance.tasks.evaluate_proposal`):

* a recall-settings proposal (every capability, baseline and candidate, on every case);
* a retraction proposal (one fact; the capabilities share the baseline's rankings);
* the settings search behind a recall-miss proposal (`proposal_eval.search_settings`, every case
  ranked once per candidate setting, as the worker runs it).

Then fills the inbox with `--proposals` proposals in every status and times `--requests` requests
of the proposals page (first page, a status tab) and of an evaluated proposal's page through
Django's test client (as host `localhost`, which the default ALLOWED_HOSTS allows).

The figures in docs/BENCHMARKS.md are copied from its output, with the command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

from bench.governance.queue import _progress


def seed(facts: int, cases: int, *, quiet: bool = False):
    from django.utils import timezone

    from bench.memory.corpus import Corpus
    from governance.models import GoldCase, GoldSet
    from memory.engine.recall.tokenize import tokenize
    from memory.models import Fact
    from memory.services.workspaces import create_workspace
    from memory.services.writes.interchange import import_facts
    from memory.timestamps import to_ms

    workspace = create_workspace(f"proposalbench-{facts}-{int(time.time() * 1000)}", actor="bench")
    now_ms = to_ms(timezone.now())
    lines = [json.dumps({"memoryId": f"mem_p_{i:07d}", "content": f.content, "segment": f.segment,
                         "createdAt": now_ms - 60_000 * i, "lifecycle": "active", "createdBy": {"kind": "owner"},
                         "sourceType": "owner_message"})
             for i, f in enumerate(Corpus(seed=21).facts(facts))]  # fmt: skip
    report = import_facts(workspace=workspace, lines=lines, actor="bench", source_name="proposalbench", strict=True,
                          progress=_progress("facts", len(lines), quiet))  # fmt: skip
    if report.refused:
        raise SystemExit(f"seeding refused {len(report.refused)} lines, e.g. {report.refused[0]}")
    rng = random.Random(5)
    every = list(Fact.objects.filter(workspace=workspace))  # contents are sealed: read them through the model
    chosen = [(f.memory_id, f.content) for f in rng.sample(every, min(cases, facts))]
    gold = GoldSet.objects.create(workspace=workspace, name="bench", kind="live", source="scaffold", created_by="bench",
                                  approved_at=timezone.now(), approved_by_name="bench-approver")  # fmt: skip
    rows = []
    for position, (memory_id, content) in enumerate(chosen):
        words = [w for w in tokenize(content) if len(w) > 3] or content.split()
        picked = rng.sample(words, min(4, len(words)))
        if position % 3 == 0 and picked and len(picked[0]) > 4:  # a typo: swap two inner letters
            w = picked[0]
            picked[0] = w[0] + w[2] + w[1] + w[3:]
        rows.append(GoldCase(gold_set=gold, case_id=f"b{position}", query=" ".join(picked), relevant_keys=[memory_id],
                             category=("typo" if position % 3 == 0 else "words"), position=position))  # fmt: skip
    GoldCase.objects.bulk_create(rows)
    return workspace, chosen


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)


def _fill_inbox(workspace, count: int, evaluated) -> None:
    """`count` proposals in every status (copies of an evaluated one's report), for the page timings."""
    from governance.models import Proposal

    statuses = [s.value for s in Proposal.Status]
    Proposal.objects.bulk_create([
        Proposal(workspace=workspace, change="tuning", source="manual", status=statuses[i % len(statuses)],
                 title=f"Bench proposal {i}", rationale="bench", tuning=evaluated.tuning, base_version=0,
                 author_name="bench", fingerprint=f"bench-{i}", evaluation="done", report=evaluated.report,
                 clears_bar=bool(i % 2), bar_reason="bench")
        for i in range(count)])  # fmt: skip


def _page_times(workspace, urls: dict[str, str], requests: int) -> dict[str, dict]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from bench.memory.pages import time_page
    from memory.models import Membership

    user, _ = get_user_model().objects.get_or_create(username="bench-approver")
    Membership.objects.get_or_create(user=user, workspace=workspace, role="approver")
    client = Client(HTTP_HOST="localhost")  # a host the default ALLOWED_HOSTS accepts
    client.force_login(user)
    out = {}
    for label, url in urls.items():
        summary = time_page(client, url, requests)
        out[label] = {"p50_ms": round(summary.p50_ms, 1), "p95_ms": round(summary.p95_ms, 1), "n": requests}
    return out


def run(facts: int, cases: int, proposals_count: int, requests: int, *, quiet: bool = False) -> dict[str, Any]:
    from django.db import connection

    from governance import tasks
    from governance.models import Proposal
    from governance.services import proposal_eval, proposals
    from memory.models import Fact
    from memory.services import tuning as tuning_service

    started = time.perf_counter()
    workspace, chosen = seed(facts, cases, quiet=quiet)
    seeded = round(time.perf_counter() - started, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    _, in_force = tuning_service.current(workspace)
    settings = proposals.propose_tuning(workspace, {"ngram_floor": 0.45 if in_force.ngram_floor < 0.45 else 0.2},
                                        rationale="bench", actor="bench")  # fmt: skip
    needed = {memory_id for memory_id, _ in chosen}
    spare = next((m for m in Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True)
                  if m not in needed), chosen[0][0])  # a fact no case needs: the retraction can clear its bar
    retract = proposals.propose_retraction(workspace, [spare], rationale="bench", actor="bench")
    results = {}
    for label, proposal in (("settings", settings), ("retraction", retract)):
        Proposal.objects.filter(pk=proposal.pk).update(evaluation="queued")
        outcome, wall, cpu = _timed(lambda p=proposal: tasks.evaluate_proposal(p.pk))
        proposal.refresh_from_db()
        results[label] = {"seconds": wall, "cpu_seconds": cpu, "cases": proposal.report.get("cases"),
                          "clears_bar": proposal.clears_bar, "bar_reason": proposal.bar_reason,
                          "mrr_delta": proposal.report["capabilities"]["default"]["deltas"]["mrr"]["mean"]}  # fmt: skip
        if not quiet:
            print(f"  evaluated the {label} proposal in {wall:.2f} s", file=sys.stderr)
    settings.refresh_from_db()
    found, wall, cpu = _timed(lambda: proposal_eval.search_settings(workspace, max_cases=cases))
    results["settings search"] = {"seconds": wall, "cpu_seconds": cpu, "cases": found.before.answerable,
                                  "clears_bar": found.chosen is not None, "bar_reason": found.reason,
                                  "mrr_delta": (found.after.mrr - found.before.mrr) if found.after else 0.0,
                                  "settings_tried": found.tried}  # fmt: skip
    if not quiet:
        print(f"  searched {found.tried} recall settings in {wall:.2f} s", file=sys.stderr)
    _fill_inbox(workspace, proposals_count, settings)
    name = workspace.name
    pages = _page_times(workspace, {"proposals page": f"/w/{name}/proposals/",
                                    "proposals page, pending tab": f"/w/{name}/proposals/?status=pending",
                                    "proposals page, page 3": f"/w/{name}/proposals/?page=3",
                                    "evaluated proposal": f"/w/{name}/proposals/{settings.pk}/"}, requests)  # fmt: skip
    return {"database": connection.vendor, "workspace": name, "facts": facts, "cases": cases, "seed_seconds": seeded,
            "evaluations": results, "proposals_in_inbox": proposals_count + 2, "pages": pages}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.proposals", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=5000, help="facts in the workspace")
    parser.add_argument("--cases", type=int, default=600, help="gold cases in the approved set")
    parser.add_argument("--proposals", type=int, default=300, help="proposals in the inbox for the page timings")
    parser.add_argument("--requests", type=int, default=50, help="timed requests per page")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.facts < 1 or args.cases < 1 or args.requests < 1 or args.proposals < 0:
        parser.error("need --facts, --cases and --requests ≥ 1 and --proposals ≥ 0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    result = run(args.facts, args.cases, args.proposals, args.requests)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['facts']:,} facts, {result['cases']} approved gold cases, {result['database']} "
          f"(seeded in {result['seed_seconds']} s)")
    for label, r in result["evaluations"].items():
        if label == "settings search":
            print(f"  search {r['settings_tried']} settings {r['seconds']:6.2f} s (CPU {r['cpu_seconds']:.2f} s) on "
                  f"{r['cases']} cases: {'proposes' if r['clears_bar'] else 'nothing to propose'} ({r['bar_reason']})")
            continue
        print(f"  evaluate {label:<11} {r['seconds']:6.2f} s (CPU {r['cpu_seconds']:.2f} s) on {r['cases']} cases: "
              f"{'clears' if r['clears_bar'] else 'misses'} the bar, MRR delta {r['mrr_delta']:+.4f}")
    print(f"  pages ({result['proposals_in_inbox']} proposals in the inbox):")
    for label, p in result["pages"].items():
        print(f"    {label:<28} p50 {p['p50_ms']:7.1f} ms   p95 {p['p95_ms']:7.1f} ms   (n={p['n']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
