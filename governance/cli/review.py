"""`tideline review list|show|decide|undo|settings|admitted` — the review queue from the command line (docs/ARCHITECTURE.md §9).

One positional action (not nested subparsers, which would lose the shared --json flag). The
verdicts themselves are `governance.services.verdicts`; this module only parses and prints.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.contrib.auth import get_user_model

from governance.engine import permissions
from governance.engine.verdicts import VERDICTS
from governance.models import ReviewItem
from governance.services import admitted
from governance.services.acting import Actor, member_roles
from governance.services.verdicts import decide, undo
from memory.cli.common import emit
from memory.engine.facts.fields import fields_for
from memory.models import Fact
from memory.services.errors import NotFoundError, RequestError
from memory.services.workspaces import REVIEW_SETTINGS, get_workspace, set_review_settings

HELP = ("list review items, show one, or decide one (supersede, coexist, block, dismiss; approve or block a "
        "durable promotion) or undo its verdict; list the held writes reviewers admitted or blocked")
ACTOR = Actor.cli("review")
LIST_LIMIT = 200


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("list", "show", "decide", "undo", "settings", "admitted"))
    parser.add_argument("item", nargs="?", help="show/decide/undo: the review item's id")
    parser.add_argument("verdict", nargs="?", help=f"decide: one of {', '.join(VERDICTS)}")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--kind", choices=[k for k, _ in ReviewItem.Kind.choices], help="list: only this kind")
    parser.add_argument("--status", choices=[s for s, _ in ReviewItem.Status.choices], help="list: only this status")
    parser.add_argument("--reason", default="", help="decide: why (kept with the verdict and its event)")
    parser.add_argument("--hold-promotions", choices=("on", "off"),
                        help="settings: hold a peer's permanent, PII or correcting write for an approver (default on)")
    parser.add_argument("--hold-confined", choices=("on", "off"),
                        help="settings: hold every untrusted write the gate confined (default off)")
    parser.add_argument("--daily-cap", type=int, metavar="N",
                        help="settings: open at most N contradiction items a day (default 50)")
    parser.add_argument("--jsonl", action="store_true",
                        help="admitted: one JSON object per line, labelled for the injection detector's training")
    parser.add_argument("--since", metavar="DATE", help="admitted: only verdicts from this date (YYYY-MM-DD, UTC) or time on")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME",
                        help="decide/undo as this member (checked against their roles); a durable promotion "
                             "needs an approver or admin who is not its author")  # fmt: skip


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    if action == "list":
        _list(options, workspace)
        return
    if action == "settings":
        _settings(options, workspace)
        return
    if action == "admitted":
        _admitted(options, workspace)
        return
    if not options.get("item"):
        raise RequestError(f"review {action} needs the item's id", kind="usage")
    if action == "show":
        item = _item(workspace, options["item"])
        emit(options, item_dict(item, with_facts=True), _describe(item, with_facts=True))
    elif action == "decide":
        if not options.get("verdict"):
            raise RequestError(f"review decide needs a verdict: one of {', '.join(VERDICTS)}", kind="usage")
        actor, user = _decider(workspace, _item(workspace, options["item"]), options.get("as_user"))
        item = decide(workspace, options["item"], options["verdict"], actor=actor, user=user, reason=options["reason"])
        emit(options, item_dict(item), f"review #{item.pk}: {options['verdict']} -> {item.status}")
    else:
        actor, _ = _decider(workspace, _item(workspace, options["item"]), options.get("as_user"))
        item = undo(workspace, options["item"], actor=actor)
        emit(options, item_dict(item), f"review #{item.pk}: verdict undone, open again")


def _settings(options: dict, workspace) -> None:
    flags = {"hold_durable_promotions": options.get("hold_promotions"), "hold_confined_writes": options.get("hold_confined")}
    wanted: dict = {name: value == "on" for name, value in flags.items() if value is not None}
    if options.get("daily_cap") is not None:
        wanted["review_daily_cap"] = options["daily_cap"]
    changed = set_review_settings(workspace, actor=str(ACTOR), **wanted) if wanted else {}
    current = {name: getattr(workspace, name) for name in REVIEW_SETTINGS}
    lines = [f"review settings of {workspace.name}" + (f" ({len(changed)} changed)" if wanted else "")]
    lines += [f"  {_shown(current[name])}  {name}: {words}" for name, words in REVIEW_SETTINGS.items()]
    emit(options, {"workspace": workspace.name, "settings": current, "changed": sorted(changed)}, "\n".join(lines))


def _admitted(options: dict, workspace) -> None:
    """Held untrusted writes a reviewer admitted (benign) or blocked (an attack), for the injection
    detector's next training run: `--jsonl` writes one labelled text per line."""
    decided = list(admitted.decided_held_writes(workspace, admitted.parse_since(options.get("since"))))
    if options.get("jsonl"):
        for one in decided:
            sys.stdout.write(json.dumps(one.training_line(workspace), ensure_ascii=False) + "\n")
        return
    lines = [f"held writes reviewers decided on {workspace.name}"]
    for kind in ("admitted", "blocked"):
        rows = [one for one in decided if one.kind == kind]
        lines += ["", f"{kind} ({len(rows)})"]
        if rows:
            lines.append(f"  {'id':>6}  {'decided':<16}  {'verdict':<9}  {'score':>5}  text")
        for one in rows:
            when = f"{one.item.resolved_at:%Y-%m-%d %H:%M}" if one.item.resolved_at else "—"
            score = "—" if one.detector_score is None else f"{one.detector_score:.2f}"
            lines.append(f"  {one.item.pk:>6}  {when:<16}  {one.item.details.get('verdict', ''):<9}  {score:>5}  "
                         f"{_line(one.text)}")  # fmt: skip
    emit(options, {"workspace": workspace.name, "items": [one.training_line(workspace) for one in decided]},
         "\n".join(lines))  # fmt: skip


