"""Backing up and restoring a large memory: `tideline backup` and `tideline restore` timed end to end.

    python -m bench.governance.backups [--facts 100000] [--json]

Seeds a fresh workspace of `--facts` facts (as the retention bench does) on the configured database,
exports it, takes a backup with the key store copied to a second folder, writes one more fact, then
restores and exports again: prints the dump's size, both times, and whether the exports match. Run
it on a scratch database: the restore replaces the whole database with its backup.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.governance.backups", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()
    from django.db import connection

    from bench.governance.retention import seed
    from memory.services import backups
    from memory.services.writes.interchange import export_facts
    from memory.tideline import Tideline

    workspace = seed(args.facts, quiet=args.json)
    before = list(export_facts(workspace=workspace))
    scratch = tempfile.mkdtemp(prefix="tideline-backup-bench-")
    try:
        started = time.perf_counter()
        report = backups.backup(os.path.join(scratch, "db"), keystore_to=os.path.join(scratch, "keys"))
        backup_seconds = time.perf_counter() - started
        Tideline(workspace).add("Written after the backup, gone after the restore.", segment="knowledge")
        started = time.perf_counter()
        backups.restore(os.path.join(scratch, "db"))
        restore_seconds = time.perf_counter() - started
        after = list(export_facts(workspace=workspace))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {"database": connection.vendor, "facts": len(before), "dump_mb": round(report.bytes / 1e6, 1),
              "backup_s": round(backup_seconds, 1), "restore_s": round(restore_seconds, 1),
              "exports_equal": before == after}  # fmt: skip
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['database']}: {result['facts']:,} facts, dump {result['dump_mb']} MB; backup "
              f"{result['backup_s']} s, restore {result['restore_s']} s; exports equal after restore: "
              f"{result['exports_equal']}")  # fmt: skip
    return 0 if result["exports_equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
