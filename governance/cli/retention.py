"""`tideline retention list|preview|apply|add|edit|enable|disable|remove --workspace W` (ENGINE-SPEC §6.2).

One positional action, like `tideline review`. `apply` without --yes shows what each policy would
take and asks for the count (or the policy's name) to be typed; with no terminal it refuses (exit 2)
rather than guess. Changes and runs are made as `cli:retention`, or as the admin named by `--as`
(checked, and recorded as the events' actor). The work is `governance.services.retention`'s.
"""

from __future__ import annotations

import argparse
import sys

from governance.engine import permissions
from governance.engine import retention as engine
from governance.services import retention
from governance.services.acting import Actor, member_roles
from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = ("retention policies: list them, preview what they take now, apply them (archive or purge), or add, edit, "
        "enable, disable and remove them (each change versioned in the event log)")  # fmt: skip
ACTOR = Actor.cli("retention")
ACTIONS = ("list", "preview", "apply", "add", "edit", "enable", "disable", "remove")
CHANGES = ("add", "edit", "enable", "disable", "remove", "apply")
BAR_FROM = 5000  # facts: below this a run takes a moment and a bar would only flicker


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--policy", metavar="NAME", help="the policy (name or id); preview/apply: default every enabled one")
    parser.add_argument("--yes", action="store_true", help="apply: do not ask for the typed confirmation")
    parser.add_argument("--page", type=int, default=1, help="preview: which page of facts (50 a page)")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME", help="act as this member (changes need an admin)")
    scope = parser.add_argument_group("add/edit: scope (empty means any; at least one, or --every-fact)")
    scope.add_argument("--name", help="add: the new policy's name; edit: rename")
    scope.add_argument("--origin-kind", choices=("owner", "channel", "any"))
    scope.add_argument("--origin", help="one origin: owner or a label such as channel:slack/C1/t1 ('' for any)")
    scope.add_argument("--segments", help="comma-separated, e.g. context,project ('' for any)")
    scope.add_argument("--classifications", help="comma-separated: PUBLIC, INTERNAL, PII ('' for any)")
    scope.add_argument("--tiers", help="comma-separated: short, long, permanent ('' for any)")
    scope.add_argument("--trust", choices=("trusted", "untrusted", "any"))
    scope.add_argument("--every-fact", action="store_true", help="mean it: a policy with no scope covers every fact")
    rule = parser.add_argument_group("add/edit: rule and action")
    rule.add_argument("--older-than", metavar="AGE", help="e.g. 30d, 12h, 1y")
    rule.add_argument("--since", choices=("created", "last_used"), help="count the age from writing or last use")
    rule.add_argument("--keep-confirmed", action=argparse.BooleanOptionalAction, default=None)
    rule.add_argument("--keep-permanent", action=argparse.BooleanOptionalAction, default=None)
    rule.add_argument("--action-taken", dest="taken", choices=("archive", "purge"), help="archive (default) or purge")
    rule.add_argument("--disabled", action="store_true", help="add: create it disabled")
    ladder = parser.add_argument_group("add --preset ladder: the TTL ladder (1 hour, 30 days, 1 year, never)")
    ladder.add_argument("--preset", choices=("ladder",))
    ladder.add_argument("--by", choices=engine.LADDER_BY, default="tiers")
    ladder.add_argument("--ladder", metavar="MAP",
                        help="value=rung pairs, e.g. 'short=30 days,long=1 year,permanent=never' (tiers default to that)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    action = options["action"]
    actor = _actor(workspace, options.get("as_user"), change=action in CHANGES)
    if action == "list":
        found = [retention.describe(p) for p in retention.policies(workspace)]
        lines = [f"retention policies of {workspace.name}: {len(found)}"]
        for p in found:
            lines.append(f"  #{p['id']} {p['name']} (v{p['version']}, {'enabled' if p['enabled'] else 'disabled'})\n"
                         f"      {p['scope']} — {p['rule']}")  # fmt: skip
        emit(options, {"workspace": workspace.name, "policies": found}, "\n".join(lines))
    elif action == "preview":
        previews = retention.preview(workspace, options.get("policy"), page=options.get("page") or 1)
        emit(options, {"workspace": workspace.name, "previews": [p.to_dict() for p in previews]},
             _describe(workspace, previews, facts=True))  # fmt: skip
    elif action == "apply":
        _apply(options, workspace, actor)
    elif action == "add":
        _add(options, workspace, actor)
    elif action == "remove":
        gone = retention.delete(workspace, _named(options), actor=actor)
        emit(options, gone, f"removed retention policy {gone['name']!r} (event revision {gone['revision']})")
    else:
        changes = {"enabled": action == "enable"} if action in ("enable", "disable") else _fields(options)
        if not changes:
            raise RequestError("retention edit needs something to change (see --help)", kind="usage")
        policy = retention.edit(workspace, _named(options), changes, actor=actor,
                                every_fact=True if options.get("every_fact") else None)  # fmt: skip
        shown = retention.describe(policy)
        emit(options, shown, f"retention policy {policy.name!r} is now v{policy.version} "
                             f"({'enabled' if policy.enabled else 'disabled'}): {shown['scope']} — {shown['rule']}")  # fmt: skip


def _named(options: dict) -> str:
    if not options.get("policy"):
        raise RequestError(f"retention {options['action']} needs --policy NAME", kind="usage")
    return options["policy"]


def _fields(options: dict) -> dict:
    """The policy fields the flags set (only those given, so an edit keeps the rest)."""
    out: dict = {}
    if options.get("name") is not None and options["action"] == "edit":
        out["name"] = options["name"]
    if options.get("origin_kind") is not None:
        out["origin_kind"] = "" if options["origin_kind"] == "any" else options["origin_kind"]
    if options.get("origin") is not None:
        out["origin_key"] = options["origin"]
    for name in ("segments", "classifications", "tiers"):
        if options.get(name) is not None:
            out[name] = options[name]
    if options.get("trust") is not None:
        out["trust"] = "" if options["trust"] == "any" else options["trust"]
    if options.get("older_than") is not None:
        out["max_age_seconds"] = options["older_than"]
    if options.get("since") is not None:
        out["basis"] = options["since"]
    for name in ("keep_confirmed", "keep_permanent"):
        if options.get(name) is not None:
            out[name] = options[name]
    if options.get("taken") is not None:
        out["action"] = options["taken"]
    return out


def _add(options: dict, workspace, actor: Actor) -> None:
    fields = _fields(options)
    fields["enabled"] = not options.get("disabled")
    if options.get("preset") == "ladder":
        mapping = _ladder_map(options.get("ladder"), options["by"])
        made = retention.create_ladder(workspace, mapping, by=options["by"], actor=actor,
                                       prefix=options.get("name") or "ladder", **fields)  # fmt: skip
    else:
        fields["name"] = options.get("name") or ""
        made = [retention.create(workspace, fields, actor=actor, every_fact=bool(options.get("every_fact")))]
    shown = [retention.describe(p) for p in made]
    emit(options, {"workspace": workspace.name, "created": shown},
         "\n".join(f"added retention policy {p['name']!r} (v1): {p['scope']} — {p['rule']}" for p in shown))  # fmt: skip


def _ladder_map(text: str | None, by: str) -> dict[str, str]:
    if not text:
        if by != "tiers":
            raise RequestError("--preset ladder --by classifications needs --ladder, e.g. 'PII=30 days,INTERNAL=1 year'",
                               kind="usage")  # fmt: skip
        return dict(engine.LADDER_TIERS)
    out = {}
    for pair in text.split(","):
        value, sep, rung = pair.partition("=")
        if not sep:
            raise RequestError(f"--ladder takes value=rung pairs, not {pair.strip()!r}", kind="usage")
        out[value.strip()] = rung.strip()
    return out


def _describe(workspace, previews, *, facts: bool = False) -> str:
    if not previews:
        return f"{workspace.name} has no enabled retention policy: nothing would be taken"
    lines = []
    for p in previews:
        verb = "archive" if p.action == "archive" else "purge"
        lines.append(f"policy {p.name!r} (v{p.version}{'' if p.enabled else ', disabled'}): {p.scope} — {p.rule}")
        extra = f"; {p.already_archived} archived already, {p.held} held for review" if p.action == "archive" else ""
        lines.append(f"  would {verb} {p.takes} fact(s) now{extra}")
        if facts:
            for f in p.facts:
                lines.append(f"    {f['memory_id']}  {f['segment']:<12} {f['tier']:<9} {f['origin']}  written {f['created_at'][:10]}")
            if p.pages > 1:
                lines.append(f"    (page {p.page} of {p.pages}; --page N for more)")
    return "\n".join(lines)


def _apply(options: dict, workspace, actor: Actor) -> None:
    previews = retention.preview(workspace, options.get("policy"), with_facts=False)
    typed = None
    if not options.get("yes"):
        typed = _ask(options, workspace, previews)
    total = sum(p.takes for p in previews)
    bar = progress_bar(total, "retention", "fact") if total >= BAR_FROM else None
    try:
        reports = retention.apply(workspace, options.get("policy"), actor=actor, typed=typed,
                                  progress=bar.update if bar is not None else None)  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    lines = [f"policy {r.name!r} (v{r.version}): {r.archived} archived, {r.purged} purged, {r.links_removed} link(s) "
             f"removed, {r.examined} examined (event revision {r.revision})" for r in reports]  # fmt: skip
    emit(options, {"workspace": workspace.name, "runs": [r.to_dict() for r in reports]},
         "\n".join(lines) or f"{workspace.name} has no enabled retention policy: nothing was taken")  # fmt: skip


def _ask(options: dict, workspace, previews) -> str:
    if options.get("json") or not sys.stdin.isatty():
        raise RequestError("there is no terminal to confirm the run on: run `tideline retention preview` to see what "
                           "it takes, then apply with --yes; nothing was changed", kind="confirmation_required")  # fmt: skip
    sys.stdout.write(_describe(workspace, previews) + "\n")
    total = sum(p.takes for p in previews)
    what = f"the policy's name ({previews[0].name})" if len(previews) == 1 else f"the workspace ({workspace.name})"
    answer = input(f"Type the number of facts ({total}) or {what} to apply: ")
    if not retention.accepts(previews, answer, workspace=workspace):
        raise RequestError("the confirmation did not match; nothing was changed", kind="cancelled")
    return answer


def _actor(workspace, username: str | None, *, change: bool) -> Actor:
    if not username:
        return ACTOR
    roles = member_roles(workspace, username)
    if not roles:
        raise RequestError(f"{username!r} is not a member of workspace {workspace.name!r}", kind="forbidden")
    if change and not permissions.allows(roles, "manage_retention"):
        raise RequestError(f"{username!r} ({', '.join(sorted(roles))}) may not change or apply retention policies: "
                           "admins only", kind="forbidden")  # fmt: skip
    return Actor("user", username)
