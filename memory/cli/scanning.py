"""`tideline scan --workspace W [--reclassify]`: personal data and secrets in facts stored before writes
were screened, by kind; with --reclassify, raised to PII and secrets held for a person."""

from __future__ import annotations

from memory.cli.common import emit, progress_bar
from memory.engine.safety.sensitive import LABELS
from memory.models import Fact
from memory.services.workspaces import get_workspace
from memory.services.writes.sensitive_scan import scan_workspace

HELP = "find personal data and secrets in stored facts (by kind); --reclassify raises them to PII and holds secrets"


def add_arguments(parser) -> None:
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--reclassify", action="store_true",
                        help="raise facts holding personal data to PII (an event each) and hold facts holding a "
                             "secret in clear for a person to correct or purge")  # fmt: skip


def run(options: dict) -> None:
    workspace = get_workspace(options["workspace"])
    with progress_bar(Fact.objects.filter(workspace=workspace).count(), "scanning") as bar:
        report = scan_workspace(workspace, reclassify=options["reclassify"], actor="cli:scan", progress=bar.update)
    lines = [f"scanned {report.facts} fact(s) of {workspace.name}"
             + (f" ({report.unreadable} shredded, unreadable)" if report.unreadable else "")]  # fmt: skip
    if not report.by_kind:
        lines.append("no personal data or secrets found")
    for kind, count in report.by_kind.items():
        lines.append(f"  {count:>6}  {LABELS[kind]}")
    if options["reclassify"]:
        lines.append(f"raised {report.reclassified} fact(s) to PII; held {report.held} fact(s) holding a secret in "
                     "clear (see the review queue)")  # fmt: skip
    elif report.to_raise or report.with_secrets:
        lines.append(f"{len(report.to_raise)} fact(s) would be raised to PII and {len(report.with_secrets)} held for "
                     "holding a secret in clear: run again with --reclassify")  # fmt: skip
    emit(options, report.to_dict(), "\n".join(lines))
