#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    if sys.argv[1:2] == ["tideline"]:
        # `manage.py tideline …` is the `tideline` command: the same one-line answers when the
        # settings themselves cannot load (Django would only say "Unknown command").
        from tideline_site.cli import main as tideline

        tideline(sys.argv[2:])
        return
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
