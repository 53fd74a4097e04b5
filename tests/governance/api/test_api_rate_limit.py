"""A token's calls per minute are counted by one atomic statement in the shared database: concurrent
calls on separate connections never read the same count (tests/site/test_served_edge.py drives it
through two real web workers)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections
from django.test import Client

from governance.models import ApiCallCount
from governance.services import api_rate, tokens


def _token(workspace, name="rate"):
    return tokens.create_token(workspace, name=name, origin="owner", verbs="read", actor="test")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="separate connections at once need a server database")
def test_concurrent_connections_each_get_a_count_of_their_own(transactional_db, workspace):
    row, _ = _token(workspace)
    minute = int(time.time() // 60)
    seen: list[int] = []
    start = threading.Barrier(12)

    def calls():
        try:
            start.wait()
            seen.extend(api_rate.count_call(row.pk, minute) for _ in range(15))
        finally:
            connections.close_all()  # this thread's own connection

    threads = [threading.Thread(target=calls) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(1, 181))  # no count handed out twice, none lost
    assert ApiCallCount.objects.get(token=row, minute=minute).calls == 180


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="synchronous_commit is PostgreSQL's")
def test_the_count_commits_lazily_on_its_own_and_never_changes_a_callers_commit(transactional_db, workspace):
    from django.db import transaction

    row, _ = _token(workspace)
    assert _synchronous_commit() == "on"
    assert api_rate.count_call(row.pk, 100) == 1
    assert _synchronous_commit() == "on"  # the lazy commit was the count's own transaction only
    with transaction.atomic():
        assert api_rate.count_call(row.pk, 100) == 2
        assert _synchronous_commit() == "on"  # the caller's transaction still commits durably
    assert ApiCallCount.objects.get(token=row, minute=100).calls == 2


def test_a_new_minute_starts_again_and_prunes_the_tokens_old_minutes(workspace):
    row, _ = _token(workspace)
    other, _ = _token(workspace, "other")
    assert [api_rate.count_call(row.pk, 100) for _ in range(3)] == [1, 2, 3]
    api_rate.count_call(other.pk, 100)
    assert api_rate.count_call(row.pk, 101) == 1
    assert list(ApiCallCount.objects.filter(token=row).values_list("minute", "calls")) == [(101, 1)]
    assert ApiCallCount.objects.filter(token=other).count() == 1  # another token's minutes are its own


def test_beyond_the_limit_a_429_with_retry_after_and_other_tokens_unaffected(workspace, settings):
    settings.TIDELINE_API_RATE_PER_MINUTE = 3
    _, first = _token(workspace)
    _, second = _token(workspace, "second")

    def whoami(token):
        return Client().get("/api/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {token}")

    if time.time() % 60 > 55:
        time.sleep(60 - time.time() % 60 + 0.1)
    answers = [whoami(first) for _ in range(5)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429, 429]
    assert answers[-1].json()["error"]["kind"] == "rate_limited" and 1 <= int(answers[-1]["Retry-After"]) <= 60
    assert whoami(second).status_code == 200
