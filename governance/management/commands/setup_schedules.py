"""Declare every background schedule (idempotent: run it as often as you like; `make run` does)."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone
from django_q.models import Schedule


def _next(hour: int | None) -> timezone.datetime:
    """The next top of the hour, or the next time the clock reads `hour`:00 (UTC)."""
    now = timezone.now().replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    if hour is None:
        return now
    while now.hour != hour:
        now += timedelta(hours=1)
    return now


SCHEDULES = [
    # name, function, repeat, first run at hour (None: next hour)
    ("decay GC (hourly, every workspace)", "memory.tasks.run_gc_everywhere", Schedule.HOURLY, None),
    # Console uploads hold facts in plain text: one previewed and never confirmed goes after a day.
    ("expire unconfirmed console uploads (hourly)", "governance.tasks.expire_import_uploads", Schedule.HOURLY, None),
    # One task runs the dream and then contradiction detection, so their order holds (governance/tasks.py).
    ("dream and contradictions (nightly at 03:00 UTC, every workspace)", "governance.tasks.run_nightly_everywhere",
     Schedule.DAILY, 3),
    # Retention archives or purges what recall already hides; nightly, before the dream sees those facts.
    ("retention policies (nightly at 02:00 UTC, every workspace)", "governance.tasks.apply_retention_all", Schedule.DAILY, 2),
    # Proposals from the day's telemetry (down-votes, restored facts); after the dream, for the morning's review.
    ("proposals from telemetry (nightly at 04:00 UTC, every workspace)", "governance.tasks.propose_from_telemetry_everywhere",
     Schedule.DAILY, 4),
    # Webhook calls are sent as they are queued; this retries the failed ones when they are due.
    ("webhook deliveries due (every minute)", "governance.tasks.deliver_webhooks", Schedule.MINUTES, None),
    # Owners' daily digest of their review queues, for those who asked for it (account page).
    ("review digests (daily at 07:00 UTC)", "governance.tasks.send_review_digests", Schedule.DAILY, 7),
]  # fmt: skip


class Command(BaseCommand):
    help = "Create or update Tideline's django-q2 schedules."

    def handle(self, *args, **options) -> None:
        for name, func, kind, hour in SCHEDULES:
            schedule, created = Schedule.objects.get_or_create(
                name=name, defaults={"func": func, "schedule_type": kind, "repeats": -1, "next_run": _next(hour),
                                     "minutes": 1 if kind == Schedule.MINUTES else None},
            )  # fmt: skip
            if not created and (schedule.func, schedule.schedule_type) != (func, kind):
                schedule.func, schedule.schedule_type = func, kind
                schedule.save(update_fields=["func", "schedule_type"])
            self.stdout.write(f"{'created' if created else 'kept'} schedule: {name}")
