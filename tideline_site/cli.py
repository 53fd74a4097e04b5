"""Entry point of the `tideline` console script: `tideline import …` = `manage.py tideline import …`."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(["tideline", "tideline", *sys.argv[1:]])
    except BrokenPipeError:
        # The reader went away (`tideline export … | head`): stop quietly, like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
