from django.contrib.admin.apps import AdminConfig


class TidelineAdminConfig(AdminConfig):
    """`django.contrib.admin` whose `admin.site` is the superuser-only site, so every app's
    `@admin.register` lands on it."""

    default_site = "tideline_site.admin_site.SuperuserAdminSite"

    def ready(self) -> None:
        super().ready()
        from django.db.models.signals import post_migrate

        from tideline_site import forks

        forks.install()  # a forked process (django-q2's) never reuses its parent's database connections

        from django_q.signals import post_execute_in_worker, pre_execute

        from tideline_site import logs

        # Every task gets an id for its log line and its events (tideline_site/logs.py).
        pre_execute.connect(logs.task_started, dispatch_uid="tideline-task-started")
        post_execute_in_worker.connect(logs.task_finished, dispatch_uid="tideline-task-finished")

        post_migrate.connect(_create_cache_table, sender=self, dispatch_uid="tideline-cache-table")

        from tideline_kit import telemetry
        from tideline_site import metrics, tracing

        telemetry.observe(metrics.OBSERVER)  # /metrics (tideline_site/metrics.py)
        tracing.install()  # OpenTelemetry spans, when the [otel] extra is installed


def _create_cache_table(using: str = "default", **kwargs) -> None:
    """With TIDELINE_CACHE=database, `migrate` also creates the cache's table (if it is missing),
    so a deployment cannot forget it and answer every API call with an error."""
    from django.conf import settings
    from django.core.management import call_command

    if settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache"):
        call_command("createcachetable", database=using, verbosity=0)
