"""`tideline shred --workspace W --origin O [--dry-run] [--yes]` — crypto-shred one origin (docs/ARCHITECTURE.md §8).

Without `--origin` it lists the workspace's unfinished shreds (changing nothing).

Irreversible, so: without --yes it shows what becomes unreadable and asks the operator to type the
origin (or its fact count); with no terminal to ask on, it refuses (exit 2) rather than guess.
`--as USERNAME` names the admin on whose behalf it runs (checked, and recorded as the event's actor);
without it the operator, who holds the key store, acts as `cli:shred`. A shred that was begun and
stopped (the process killed between the decision and the receipt) is said to be unfinished, and
running the command again for that origin finishes it without asking again.
"""

from __future__ import annotations

import sys

from governance.engine import permissions
from governance.services import shred
from governance.services.acting import Actor, member_roles
from memory.cli.common import emit
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = "crypto-shred one origin: destroy its data key so its facts become unreadable tombstones (irreversible)"
ACTOR = Actor.cli("shred")


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--origin", help="the origin: owner, a label such as channel:slack/C1/t1 (as the console shows "
                        "it) or its key; without it, the workspace's unfinished shreds are listed")
    parser.add_argument("--reason", default="", help="why (kept with the shredded event)")
    parser.add_argument("--dry-run", action="store_true", help="show what would become unreadable; change nothing")
    parser.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME", help="shred as this member (must be an admin)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    actor = _actor(workspace, options.get("as_user"))
    if not options.get("origin"):
        _list_unfinished(options, workspace)
        return
    preview = shred.preview(workspace, options["origin"])
    if options.get("dry_run"):
        emit(options, {"dry_run": True, **preview.to_dict()}, _describe(preview) + "\n(dry run: nothing was changed)")
        return
    if preview.unfinished_since:  # confirmed when it was begun: finish it
        report = shred.finish(workspace, preview.origin_key, actor=actor)
    else:
        typed = preview.origin_key if options.get("yes") else _ask(options, preview)
        report = shred.apply(workspace, preview.origin_key, typed=typed, actor=actor, reason=options.get("reason", ""))
    finished = (f"finished the unfinished shred begun by {report.begun_by or 'unknown'}: " if report.finished_unfinished
                else "")  # fmt: skip
    emit(options, {"dry_run": False, **report.to_dict()},
         f"{finished}shredded origin {report.origin_key} of {report.workspace}: {report.facts} fact(s) are now unreadable "
         f"tombstones, {report.vectors} vector(s) dropped, {report.review_items_closed} review item(s) closed "
         f"(event revision {report.revision})")  # fmt: skip


def _list_unfinished(options: dict, workspace) -> None:
    rows = [{"origin_key": i.origin_key, "label": i.origin_label, "begun_at": i.begun_at.isoformat(), "begun_by": i.actor,
             "reason": i.reason} for i in shred.unfinished(workspace)]  # fmt: skip
    lines = [f"{len(rows)} unfinished shred(s) in {workspace.name}" + (":" if rows else " (name an origin with --origin)")]
    lines += [f"  {r['label'] or r['origin_key']}: begun {r['begun_at']} by {r['begun_by'] or 'unknown'}; finish it with "
              f"tideline shred --workspace {workspace.name} --origin '{r['origin_key']}'" for r in rows]  # fmt: skip
    emit(options, {"workspace": workspace.name, "unfinished": rows}, "\n".join(lines))


def _describe(preview: shred.Preview) -> str:
    unfinished = (f"an unfinished shred of this origin was begun at {preview.unfinished_since} by "
                  f"{preview.begun_by or 'unknown'}: running it again finishes it\n" if preview.unfinished_since else "")
    return unfinished + (f"shred origin {preview.label} of {preview.workspace} (key {preview.origin_key}):\n"
            f"  {preview.facts} fact(s) become unreadable tombstones (content, metadata, link reasons)\n"
            f"  {preview.links} link(s) touch them; {preview.vectors} stored vector(s) are dropped\n"
            f"  {preview.open_review_items} open review item(s) will be closed")  # fmt: skip


def _ask(options: dict, preview: shred.Preview) -> str:
    if options.get("json") or not sys.stdin.isatty():
        raise RequestError("a shred is irreversible and there is no terminal to confirm it on: run with --dry-run "
                           "to see what it takes, then with --yes; nothing was changed", kind="confirmation_required")  # fmt: skip
    sys.stdout.write(_describe(preview) + "\nThis cannot be undone, not even from a backup of the database.\n")
    answer = input(f"Type the origin ({preview.label}) or the fact count ({preview.facts}) to shred it: ")
    if not preview.accepts(answer):
        raise RequestError("the confirmation did not match; nothing was changed", kind="cancelled")
    return answer


def _actor(workspace, username: str | None) -> Actor:
    if not username:
        return ACTOR
    roles = member_roles(workspace, username)
    if not roles:
        raise RequestError(f"{username!r} is not a member of workspace {workspace.name!r}", kind="forbidden")
    if not permissions.allows(roles, "shred"):
        raise RequestError(f"{username!r} ({', '.join(sorted(roles))}) may not shred: admins only", kind="forbidden")
    return Actor("user", username)
