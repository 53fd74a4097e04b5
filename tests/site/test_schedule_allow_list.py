"""A django-q2 schedule can only run Tideline's own task functions, however it is saved."""

from __future__ import annotations

import inspect

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django_q.models import Failure, Schedule

from governance.schedules import allowed_task_functions
from memory import tasks

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client, db):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(user)
    return user


def test_every_public_function_of_the_task_modules_is_allowed_and_nothing_else():
    own = {f"memory.tasks.{name}" for name, value in vars(tasks).items()
           if inspect.isfunction(value) and value.__module__ == "memory.tasks" and not name.startswith("_")}  # fmt: skip
    assert own and own <= allowed_task_functions()
    assert all(path.startswith(("memory.tasks.", "governance.tasks.")) for path in allowed_task_functions())
    # Names a task module merely imports are not tasks.
    assert "memory.tasks.Workspace" not in allowed_task_functions()


@pytest.mark.parametrize("fields", [
    {"func": "os.system", "args": "'id'"},
    {"func": "subprocess.run"},
    {"func": "memory.tasks.maintenance.run_gc"},  # reachable through a task module, but not a task
    {"func": "memory.tasks.run_gc_everywhere", "hook": "os.system"},
    {"func": "memory.tasks.run_gc_everywhere", "kwargs": "hook='os.system'"},
    {"func": "memory.tasks.run_gc_everywhere", "kwargs": "{'q_options': {'chain': [('os.system', ('id',))]}}"},
    {"func": "memory.tasks.run_gc_everywhere", "kwargs": "chain=[('os.system', ('id',))]"},
    {"func": "memory.tasks.run_gc_everywhere", "kwargs": "x=1), __import__('os').system('id'"},
    {"func": "memory.tasks.run_gc", "args": "__import__('os').system('id')"},
])  # fmt: skip
def test_a_schedule_that_would_run_anything_else_is_refused_on_save(fields):
    with pytest.raises(ValidationError):
        Schedule.objects.create(name="evil", **fields)
    assert not Schedule.objects.filter(name="evil").exists()


def test_an_existing_schedule_cannot_be_repointed(db):
    schedule = Schedule.objects.create(name="gc", func="memory.tasks.run_gc", args="3", kwargs="")
    schedule.func = "os.system"
    with pytest.raises(ValidationError):
        schedule.save()
    assert Schedule.objects.get(pk=schedule.pk).func == "memory.tasks.run_gc"


def test_tideline_tasks_with_plain_arguments_are_accepted(db):
    Schedule.objects.create(name="gc one", func="memory.tasks.run_gc", args="3")
    Schedule.objects.create(name="gc kw", func="memory.tasks.run_gc", kwargs="workspace_id=3")
    Schedule.objects.create(name="gc all", func="memory.tasks.run_gc_everywhere", hook="memory.tasks.run_gc_everywhere")
    assert Schedule.objects.count() == 3


def test_setup_schedules_declares_only_allowed_functions(db):
    call_command("setup_schedules")
    funcs = set(Schedule.objects.values_list("func", flat=True))
    assert funcs and funcs <= allowed_task_functions()


def _schedule_form(func: str, **extra) -> dict:
    return {"name": "from the admin", "func": func, "hook": "", "args": "", "kwargs": "", "schedule_type": "O",
            "minutes": "", "repeats": "-1", "next_run_0": "2030-01-01", "next_run_1": "00:00:00", "cron": "",
            "cluster": "", "intended_date_kwarg": "", **extra}  # fmt: skip


def test_the_schedule_admin_explains_a_refused_function_on_the_form(client, superuser):
    response = client.post("/admin/django_q/schedule/add/", _schedule_form("os.system", args="'touch /tmp/pwned'"))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "is not a Tideline task" in errors["func"][0]
    assert not Schedule.objects.exists()


def test_the_schedule_admin_accepts_a_tideline_task(client, superuser):
    response = client.post("/admin/django_q/schedule/add/", _schedule_form("memory.tasks.run_gc_everywhere"))
    assert response.status_code == 302
    assert Schedule.objects.get().func == "memory.tasks.run_gc_everywhere"


def test_a_failed_task_that_is_not_a_tideline_task_cannot_be_resubmitted(client, superuser):
    from django.utils import timezone

    failed = Failure.objects.create(id="a" * 32, name="old", func="os.system", args=("id",), started=timezone.now(),
                                    stopped=timezone.now(), success=False)  # fmt: skip
    response = client.post("/admin/django_q/failure/", {"action": "resubmit_tideline_tasks",
                                                        "_selected_action": [failed.pk]}, follow=True)  # fmt: skip
    assert "is not a Tideline task" in response.content.decode()
    assert Failure.objects.filter(pk=failed.pk).exists()  # resubmitting would have deleted it


def test_no_queued_task_can_be_added_through_the_admin(client, superuser):
    assert client.get("/admin/django_q/ormq/add/").status_code == 403
    assert client.get("/admin/django_q/success/add/").status_code == 403
