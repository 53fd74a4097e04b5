"""`tideline backup --output DIR [--keystore-output DIR2]` and `tideline restore DIR [--keystore-from DIR2]`."""

from __future__ import annotations

import sys
from pathlib import Path

from django.conf import settings

from memory.cli.common import emit
from memory.services import backups
from memory.services.errors import RequestError

HELP = {
    "backup": "write a consistent database dump and manifest to a new folder (the key store only where you name)",
    "restore": "replace the database with a backup's and migrate it (other Tideline processes must be stopped)",
}
# A restore is how a database whose key store does not match is mended: it must not be refused by the
# checks that refuse everything else in that state.
SKIP_CHECKS = {"restore"}


def add_arguments(parser, verb: str) -> None:
    if verb == "backup":
        parser.add_argument("--output", "-o", required=True, metavar="DIR", help="a new (or empty) folder for the dump")
        parser.add_argument("--keystore-output", metavar="DIR2",
                            help="also copy the key store here: another disk or host, never with the dump")  # fmt: skip
        parser.add_argument("--keystore-beside-dump", action="store_true",
                            help="allow --keystore-output inside the backup folder (then guard it like the keys)")  # fmt: skip
    else:
        parser.add_argument("directory", metavar="DIR", help="a folder `tideline backup` wrote")
        parser.add_argument("--keystore-from", metavar="DIR2",
                            help="a key store copy: fills in only the key files the running key store lacks")  # fmt: skip
        parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def _say(options: dict):
    def step(message: str) -> None:
        if not options.get("json"):
            sys.stderr.write(f"{message} …\n")
            sys.stderr.flush()

    return step


def run(options: dict) -> None:
    if options["subcommand"] == "backup":
        _backup(options)
    else:
        _restore(options)


def _backup(options: dict) -> None:
    keystore_to = Path(options["keystore_output"]) if options.get("keystore_output") else None
    report = backups.backup(Path(options["output"]), keystore_to=keystore_to,
                            keystore_beside=options["keystore_beside_dump"], progress=_say(options))  # fmt: skip
    keys = (f"key store: {report.key_files} key file(s) copied to {report.keystore_copy}" if report.keystore_copy else
            f"key store NOT copied: back up {settings.TIDELINE_KEYSTORE_DIR} separately (--keystore-output DIR2)")  # fmt: skip
    emit(options, report.to_dict(),
         f"backed up {report.vendor}: {report.workspaces} workspace(s), {report.facts} fact(s), {report.events} "
         f"event(s) to {report.directory}/{report.database_file} ({report.bytes:,} bytes, sha256 {report.sha256[:12]}…)\n"
         f"{keys}")  # fmt: skip


def _restore(options: dict) -> None:
    directory = Path(options["directory"])
    manifest = backups.check_restorable(directory)
    _confirm(options, manifest)
    keystore_from = Path(options["keystore_from"]) if options.get("keystore_from") else None
    report = backups.restore(directory, keystore_from=keystore_from, progress=_say(options))
    lines = [f"restored the backup of {report.backup_created_at}: {report.workspaces} workspace(s), {report.facts} "
             f"fact(s), {report.events} event(s); {report.migrations_applied} migration(s) applied since"]  # fmt: skip
    if keystore_from is not None:
        lines.append(f"{report.keys_restored} missing key file(s) filled in from {keystore_from}")
    if report.shredded_keys_destroyed:
        lines.append(f"{report.shredded_keys_destroyed} key(s) of shredded origins destroyed again")
    lines += [f"warning: {warning}" for warning in report.warnings]
    lines.append(f"key store: refused: {report.key_store_problem}" if report.key_store_problem
                 else "key store: matches this database")  # fmt: skip
    emit(options, report.to_dict(), "\n".join(lines))


def _confirm(options: dict, manifest: dict) -> None:
    if options.get("yes"):
        return
    counts = manifest.get("counts") or {}
    what = (f"the backup of {manifest.get('created_at')} ({counts.get('workspaces', '?')} workspace(s), "
            f"{counts.get('facts', '?')} fact(s))")  # fmt: skip
    if options.get("json") or not sys.stdin.isatty():
        raise RequestError(f"restore replaces everything in the database with {what}: stop every other Tideline "
                           "process, then run again with --yes", kind="confirmation_required")  # fmt: skip
    answer = input(f"Replace everything in the database with {what}? Every other Tideline process must be stopped. "
                   "Type 'restore' to go on: ")  # fmt: skip
    if answer.strip() != "restore":
        raise RequestError("restore cancelled; nothing was changed", kind="cancelled")
