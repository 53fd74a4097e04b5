"""`tideline add CONTENT --workspace W --segment S [--origin O] …` — one write through the full gate."""

from __future__ import annotations

from memory.cli.common import emit, origin_option
from memory.engine.facts import records as R
from memory.engine.safety.sensitive import LABELS, SECRETS
from memory.services.workspaces import get_workspace
from memory.tideline import Tideline

HELP = "remember one fact (validated, gated, scanned and deduplicated)"


def add_arguments(parser) -> None:
    parser.add_argument("content", help="the fact, one clear sentence")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--create", action="store_true", help="create the workspace if it does not exist")
    parser.add_argument("--segment", required=True, help=", ".join(R.SEGMENTS))
    parser.add_argument("--origin", default="owner", help="owner or channel:CHANNEL/CONVERSATION/SESSION")
    parser.add_argument("--source-type", help=", ".join(R.SOURCE_TYPES))
    parser.add_argument("--subject-key", help="single-valued slot, e.g. home_city")
    parser.add_argument("--supersedes", nargs="*", default=[], metavar="ID", help="ids this fact replaces")
    parser.add_argument("--importance", type=float)
    parser.add_argument("--tier", help=", ".join(R.TIERS))
    parser.add_argument("--classification", help=", ".join(R.CLASSIFICATIONS))
    parser.add_argument("--intent-scope")
    parser.add_argument("--force", action="store_true", help="skip the worthiness gate (trusted writers only)")


def run(options: dict) -> None:
    origin = origin_option(options["origin"])
    memory = Tideline(get_workspace(options["workspace"], create=options["create"], actor="cli"), actor="cli:add")
    record = memory.add(
        options["content"], segment=options["segment"], origin=origin, source_type=options["source_type"],
        subject_key=options["subject_key"], supersedes=options["supersedes"], importance=options["importance"],
        tier=options["tier"], classification=options["classification"], intent_scope=options["intent_scope"],
        force=options["force"],
    )  # fmt: skip
    verb = {"reinforced": "reinforced existing", "confined": "stored as down-weighted evidence",
            "held": "held for review (not recalled until a reviewer admits it)"}.get(record.outcome, "stored")
    human = f"{verb} {record.id} [{record.segment}] {record.content}"
    if record.review_item_id:
        human += f"\nreview item: #{record.review_item_id} (tideline review show {record.review_item_id} --workspace {options['workspace']})"
    if record.superseded:
        human += f"\nsuperseded: {', '.join(record.superseded)}"
    if record.detected:
        secrets = [LABELS[k] for k in record.detected if k in SECRETS]
        personal = [LABELS[k] for k in record.detected if k not in SECRETS]
        if personal:
            human += f"\npersonal data found ({', '.join(personal)}): stored as {record.classification}"
        if secrets:
            human += f"\nsecret replaced, never stored ({', '.join(secrets)}): keep it in a secret store instead"
    emit(options, record.to_dict(), human)
