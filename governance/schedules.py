"""Which work a django-q2 schedule may start: Tideline's own task functions, nothing else.

django-q2 runs whatever dotted path a `Schedule` names (its admin offers a free text field, so
`os.system` would do), calls the `hook` it names with the result, and reads queue options such as
`hook`, `chain` or `q_options` out of the schedule's keyword arguments. A schedule is therefore
refused on save unless its function and hook are public functions defined in one of Tideline's
task modules and its keyword arguments carry no queue options.

The allow-list is read from the task modules themselves, so a new task is allowed by writing it
there. It lives in governance because it must see `governance.tasks` too, and `memory` never
imports `governance`.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from functools import cache

from django.core.exceptions import ValidationError

TASK_MODULES = ("memory.tasks", "governance.tasks")

# Keyword arguments that django-q2 takes as options for the queued task instead of passing them on
# (django_q.tasks.async_task and the scheduler); `hook` and `chain` name further functions to run.
QUEUE_OPTION_KEYS = frozenset({
    "q_options", "task_name", "hook", "group", "save", "sync", "cached", "ack_failure", "iter_count",
    "iter_cached", "chain", "broker", "broker_name", "cluster", "timeout",
})  # fmt: skip


@cache
def allowed_task_functions() -> frozenset[str]:
    """Dotted paths of every public function defined in Tideline's task modules."""
    allowed = set()
    for module_name in TASK_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # this app has no tasks (yet)
                continue
            raise
        for name, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module_name and not name.startswith("_"):
                allowed.add(f"{module_name}.{name}")
    return frozenset(allowed)


def schedule_problems(schedule) -> dict[str, str]:
    """Why this schedule may not be saved, by field; empty when it may."""
    problems = {}
    allowed = allowed_task_functions()
    hint = "one of Tideline's tasks: " + ", ".join(sorted(allowed))
    if schedule.func not in allowed:
        problems["func"] = f"{schedule.func!r} is not a Tideline task; a schedule may only run {hint}"
    if schedule.hook and schedule.hook not in allowed:
        problems["hook"] = f"{schedule.hook!r} is not a Tideline task; a hook may only be {hint}"
    if schedule.args and not _is_literal(schedule.args):
        # The scheduler evaluates these unguarded: a bad value would stop every schedule's run.
        problems["args"] = "arguments must be literals, e.g. 3 or 3, 'name'"
    if schedule.kwargs:
        keys = _keyword_names(schedule.kwargs)
        if keys is None:
            problems["kwargs"] = "keyword arguments must be literals, e.g. workspace_id=3 or {'workspace_id': 3}"
        elif keys & QUEUE_OPTION_KEYS:
            problems["kwargs"] = (f"queue options ({', '.join(sorted(keys & QUEUE_OPTION_KEYS))}) may not be set "
                                  "through a schedule's keyword arguments")  # fmt: skip
    return problems


def validate_schedule(schedule) -> None:
    problems = schedule_problems(schedule)
    if problems:
        raise ValidationError(problems)


def refuse_disallowed_schedule(sender, instance, **kwargs) -> None:
    """pre_save receiver: no code path may store a schedule that runs anything but a Tideline task."""
    validate_schedule(instance)


def _is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _keyword_names(text: str) -> set[str] | None:
    """The keyword names in a schedule's `kwargs`, read the way django-q2's scheduler reads them
    (a dict literal, else `a=1, b=2`); None when it is neither."""
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        try:
            call = ast.parse(f"f({text})", mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
            return None
        return {keyword.arg for keyword in call.keywords}
    return {str(key) for key in value} if isinstance(value, dict) else None
