"""The default mail backend (tideline_site/mail.py): each message on the console and kept as a file."""

from __future__ import annotations

import os

from django.core.mail import get_connection, send_mail

from tideline_site import settings as site_settings


def test_by_default_mail_is_printed_and_kept(settings, tmp_path, capsys):
    assert site_settings.EMAIL_BACKEND == "tideline_site.mail.ConsoleAndFileBackend" or "EMAIL_BACKEND" in os.environ
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    connection = get_connection("tideline_site.mail.ConsoleAndFileBackend")
    assert send_mail("[Tideline] proposal #4 awaits your approval in acme", "Open it: http://127.0.0.1:8000/w/acme/",
                     "tideline@localhost", ["abe@example.org"], connection=connection) == 1  # fmt: skip
    printed = capsys.readouterr().err
    assert "proposal #4 awaits your approval" in printed and "abe@example.org" in printed
    (kept,) = (tmp_path / "mail").iterdir()
    assert "Open it: http://127.0.0.1:8000/w/acme/" in kept.read_text()