def _line(text: str, width: int = 80) -> str:
    """The text on one line, cut to `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _shown(value) -> str:
    return ("on " if value else "off") if isinstance(value, bool) else f"{value:<3}"


def _decider(workspace, item: ReviewItem, username: str | None):
    """Who decides: a named member with a role that decides this kind (`--as`), or the operator for
    contradictions and held writes. A durable promotion always needs a named approver."""
    if not username:
        if item.kind == "promotion":
            raise RequestError("a durable promotion is decided by a named approver: add --as USERNAME", kind="usage")
        return ACTOR, None
    roles = member_roles(workspace, username)
    if not roles:
        raise RequestError(f"{username!r} is not a member of workspace {workspace.name!r}", kind="forbidden")
    if not permissions.allows(roles, f"decide_{item.kind}"):
        raise RequestError(f"{username!r} ({', '.join(sorted(roles))}) may not decide a {item.kind} item",
                           kind="forbidden")  # fmt: skip
    return Actor("user", username), get_user_model().objects.get(username=username)


def _list(options: dict, workspace) -> None:
    items = ReviewItem.objects.filter(workspace=workspace).select_related("fact", "other_fact")
    if options.get("kind"):
        items = items.filter(kind=options["kind"])
    if options.get("status"):
        items = items.filter(status=options["status"])
    total = items.count()
    shown = list(items[:LIST_LIMIT])
    lines = [f"{total} review item(s) on {workspace.name}" + (f", newest {LIST_LIMIT} shown" if total > LIST_LIMIT else "")]
    lines += [_describe(item) for item in shown]
    emit(options, {"workspace": workspace.name, "total": total, "items": [item_dict(i) for i in shown]}, "\n".join(lines))


def _item(workspace, item_id: Any) -> ReviewItem:
    item = None
    if str(item_id).isdigit():
        item = ReviewItem.objects.select_related("fact", "other_fact").filter(workspace=workspace, pk=int(item_id)).first()
    if item is None:
        raise NotFoundError(f"no review item {item_id!r} in workspace {workspace.name!r}")
    return item


def _fact_dict(fact: Fact | None) -> dict[str, Any] | None:
    """A fact as `review show --json` writes it: the fact vocabulary's "review" fields."""
    if fact is None:
        return None
    return {spec.attr("review"): spec.as_json(getattr(fact, spec.name)) for spec in _REVIEW_FIELDS}


_REVIEW_FIELDS = fields_for("review")


def item_dict(item: ReviewItem, *, with_facts: bool = False) -> dict[str, Any]:
    """An item as JSON; `with_facts` adds both facts' content (show), the list names them by id."""
    out: dict[str, Any] = {
        "id": item.pk, "kind": item.kind, "status": item.status, "reason": item.reason,
        "created_at": item.created_at.isoformat(), "resolved_at": item.resolved_at.isoformat() if item.resolved_at else None,
        "verdict": item.details.get("verdict"), "fact_id": item.fact_memory_id or None,
        "other_fact_id": item.other_memory_id or None,
    }  # fmt: skip
    if with_facts:
        out["details"] = item.details
        out["fact"], out["other_fact"] = _fact_dict(item.fact), _fact_dict(item.other_fact)
    return out


def _describe(item: ReviewItem, *, with_facts: bool = False) -> str:
    verdict = f" ({item.details['verdict']})" if item.details.get("verdict") else ""
    head = f"#{item.pk} {item.kind} {item.status}{verdict}: {item.reason}"
    if not with_facts:
        return head
    lines = [head]
    other_label = "would replace" if item.kind == "promotion" else "conflicts with"
    for label, fact in (("under review", item.fact), (other_label, item.other_fact)):
        if fact is not None:
            lines.append(f"  {label}: {fact.memory_id} [{fact.segment}, {fact.source_type or 'owner'}, "
                         f"{fact.lifecycle}] {fact.content}")  # fmt: skip
    return "\n".join(lines)
