"""`tideline gold list|show|score|upload|scaffold|approve|candidates|accept|reject --workspace W [--json]` (ENGINE-SPEC §8.1).

`score SET [--k 8]` asks recall a live set's questions against this workspace's memory and settings
now, read-only, and prints hit@k, MRR, nDCG, precision and hits per question overall and per
category, then each missed case (the console's "Score a gold set").

`upload FILE` stores a gold JSON (either format the harness reads; unknown keys refused) as an
unapproved set; `scaffold` makes a set from the workspace's most-used owner facts, each query the
placeholder to rewrite in the console; `approve --set NAME [--as USER]` is an approver's or admin's
act (checked with --as; without it the operator approves as cli:gold), never the set's maker's, and
only once no placeholder query is left. `candidates` lists the gold-case candidates agents' votes
left (`governance.services.gold_candidates`); `accept --candidate ID [--query TEXT] [--fact ID |
--nothing] --as USER` makes one a case of the set "from-signals", `reject --candidate ID --as USER`
drops it. The work is `governance.services.gold`'s.
"""

from __future__ import annotations

from pathlib import Path

from governance.cli.proposals import member_user
from governance.services import gold, gold_candidates, proposal_eval
from governance.services.acting import Actor
from memory.cli.common import emit
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER
from memory.services.workspaces import get_workspace

HELP = ("gold sets: list, show and score them, upload a gold JSON, make a scaffold from this workspace, approve one; "
        "list, accept or reject the gold-case candidates agents' votes left")  # fmt: skip
ACTOR = Actor.cli("gold")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("list", "show", "score", "upload", "scaffold", "approve", "candidates", "accept", "reject"))
    parser.add_argument("target", nargs="?", metavar="FILE|SET", help="upload: the gold JSON; show/score/approve: the set")
    parser.add_argument("--file", help="upload: the gold JSON (instead of the positional FILE)")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--set", dest="gold_set", metavar="NAME", help="show/score/approve: the set (name or id)")
    parser.add_argument("--k", type=int, default=proposal_eval.SCORE_K,
                        help="score: how many hits each question may get (1 to 50)")
    parser.add_argument("--name", default="", help="upload/scaffold: the new set's name")
    parser.add_argument("--size", type=int, default=gold.SCAFFOLD_DEFAULT, help="scaffold: how many cases")
    parser.add_argument("--candidate", metavar="ID", help="accept/reject: the candidate")
    parser.add_argument("--query", help="accept: the question as you would write it (default: the candidate's)")
    parser.add_argument("--fact", metavar="FACT_ID", help="accept: the fact that answers (a down-vote needs it or --nothing)")
    parser.add_argument("--nothing", action="store_true", help="accept: nothing should come back for the question")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME",
                        help="act as this member (else as cli:gold, the operator; nobody approves a set they made)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    user, actor = member_user(workspace, options.get("as_user"))
    actor = actor if user is not None else ACTOR
    if action == "list":
        found = [gold.describe(s) for s in gold.sets(workspace).prefetch_related("cases")]
        lines = [f"gold sets of {workspace.name}: {len(found)}"] + [
            f"  #{s['id']:<4} {s['name']:<28} {s['cases']:>4} cases  "
            f"{'approved by ' + s['approved_by'] if s['approved'] else (str(s['placeholders']) + ' to rewrite' if s['placeholders'] else 'awaiting approval')}"
            for s in found]  # fmt: skip
        return emit(options, {"workspace": workspace.name, "gold_sets": found}, "\n".join(lines))
    if action == "candidates":
        shown = [row.as_dict() for row in gold_candidates.shown(gold_candidates.open_candidates(workspace)[:500])]
        lines = [f"gold-case candidates of {workspace.name}: {len(shown)}"] + [
            f"  #{c['id']:<5} {c['query']!r} → {c['fact_id']} {c['fact']!r}\n         ({c['why']}; by {c['actor']})"
            for c in shown]  # fmt: skip
        return emit(options, {"workspace": workspace.name, "candidates": shown}, "\n".join(lines))
    if action in ("accept", "reject"):
        if not options.get("candidate"):
            raise RequestError(f"gold {action} needs --candidate ID", kind="usage")
        found = gold_candidates.get(workspace, options["candidate"])
        if action == "reject":
            done = gold_candidates.reject(found, user=user, actor=actor)
            return emit(options, {"candidate": done.pk, "status": done.status}, f"rejected candidate #{done.pk}")
        try:
            case = gold_candidates.accept(found, user=user, actor=actor, query=options.get("query"),
                                          fact_id=options.get("fact"), nothing=bool(options.get("nothing")))  # fmt: skip
        except RequestError as refused:
            if refused.kind == "validation" and not (options.get("fact") or options.get("nothing")):
                raise RequestError(f"{refused.message} (--fact FACT_ID, or --nothing)", kind="validation") from None
            raise
        return emit(options, {"candidate": found.pk, "status": "accepted", "gold_set": case.gold_set.name,
                              "case": case.case_id, "query": case.query, "relevant_keys": case.relevant_keys},
                    f"accepted #{found.pk} as case {case.case_id} of {case.gold_set.name!r}: an approver approves the set "
                    "again before proposals are judged on it")  # fmt: skip
    if action == "upload":
        if not (options.get("file") or options.get("target")):
            raise RequestError("gold upload needs the FILE to upload", kind="usage")
        path = Path(options.get("file") or options["target"])
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise RequestError(f"cannot read {path}: {exc.strerror}", kind="not_found") from None
        made = gold.upload(workspace, raw, filename=path.name, name=options["name"], user=user, actor=actor)
        return emit(options, gold.describe(made), f"uploaded {made.name!r} (#{made.pk}): {made.cases.count()} cases, "
                                                  "unapproved until an approver approves it")  # fmt: skip
    if action == "scaffold":
        made = gold.scaffold(workspace, size=options["size"], name=options["name"], user=user, actor=actor)
        return emit(options, gold.describe(made), f"made {made.name!r} (#{made.pk}) with {made.cases.count()} cases: "
                    f"rewrite each query on /w/{workspace.name}/gold/{made.pk}/, then have an approver approve it")  # fmt: skip
    if not (options.get("gold_set") or options.get("target")):
        raise RequestError(f"gold {action} needs the set: --set NAME (or its id)", kind="usage")
    found = gold.get(workspace, options.get("gold_set") or options["target"])
    if action == "score":
        return _score(options, found, user)
    if action == "show":
        lines = [f"{found.name} (#{found.pk}, {found.kind}, {'approved' if found.approved else 'not approved'})"]
        for c in found.cases.all():
            query = "(placeholder: rewrite it)" if PLACEHOLDER in c.query else c.query
            lines.append(f"  {c.case_id:<8} {query}  → {', '.join(c.relevant_keys) or '(abstention)'}")
        payload = {**gold.describe(found), "case_list": [{"id": c.case_id, "query": c.query, "relevant_keys": c.relevant_keys,
                                                          "category": c.category} for c in found.cases.all()]}  # fmt: skip
        return emit(options, payload, "\n".join(lines))
    done = gold.approve(found, user=user, actor=actor)
    emit(options, gold.describe(done), f"approved {done.name!r}: proposals are evaluated on it from now on")


