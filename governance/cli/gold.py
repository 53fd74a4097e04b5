"""`tideline gold list|show|upload|scaffold|approve --workspace W [--json]` (ENGINE-SPEC §8.1).

`upload FILE` stores a gold JSON (either format the harness reads; unknown keys refused) as an
unapproved set; `scaffold` makes a set from the workspace's most-used owner facts, each query the
placeholder to rewrite in the console; `approve --set NAME [--as USER]` is an approver's or admin's
act (checked with --as; without it the operator approves as cli:gold), never the set's maker's, and
only once no placeholder query is left. The work is `governance.services.gold`'s.
"""

from __future__ import annotations

from pathlib import Path

from governance.cli.proposals import member_user
from governance.services import gold
from governance.services.acting import Actor
from memory.cli.common import emit
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER
from memory.services.workspaces import get_workspace

HELP = "gold sets: list and show them, upload a gold JSON, make a scaffold from this workspace, approve one"
ACTOR = Actor.cli("gold")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("list", "show", "upload", "scaffold", "approve"))
    parser.add_argument("target", nargs="?", metavar="FILE|SET", help="upload: the gold JSON; show/approve: the set")
    parser.add_argument("--file", help="upload: the gold JSON (instead of the positional FILE)")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--set", dest="gold_set", metavar="NAME", help="show/approve: the set (name or id)")
    parser.add_argument("--name", default="", help="upload/scaffold: the new set's name")
    parser.add_argument("--size", type=int, default=gold.SCAFFOLD_DEFAULT, help="scaffold: how many cases")
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
