"""`tideline purge --workspace W (--fact ID… | --origin O | --query Q | --before DATE) …` (ENGINE-SPEC §6.1).

Retracts the chosen facts (archived with the reason; the console can restore them), or with
--hard deletes them and what derives only from them, with a content-free `purged` receipt. What is
given is ANDed (`--origin O --before 2026-01-01` = that origin's facts written before 2026).
Without --yes it previews and asks the operator to type the number of facts (or the workspace's
name); with no terminal to ask on it refuses (exit 2). `--as USERNAME` names the admin on whose
behalf it runs (checked, and recorded as the actor); without it the operator acts as `cli:purge`.
"""

from __future__ import annotations

import sys

from governance.engine import permissions
from governance.services import purge
from governance.services.acting import Actor, member_roles
from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError
from memory.services.workspaces import get_workspace

HELP = "retract facts, or with --hard delete them and what derives only from them, leaving a receipt"
ACTOR = Actor.cli("purge")
LISTED = 20  # facts shown in the human preview (--json lists a page of 50, --dry-run --json too)


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--fact", nargs="+", default=[], metavar="ID", help="fact ids (several, or comma-separated)")
    parser.add_argument("--origin", default="", help="an origin: owner, or a label such as channel:slack/C1/t1")
    parser.add_argument("--query", default="", help="the best recall hits for this text (see --max)")
    parser.add_argument("--max", dest="limit", default=None, help=f"how many hits --query selects (default {purge.QUERY_MAX})")
    parser.add_argument("--before", default="", help="created before this date (YYYY-MM-DD, UTC) or time")
    parser.add_argument("--after", default="", help="created on or after this date (YYYY-MM-DD, UTC) or time")
    parser.add_argument("--segment", default="", help="only facts of this segment")
    parser.add_argument("--hard", action="store_true", help="delete the rows (irreversible), cascading along provenance")
    parser.add_argument("--reason", default="", help="why (kept with the receipt)")
    parser.add_argument("--dry-run", action="store_true", help="show what would go; change nothing")
    parser.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    parser.add_argument("--as", dest="as_user", metavar="USERNAME", help="purge as this member (must be an admin)")


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    actor = _actor(workspace, options.get("as_user"))
    selection = purge.Selection.parse(facts=options.get("fact") or (), origin=options.get("origin", ""),
                                      query=options.get("query", ""), limit=options.get("limit"),
                                      after=options.get("after"), before=options.get("before"),
                                      segment=options.get("segment", ""))  # fmt: skip
    hard = bool(options.get("hard"))
    current = purge.preview(workspace, selection, hard=hard)
    if options.get("dry_run"):
        emit(options, {"dry_run": True, **_public(current)}, _describe(current) + "\n(dry run: nothing was changed)")
        return
    typed = str(current.facts) if options.get("yes") else _ask(options, current)
    with progress_bar(current.facts, "purging" if hard else "retracting") as bar:
        report = purge.apply(workspace, selection, hard=hard, typed=typed, actor=actor,
                             reason=options.get("reason", ""), progress=bar.update)  # fmt: skip
    if report.hard:
        human = (f"purged {report.facts} fact(s) of {report.workspace} ({report.cascaded} by cascade), "
                 f"{report.links} link(s) removed, {report.review_items_closed} review item(s) closed "
                 f"(receipt: the purged event at revision {report.revision})")  # fmt: skip
    else:
        human = (f"retracted {report.facts} fact(s) of {report.workspace} (revision {report.revision}); "
                 "restore them from the console's fact page if this was a mistake")  # fmt: skip
    emit(options, {"dry_run": False, **report.to_dict()}, human)


def _public(current: purge.Preview) -> dict:
    """The preview as --json prints it: counts, the first page of each list, never the content."""
    d = current.to_dict()
    d.pop("seed_ids")
    for row in d["fact_rows"]:
        row.pop("content", None)
    return d


def _describe(current: purge.Preview) -> str:
    verb = "purge (delete for good)" if current.hard else "retract (archive, restorable)"
    lines = [f"{verb} in {current.workspace}: {current.facts} fact(s)"
             + (f", {current.cascaded} of them derived only from the others" if current.cascaded else "")]  # fmt: skip
    if current.hard:
        lines.append(f"  {current.links} link(s) from or to them are removed")
        lines.append(f"  {current.open_review_items} open review item(s) will be closed")
    for row in current.fact_rows[:LISTED]:
        mark = " (cascade)" if row["cascade"] else ""
        lines.append(f"  {row['memory_id']}  {row['segment']:<10} {row['origin']:<24} {row['created_at'][:10]}  "
                     f"{row['lifecycle']}{mark}")  # fmt: skip
    if current.facts > LISTED:
        lines.append(f"  … and {current.facts - LISTED} more (the console lists them all)")
    return "\n".join(lines)


def _ask(options: dict, current: purge.Preview) -> str:
    if options.get("json") or not sys.stdin.isatty():
        raise RequestError("there is no terminal to confirm the purge on: run with --dry-run to see what it takes, "
                           "then with --yes; nothing was changed", kind="confirmation_required")  # fmt: skip
    sys.stdout.write(_describe(current) + "\n")
    if current.hard:
        sys.stdout.write("This cannot be undone: the rows are deleted; only a content-free receipt stays.\n")
    answer = input(f"Type the number of facts ({current.facts}) or the workspace's name to go ahead: ")
    if not current.accepts(answer):
        raise RequestError("the confirmation did not match; nothing was changed", kind="cancelled")
    return answer


def _actor(workspace, username: str | None) -> Actor:
    if not username:
        return ACTOR
    roles = member_roles(workspace, username)
    if not roles:
        raise RequestError(f"{username!r} is not a member of workspace {workspace.name!r}", kind="forbidden")
    if not permissions.allows(roles, "purge"):
        raise RequestError(f"{username!r} ({', '.join(sorted(roles))}) may not purge: admins only", kind="forbidden")
    return Actor("user", username)