def _score(options: dict, found, user) -> None:
    k = options["k"]
    if not 1 <= k <= 50:
        raise RequestError("--k must be between 1 and 50", kind="validation")
    result = proposal_eval.score_live_set(found, k=k, max_cases=proposal_eval.MAX_SCORED_CASES, user=user)
    s = result["summary"]
    lines = [f"{result['name']}: {s['scored']} answerable cases scored at k = {k} against {found.workspace.name}'s memory "
             f"(settings version {result['settings_version']})",
             f"  hit@{k} {s['hit_at_k']:.3f}  MRR {s['mrr']:.3f}  nDCG@{k} {s['ndcg_at_k']:.3f}  precision "
             f"{s['precision']:.3f}  hits/question {s['hits_per_question']:.2f}  abstention violations "
             f"{s['abstention_violations']} of {result['abstentions']}"]  # fmt: skip
    for name, c in result["by_category"].items():
        lines.append(f"    {name:<24} n={c['n']:<4} hit@{k} {c['hit_at_k']:.3f}  MRR {c['mrr']:.3f}  nDCG {c['ndcg_at_k']:.3f}"
                     f"  precision {c['precision']:.3f}  hits/q {c['hits_per_question']:.2f}")  # fmt: skip
    missed = [c for c in result["cases"] if not c["abstention"] and not c["hit"]]
    if missed:
        lines.append(f"  missed ({len(missed)}):")
        lines += [f"    {c['case']:<8} {c['query']}" for c in missed]
    if result["placeholders"] or result["left_out"]:
        lines.append(f"  not scored: {result['placeholders']} placeholder queries, {result['left_out']} past the first "
                     f"{proposal_eval.MAX_SCORED_CASES} cases")  # fmt: skip
    emit(options, result, "\n".join(lines))
