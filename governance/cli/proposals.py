"""`tideline proposals list|show|propose|evaluate|approve|reject|apply|revert|bar --workspace W [--json]` (ENGINE-SPEC §7).

`propose --from-telemetry` makes the telemetry proposals (facts down-voted --min-downvotes times,
and a maintenance threshold when people restored what decay or the dream took); `--from-misses`
searches recall settings for fewer gold misses (cross-validated inside the gold sets; "nothing to
propose" says why); `--set NAME=VALUE … --rationale TEXT --as USER` and
`--retract ID … --rationale TEXT --as USER` are an owner's or admin's own proposals. `evaluate ID`
queues it for the worker (`--inline` scores it here with a progress bar). `approve` and
`reject` need `--as USER` (an approver or admin who is not the author) and `--reason`. `bar` shows
what recall-settings proposals must show; `bar --noise-weight X [--hit-allowance Y] --as ADMIN` sets
it. The work is `governance.services.proposals`'.
"""

from __future__ import annotations

import argparse

from django.contrib.auth import get_user_model

from governance.models import Proposal
from governance.services import proposal_bar, proposals
from governance.services.acting import Actor, member_roles
from memory.cli.common import counting, emit, progress_bar
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = ("self-improvement proposals: list and show them, propose (from telemetry, recall misses, or by hand), "
        "evaluate on the approved gold sets, approve or reject (a second person), apply, revert")  # fmt: skip
