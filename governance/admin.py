"""django-q2's admin pages with Tideline's schedule rules (see governance/schedules.py).

The schedule form explains a refused function, hook or keyword argument on the field instead of
failing on save; re-running a finished task is allowed only for Tideline's own tasks.
"""

from __future__ import annotations

from types import SimpleNamespace

from django import forms
from django.contrib import admin, messages
from django_q import admin as q_admin
from django_q.models import Failure, Schedule, Success

from governance.schedules import allowed_task_functions, schedule_problems


class ScheduleForm(forms.ModelForm):
    class Meta:
        model = Schedule
        fields = "__all__"

    def clean(self):
        cleaned = super().clean()
        proposed = SimpleNamespace(**{field: cleaned.get(field) or "" for field in ("func", "hook", "args", "kwargs")})
        for field, message in schedule_problems(proposed).items():
            if field not in self.errors:  # a field's own error (e.g. too long) says enough
                self.add_error(field, message)
        return cleaned


class ScheduleAdmin(q_admin.ScheduleAdmin):
    form = ScheduleForm


@admin.action(description="Resubmit selected tasks to queue (Tideline tasks only)")
def resubmit_tideline_tasks(model_admin, request, queryset):
    allowed = allowed_task_functions()
    refused = sorted({task.func for task in queryset if task.func not in allowed})
    if refused:
        model_admin.message_user(request, f"Not resubmitted: {', '.join(refused)} is not a Tideline task.",
                                 messages.ERROR)  # fmt: skip
        return
    q_admin.resubmit_task(model_admin, request, queryset)


class SuccessAdmin(q_admin.TaskAdmin):
    actions = [resubmit_tideline_tasks]


class FailureAdmin(q_admin.FailAdmin):
    actions = [resubmit_tideline_tasks]


for model, model_admin in ((Schedule, ScheduleAdmin), (Success, SuccessAdmin), (Failure, FailureAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
