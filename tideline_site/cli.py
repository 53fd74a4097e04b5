"""Entry point of the `tideline` console script: `tideline import …` = `manage.py tideline import …`."""

from __future__ import annotations

import os
import sys


def _refuse(as_json: bool, kind: str, message: str) -> None:
    from memory.cli.common import print_error  # needs neither settings nor apps

    print_error(as_json, kind, message)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    from memory.cli.common import wants_json

    as_json = wants_json(argv)
    from django.core.exceptions import ImproperlyConfigured

    try:
        # Settings are read from the environment here; whatever goes wrong (a malformed master key or
        # DATABASE_URL, a var/ folder that cannot be created) is a deployment problem, said in one line.
        django.setup()
    except ImproperlyConfigured as error:
        _refuse(as_json, "configuration", str(error))
    except OSError as error:
        path = f" {error.filename}" if error.filename else ""
        _refuse(as_json, "configuration", f"cannot use{path}: {error.strerror or error} (check TIDELINE_VAR_DIR)")
    except Exception as error:  # e.g. ValueError from a DATABASE_URL with a non-numeric port
        _refuse(as_json, "configuration", f"the settings cannot be loaded: {type(error).__name__}: {error}")

    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(["tideline", "tideline", *argv])
    except BrokenPipeError:
        # The reader went away (`tideline export … | head`): stop quietly, like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
