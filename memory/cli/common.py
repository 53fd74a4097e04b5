"""Helpers shared by the subcommands: JSON output, errors, progress bars, origins."""

from __future__ import annotations

import json
import sys
from typing import Any

from tqdm import tqdm

from memory.engine.facts import records as R
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


def counting(bar: tqdm):
    """A `progress(done, total)` callback that moves `bar` (a service reports counts, the CLI shows them)."""

    def step(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return step


def origin_option(value: str | None) -> R.Origin | None:
    if value is None:
        return None
    try:
        return R.parse_origin(value)
    except R.OriginError as exc:
        raise RequestError(str(exc), kind="validation") from exc


# ---------------------------------------------------------------- --json and the environment


def wants_json(argv) -> bool:
    """Whether the command line asks for JSON: `--json` or an abbreviation argparse would accept."""
    for token in argv:
        if token == "--":
            return False  # what follows is positional text, not options
        if len(token) >= 3 and "--json".startswith(token):
            return True
    return False


def print_error(as_json: bool, kind: str, message: str) -> None:
    """One error line on stderr, or the `{"error": …}` document on stdout with --json."""
    if as_json:
        sys.stdout.write(json.dumps({"error": {"kind": kind, "message": message}}, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    else:
        sys.stderr.write(f"error: {message}\n")


class EnvironmentProblem(RequestError):
    """The machine, not the request, is wrong: the database or a folder cannot be used as configured."""

    kind = "environment"


def environment_problem(error: BaseException) -> EnvironmentProblem | None:
    """A one-line explanation of an error that comes from the deployment (database, folders), or None
    when the error is not one (a bug keeps its traceback)."""
    from django.conf import settings
    from django.db import InternalError, OperationalError, ProgrammingError

    from memory.services.errors import is_read_only_error

    database = settings.DATABASES["default"]
    where = database.get("NAME") if database["ENGINE"].endswith("sqlite3") else f"PostgreSQL database {database.get('NAME')!r}"
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, BrokenPipeError):
        return None  # the reader went away: the console script handles it quietly
    if is_read_only_error(error):
        return EnvironmentProblem(f"the database is read-only ({where}): Tideline needs to write to it; "
                                  f"check its permissions or the server's settings")  # fmt: skip
    if isinstance(error, OperationalError | ProgrammingError) and (
        "no such table" in text or ("relation" in text and "does not exist" in text)
    ):
        return EnvironmentProblem(f"the database is not migrated ({text}): run `python manage.py migrate`")
    if isinstance(error, OperationalError) and "unable to open database file" in text:
        return EnvironmentProblem(f"cannot open the database file {where}: its folder is missing or not writable")
    if isinstance(error, OperationalError | InternalError):
        return EnvironmentProblem(f"cannot use the database ({where}): {text}")
    if isinstance(error, OSError):
        path = f" {error.filename}" if error.filename else ""
        reason = error.strerror or text
        return EnvironmentProblem(f"cannot use{path}: {reason} (check TIDELINE_VAR_DIR, TIDELINE_KEYSTORE_DIR "
                                  f"and the paths given on the command line)")  # fmt: skip
    return None
