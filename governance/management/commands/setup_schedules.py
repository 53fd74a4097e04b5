"""Declare every background schedule (idempotent: run it as often as you like; `make run` does)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django_q.models import Schedule

SCHEDULES = [
    # name, function, type, cron
    ("decay GC (hourly, every workspace)", "memory.tasks.run_gc_everywhere", Schedule.HOURLY, None),
]


class Command(BaseCommand):
    help = "Create or update Tideline's django-q2 schedules."

    def handle(self, *args, **options) -> None:
        for name, func, kind, cron in SCHEDULES:
            _, created = Schedule.objects.update_or_create(
                name=name, defaults={"func": func, "schedule_type": kind, "cron": cron, "repeats": -1}
            )
            self.stdout.write(f"{'created' if created else 'kept'} schedule: {name}")
