"""A writer running during a dream loses nothing (PostgreSQL, real threads)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from memory.models import Fact, Workspace
from memory.services.maintenance.passes import run_dream
from memory.tideline import Tideline

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent writers need a server database"),
]


def test_every_acknowledged_write_survives_a_concurrent_dream(workspace):
    tl = Tideline(workspace)
    for n in range(60):
        tl.add(f"The routing service note number {n} mentions depot {n % 7}.", segment="project",
               subject_key=f"note_{n % 5}" if n % 3 == 0 else None)  # fmt: skip
    acknowledged: list[str] = []
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            local = Tideline(Workspace.objects.get(pk=workspace.pk))
            for n in range(40):
                acknowledged.append(local.add(f"Concurrent write {n} about the billing pipeline.", segment="project").id)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connections.close_all()

    def dreamer() -> None:
        try:
            run_dream(Workspace.objects.get(pk=workspace.pk))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer), threading.Thread(target=dreamer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    present = set(Fact.objects.filter(workspace=workspace, memory_id__in=acknowledged).values_list("memory_id", flat=True))
    assert present == set(acknowledged) and len(acknowledged) == 40
