"""What a benchmark run as `python -m bench…` needs before it reads the database."""

from __future__ import annotations

import argparse
import os


def django_ready() -> None:
    """Django set up with the project's settings (as `manage.py` would)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tideline_site.settings")
    import django

    django.setup()


def workspace_named(parser: argparse.ArgumentParser, name: str):
    """The workspace called `name`; an unknown one ends the run with exit 2 and the reason."""
    from memory.services.errors import NotFoundError
    from memory.services.workspaces import get_workspace

    try:
        return get_workspace(name)
    except NotFoundError as error:
        parser.exit(2, f"{error}\n")
