"""Entry point of the `tideline` console script: `tideline import …` = `manage.py tideline import …`."""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(["tideline", "tideline", *sys.argv[1:]])
    except ImproperlyConfigured as error:
        # A settings problem (a malformed TIDELINE_MASTER_KEY, an unsupported DATABASE_URL): one line.
        if "--json" in sys.argv[1:]:
            error_doc = {"error": {"kind": "configuration", "message": str(error)}}
            sys.stdout.write(json.dumps(error_doc) + "\n")
        else:
            sys.stderr.write(f"error: {error}\n")
        sys.exit(2)
    except BrokenPipeError:
        # The reader went away (`tideline export … | head`): stop quietly, like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
