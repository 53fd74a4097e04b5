"""`tideline keys status|rotate-master` — the key store's health, and master-key rotation.

The new master key is read from a file (or `-` for standard input), never from the command line,
where it would end up in shell history and the process list.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.conf import settings

from memory.cli.common import emit, progress_bar
from memory.services.errors import RequestError
from memory.services.keys import rotation as key_rotation

HELP = "show the key store's binding and health, or re-wrap every data key under a new master key"


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("status", "rotate-master"))
    parser.add_argument("--new-key-file", metavar="FILE",
                        help="rotate-master: a file holding the new master key (base64 of 32 bytes); - reads stdin")  # fmt: skip
    parser.add_argument("--yes", action="store_true", help="rotate-master: do not ask for confirmation")


def run(options: dict) -> None:
    if options["action"] == "status":
        _status(options)
    else:
        _rotate(options)


def _status(options: dict) -> None:
    report = key_rotation.status()
    verdict = f"refused: {report.problem}" if report.problem else ("bound, matches" if report.bound else "not bound yet")
    emit(options, report.to_dict(),
         f"key store {report.keystore_dir}: {verdict}\n"
         f"  {report.key_files} key file(s); {report.origins_with_facts} origin(s) with facts, "
         f"{report.origins_without_key} of them without a key (shredded or lost); "
         f"{report.unused_key_files} key file(s) no fact uses")  # fmt: skip


def _read_new_key(options: dict) -> bytes:
    source = options.get("new_key_file")
    if not source:
        raise RequestError("rotate-master needs --new-key-file FILE (or - for standard input)", kind="usage")
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestError(f"cannot read the new master key from {source}: {exc}", kind="validation") from exc
    return key_rotation.parse_master_key(text)


def _confirm(options: dict) -> None:
    if options.get("yes"):
        return
    if options.get("json") or not sys.stdin.isatty() or options.get("new_key_file") == "-":
        raise RequestError("rotate-master re-wraps every data key: stop Tideline's other processes, back up "
                           "the key store, then run again with --yes", kind="confirmation_required")  # fmt: skip
    answer = input(f"Re-wrap every data key in {settings.TIDELINE_KEYSTORE_DIR} under the new master key? "
                   "Other Tideline processes must be stopped. Type 'rotate' to go on: ")  # fmt: skip
    if answer.strip() != "rotate":
        raise RequestError("rotation cancelled; nothing was changed", kind="cancelled")


def _rotate(options: dict) -> None:
    new_master = _read_new_key(options)
    _confirm(options)
    files = len(list(Path(settings.TIDELINE_KEYSTORE_DIR).glob("*.key")))
    with progress_bar(files, "re-wrapping data keys", unit="key") as bar:
        report = key_rotation.rotate_master(new_master, progress=bar.update)
    master_file = _embedded_master_file()
    if master_file is not None:  # the embedded default keeps its master key in var/: put the new one there
        key_rotation.replace_master_file(master_file, new_master)
        after = f"the new master key is now in {master_file}"
    else:
        after = "set TIDELINE_MASTER_KEY to the new key before starting Tideline again"
    emit(options, {**report.to_dict(), "next": after},
         f"rotated: {report.rewrapped} key(s) re-wrapped, {report.already_rotated} already under the new key, "
         f"{len(report.retired)} unused key file(s) moved to {key_rotation.RETIRED_DIR}/; {after}")  # fmt: skip


def _embedded_master_file() -> Path | None:
    if os.environ.get("TIDELINE_MASTER_KEY", "").strip():
        return None
    path = Path(settings.VAR_DIR) / "master.key"
    return path if path.exists() else None
