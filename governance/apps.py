from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "governance"
    verbose_name = "Governance"

    def ready(self) -> None:
        from django.db.models.signals import pre_save
        from django_q.models import Schedule

        from governance.schedules import refuse_disallowed_schedule

        pre_save.connect(refuse_disallowed_schedule, sender=Schedule, dispatch_uid="tideline-schedule-allow-list")
