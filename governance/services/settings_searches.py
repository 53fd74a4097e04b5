"""Recall-settings searches run by the worker (the console's "Search recall settings").

A search ranks every approved gold case once per candidate setting (`proposal_eval.search_settings`):
seconds on a small gold set, tens of seconds on hundreds of cases over a large memory. So the
console queues it: `request` records a `SettingsSearch` and hands it to django-q2 (or runs it at
once when tasks run synchronously); `run` is the worker's part, which keeps the row's progress for
the proposals page's bar and ends with the proposal made or the reason there is none. One search at
a time per workspace; a search whose worker was killed is failed when a worker starts next
(`fail_interrupted`), so it can be asked for again.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from governance.models import SettingsSearch
from governance.services import proposal_eval, proposals, run_locks
from governance.services.acting import acting_name, require_role
from memory.models import Workspace
from memory.services.errors import RequestError
from memory.services.queueing import QueueUnavailableError, enqueue


def latest(workspace: Workspace) -> SettingsSearch | None:
    return SettingsSearch.objects.filter(workspace=workspace).select_related("proposal").first()


def get(workspace: Workspace, search_id: int) -> SettingsSearch:
    found = None
    if 0 < search_id < 2**31:
        found = SettingsSearch.objects.filter(workspace=workspace, pk=search_id).select_related("proposal").first()
    if found is None:
        raise RequestError(f"no settings search #{search_id} in {workspace.name}", kind="not_found")
    return found


def request(workspace: Workspace, *, user=None, actor: str) -> SettingsSearch:
    """Queue a search (an owner's or admin's act, as proposing is). A search already queued or running
    for the workspace is returned instead of a second one."""
    require_role(user, workspace, "propose", "propose changes")
    if not proposal_eval.usable_sets(workspace):
        raise RequestError(proposal_eval.gate_refusal(workspace), kind="unapproved")
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()  # one request at a time
        running = SettingsSearch.objects.filter(workspace=workspace, status__in=["queued", "running"]).first()
        if running is not None:
            return running
        search = SettingsSearch.objects.create(workspace=workspace, requested_by_name=acting_name(user, actor))
    try:
        enqueue("governance.tasks.search_settings", search.pk)
    except QueueUnavailableError:
        search.delete()  # never started: a queued row no worker will run would block every later search
        raise
    search.refresh_from_db()
    return search


def run(search_id: int) -> dict[str, Any]:
    """The worker's part: search, propose when the search shows a gain, and keep the outcome."""
    with run_locks.holding("settings_search", search_id) as mine:
        if not mine:
            return {"search": search_id, "error": "it is being run by another worker"}
        search = SettingsSearch.objects.select_related("workspace").get(pk=search_id)
        SettingsSearch.objects.filter(pk=search_id).update(status=SettingsSearch.Status.RUNNING, done=0)

        def bar(done: int, total: int) -> None:
            SettingsSearch.objects.filter(pk=search_id).update(done=done, total=total)

        seen = {"done": 0, "total": 0}

        def count(done: int, total: int) -> None:
            seen.update(done=done, total=total)

        try:
            made, why = proposals.propose_from_recall_misses(search.workspace, actor=search.requested_by_name,
                                                             progress=count, live_bar=bar)  # fmt: skip
        except RequestError as error:
            _finish(search_id, SettingsSearch.Status.FAILED, error.message)
            return {"search": search_id, "error": error.message}
        except Exception as error:  # the page must say it failed, not spin forever
            _finish(search_id, SettingsSearch.Status.FAILED, f"the search failed: {type(error).__name__}")
            raise
        _finish(search_id, SettingsSearch.Status.DONE, why, proposal=made, total=seen["total"])
        return {"search": search_id, "proposal": made.pk if made else None, "reason": why}


def _finish(search_id: int, status: str, reason: str, *, proposal=None, total: int | None = None) -> None:
    updates: dict[str, Any] = {"status": status, "reason": reason[:1000], "proposal": proposal,
                               "finished_at": timezone.now()}  # fmt: skip
    if total is not None:
        updates["done"] = updates["total"] = total
    SettingsSearch.objects.filter(pk=search_id).update(**updates)


def fail_interrupted() -> list[int]:
    """Searches that say "running" while no live process runs them (their worker was killed) are failed
    with the reason, so that another can be asked for. Called as each django-q2 worker starts."""
    failed = []
    for pk in SettingsSearch.objects.filter(status=SettingsSearch.Status.RUNNING).values_list("pk", flat=True):
        with run_locks.holding("settings_search", pk) as free:
            if free and SettingsSearch.objects.filter(pk=pk, status=SettingsSearch.Status.RUNNING).update(
                    status=SettingsSearch.Status.FAILED, finished_at=timezone.now(),
                    reason="the worker stopped during the search: search again"):  # fmt: skip
                failed.append(pk)
    return failed
