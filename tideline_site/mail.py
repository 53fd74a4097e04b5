"""The default mail backend without a mail server: each message printed on the console (standard error of
the process that sent it: the web process or the worker, so `tideline serve` shows it) and kept as a
file under `TIDELINE_MAIL_DIR`, so a link in it (a password reset, an approval waiting) can be handed on.
`EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend` sends mail instead."""

from __future__ import annotations

import sys

from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend


class ConsoleAndFileBackend(FileBackend):
    def send_messages(self, email_messages):
        ConsoleBackend(stream=sys.stderr, fail_silently=self.fail_silently).send_messages(email_messages)
        return super().send_messages(email_messages)
