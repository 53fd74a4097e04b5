"""Helpers shared by the subcommands: JSON output, errors, progress bars, origins."""

from __future__ import annotations

import json
import sys
from typing import Any

from tqdm import tqdm

from memory.engine import records as R
from memory.services.errors import RequestError


class CliExit(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def emit(options: dict, payload: dict[str, Any], human: str) -> None:
    """Print the JSON document with --json, else the human summary."""
    if options.get("json"):
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=None) + "\n")
    else:
        sys.stdout.write(human.rstrip("\n") + "\n")


def fail(options: dict, error) -> None:
    """Report a refused request: JSON on stdout with --json, a plain message on stderr otherwise."""
    if options.get("json"):
        sys.stdout.write(json.dumps({"error": error.to_dict()}, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"error: {error.message}\n")
        for rule in getattr(error, "rules", ()) or ():
            sys.stderr.write(f"  matched: {rule}\n")
        details = getattr(error, "details", None)
        details = details if isinstance(details, list) else []
        for item in details[:50]:
            sys.stderr.write(f"  {_describe(item)}\n")
        if len(details) > 50:
            sys.stderr.write(f"  … and {len(details) - 50} more\n")
    raise CliExit(2)


def _describe(item: Any) -> str:
    if isinstance(item, dict) and "line" in item:
        return f"line {item['line']}: {item['reason']}"
    return str(item)


def progress_bar(total: int | None, description: str, unit: str = "fact") -> tqdm:
    # disable=None hides the bar when stderr is not a terminal (CI logs, pipes).
    return tqdm(total=total, desc=description, unit=unit, file=sys.stderr, disable=None, leave=False)


def origin_option(value: str | None) -> R.Origin | None:
    if value is None:
        return None
    try:
        return R.parse_origin(value)
    except R.OriginError as exc:
        raise RequestError(str(exc), kind="validation") from exc