ACTOR = Actor.cli("proposals")
ACTIONS = ("list", "show", "propose", "evaluate", "approve", "reject", "apply", "revert", "bar")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("proposal", nargs="?", metavar="ID", help="show/evaluate/approve/reject/apply/revert: the proposal")
    parser.add_argument("--id", dest="proposal_id", metavar="ID", help="the proposal (instead of the positional ID)")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--status", choices=[s.value for s in Proposal.Status], help="list: only these")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME",
                        help="act as this member (approve/reject and hand-made proposals need it)")  # fmt: skip
    parser.add_argument("--reason", default="", help="approve/reject (required), revert (optional)")
    source = parser.add_argument_group("propose")
    source.add_argument("--from-telemetry", action="store_true", help="retract facts down-voted often enough")
    source.add_argument("--min-downvotes", type=int, default=3, help="--from-telemetry: down-votes needed (default 3)")
    source.add_argument("--from-misses", action="store_true", help="search recall settings for fewer gold misses")
    source.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a setting to change (repeat)")
    source.add_argument("--retract", action="append", default=[], metavar="FACT_ID", help="a fact to retract (repeat)")
    source.add_argument("--rationale", default="", help="--set/--retract: why (the approver reads it)")
    bar = parser.add_argument_group("bar (what recall-settings proposals must show; an admin sets it)")
    bar.add_argument("--noise-weight", metavar="X",
                     help="what each returned fact that does not answer costs, against an answer found first (0: answers first)")
    bar.add_argument("--hit-allowance", metavar="X", help="how much hit@k, recall@k and nDCG@k may drop for less noise")
    parser.add_argument("--inline", action="store_true",
                        help="evaluate: run it in this process with a progress bar instead of queueing it for the worker")
    parser.add_argument("--queue", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    if action == "list":
        return _list(options, workspace)
    if action == "propose":
        return _propose(options, workspace)
    if action == "bar":
        return _bar(options, workspace)
    chosen = options.get("proposal") or options.get("proposal_id")
    if not chosen:
        raise RequestError(f"proposals {action} needs the proposal's ID", kind="usage")
    proposal = proposals.get(workspace, chosen)
    user, actor = member_user(workspace, options.get("as_user"))
    if action == "show":
        traffic = proposals.traffic_since_applied(proposal)
        return emit(options, {**proposals.to_dict(proposal, with_report=True), "traffic": traffic},
                    _show(proposal, traffic))  # fmt: skip
    if action == "evaluate":
        return _evaluate(options, proposal, user, actor)
    if action in ("approve", "reject"):
        if user is None:
            raise RequestError(f"proposals {action} needs --as USERNAME: a named approver or admin decides",
                               kind="usage")  # fmt: skip
        if not options.get("reason", "").strip():
            raise RequestError(f"proposals {action} needs --reason TEXT", kind="usage")
        verb = proposals.approve if action == "approve" else proposals.reject
        done = verb(proposal, user=user, actor=actor, reason=options["reason"])
        return emit(options, proposals.to_dict(done), f"proposal #{done.pk} {done.status} by {done.decided_by_name}")
    if action == "apply":
        done = proposals.apply(proposal, user=user, actor=actor)
        what = done.applied or {}
        text = (f"applied #{done.pk}: recall settings version {what['from_version']} → {what['to_version']}"
                if "to_version" in what else f"applied #{done.pk}: retracted {', '.join(what.get('retracted', []))}")  # fmt: skip
        return emit(options, proposals.to_dict(done), text)
    done = proposals.revert(proposal, user=user, actor=actor, reason=options.get("reason") or "")
    version, _ = tuning_service.current(workspace)
    emit(options, proposals.to_dict(done), f"reverted #{done.pk}; recall settings version is now {version}")


def _bar(options: dict, workspace) -> None:
    """Show the bar, or set it (`--noise-weight`, `--hit-allowance`; the other keeps its value)."""
    asks = proposal_bar.asks(workspace)
    if options.get("noise_weight") is not None or options.get("hit_allowance") is not None:
        user, actor = member_user(workspace, options.get("as_user"))
        asks = proposal_bar.set_bar(workspace, user=user, actor=actor,
                                    noise_weight=_given(options, "noise_weight", asks.noise_weight),
                                    hit_allowance=_given(options, "hit_allowance", asks.hit_allowance))  # fmt: skip
    emit(options, {"workspace": workspace.name, **asks.as_dict(), "words": asks.words()},
         f"the bar of {workspace.name}: {asks.words()}")


def _given(options: dict, name: str, default):
    value = options.get(name)
    return default if value is None else value


def member_user(workspace, username: str | None):
    if not username:
        return None, ACTOR
    found = get_user_model().objects.filter(username=username).first()
    if found is None or not member_roles(workspace, username):
        raise RequestError(f"{username!r} is not a member of workspace {workspace.name!r}", kind="forbidden")
    return found, Actor("user", username)


def _list(options: dict, workspace) -> None:
    found = Proposal.objects.filter(workspace=workspace).order_by("-created_at", "-pk").select_related("workspace")
    if options.get("status"):
        found = found.filter(status=options["status"])
    rows = list(found[:500])
    version, _ = tuning_service.current(workspace)
    lines = [f"proposals of {workspace.name} (recall settings version {version}): {len(rows)}"]
    for p in rows:
        bar = {True: "clears the bar", False: "misses the bar"}.get(p.clears_bar, p.evaluation)
        if p.clears_bar is not None and p.status in (Proposal.Status.PENDING, Proposal.Status.APPROVED) \
                and proposals.stale_reason(p):  # fmt: skip
            bar = "out of date"  # the settings, the gold sets or the bar moved since: evaluate it again
        lines.append(f"  #{p.pk:<5} {p.status:<9} {bar:<15} {p.title}  (by {p.author_name})")
    emit(options, {"workspace": workspace.name, "settings_version": version,
                   "proposals": [proposals.to_dict(p) for p in rows]}, "\n".join(lines))  # fmt: skip


def _show(p: Proposal, traffic: dict | None = None) -> str:
    """The proposal in lines; `traffic` is what `traffic_since_applied` gave (None: nothing since)."""
    lines = [f"#{p.pk} {p.title}", f"  status {p.status}; {p.get_change_display()}; from {p.get_source_display()}; "
             f"by {p.author_name}", f"  why: {p.rationale}"]  # fmt: skip
    for change in proposals.describe_change(p):
        if "fact" in change:
            lines.append(f"  {change['fact']}: {change['before']} → {change['after']}")
        else:
            lines.append(f"  {change['name']}: {change['before']} → {change['after']}")
    if p.evaluation == "done":
        lines.append(f"  evaluation: {'clears' if p.clears_bar else 'misses'} the bar — {p.bar_reason}")
        default = (p.report or {}).get("capabilities", {}).get("default", {})
        for name, d in (default.get("deltas") or {}).items():
            lines.append(f"    {name:<12} {d['baseline']:.3f} → {d['candidate']:.3f}  Δ {d['mean']:+.3f} "
                         f"[{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}]")  # fmt: skip
        base, cand = default.get("baseline") or {}, default.get("candidate") or {}
        for name, label, places in (("precision", "precision", 3), ("hits_per_question", "hits/q", 2)):
            if name in base and name in cand:  # pooled over the cases: a change, no per-case interval
                lines.append(f"    {label:<12} {base[name]:.{places}f} → {cand[name]:.{places}f}  "
                             f"Δ {cand[name] - base[name]:+.{places}f}")  # fmt: skip
        changed = (p.report or {}).get("changed_cases") or []
        if changed:
            lines.append(f"  {(p.report or {}).get('changed_count', len(changed))} case(s) ranked differently "
                         "(reciprocal rank before → after):")  # fmt: skip
            lines += [f"    {c['case']:<10} {c['baseline_rr']:.3f} → {c['candidate_rr']:.3f}  {c['query']}" for c in changed]
    else:
        lines.append(f"  evaluation: {p.evaluation}{' — ' + p.eval_error if p.eval_error else ''}")
        waiting = proposals.waiting_for_worker(p)
        if waiting:
            lines.append(f"  {waiting}, or evaluate it here: proposals evaluate {p.pk} --inline")
    if p.decided_by_name:
        lines.append(f"  {p.status if p.status != 'applied' else 'approved'} by {p.decided_by_name}: {p.decision_reason}")
    if traffic:
        lines.append(f"  since it was applied ({traffic['span']}): up-votes {traffic['before']['up']} → "
                     f"{traffic['after']['up']}, down-votes {traffic['before']['down']} → {traffic['after']['down']} "
                     f"(the same length of time before it); of {traffic['asked_both']} question(s) agents asked both "
                     f"before and after, {len(traffic['moved'])} got a different first hit (not only because of it: "
                     "facts written, used or decaying meanwhile move first hits too)")  # fmt: skip
    return "\n".join(lines)


def _propose(options: dict, workspace) -> None:
    user, actor = member_user(workspace, options.get("as_user"))
    chosen = [bool(options.get("from_telemetry")), bool(options.get("from_misses")), bool(options.get("set")),
              bool(options.get("retract"))]  # fmt: skip
    if sum(chosen) != 1:
        raise RequestError("proposals propose takes one of --from-telemetry, --from-misses, --set NAME=VALUE, "
                           "--retract FACT_ID", kind="usage")  # fmt: skip
    if options.get("from_telemetry"):
        made = proposals.propose_from_telemetry(workspace, min_downvotes=options["min_downvotes"])
        made += [p for p in (proposals.propose_thresholds(workspace),) if p is not None]
    elif options.get("from_misses"):
        bar = progress_bar(None, "searching recall settings", "ranking")
        try:
            proposal, why = proposals.propose_from_recall_misses(workspace, user=user, progress=counting(bar))
        finally:
            bar.close()
        made = [proposal] if proposal is not None else []
        lines = [f"proposed #{p.pk}: {p.title} (by {p.author_name}); {why}" for p in made] or [f"nothing to propose: {why}"]
        return emit(options, {"workspace": workspace.name, "proposed": [proposals.to_dict(p) for p in made],
                              "search": why}, "\n".join(lines))  # fmt: skip
    else:
        if user is None:
            raise RequestError("a hand-made proposal needs --as USERNAME (an owner or admin): it is theirs",
                               kind="usage")  # fmt: skip
        if options.get("set"):
            typed = {}
            for pair in options["set"]:
                name, sep, value = pair.partition("=")
                if not sep:
                    raise RequestError(f"--set takes NAME=VALUE, not {pair!r}", kind="usage")
                typed[name.strip()] = value
            changes = tuning_service.changes_from_text(workspace, typed)
            made = [proposals.propose_tuning(workspace, changes, rationale=options["rationale"], user=user, actor=actor)]
        else:
            made = [proposals.propose_retraction(workspace, options["retract"], rationale=options["rationale"],
                                                 user=user, actor=actor)]  # fmt: skip
    lines = [f"proposed #{p.pk}: {p.title} (by {p.author_name})" for p in made] or ["nothing to propose"]
    emit(options, {"workspace": workspace.name, "proposed": [proposals.to_dict(p) for p in made]}, "\n".join(lines))


def _evaluate(options: dict, proposal: Proposal, user, actor: Actor) -> None:
    if not options.get("inline"):
        done = proposals.request_evaluation(proposal, user=user, actor=actor)
        if done.evaluation == Proposal.Evaluation.DONE:  # tasks run synchronously here (TIDELINE_Q_SYNC)
            return emit(options, proposals.to_dict(done, with_report=True), _show(done))
        return emit(options, proposals.to_dict(done), f"evaluation of #{done.pk} queued for the worker: follow it with "
                    f"`tideline proposals show {done.pk} --workspace {done.workspace.name}` (or evaluate it here "
                    "with --inline)")  # fmt: skip
    bar = progress_bar(None, f"evaluating #{proposal.pk}", "ranking")
    try:
        proposals.request_evaluation(proposal, user=user, actor=actor, inline=True, progress=counting(bar))
    finally:
        bar.close()
    proposal.refresh_from_db()
    if proposal.evaluation == Proposal.Evaluation.FAILED:
        raise RequestError(f"the evaluation of #{proposal.pk} failed: {proposal.eval_error}", kind="evaluation_failed")
    emit(options, proposals.to_dict(proposal, with_report=True), _show(proposal))
