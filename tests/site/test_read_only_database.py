"""A database that accepts no writes: the console shows a 503 page and the CLI one line with exit 2.

SQLite is made read-only with `PRAGMA query_only` (file permissions do not stop root, which CI may
be), PostgreSQL with `transaction_read_only` (what `default_transaction_read_only` gives every
transaction): both refuse writes with the errors a read-only deployment raises.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.db import connection, transaction

pytestmark = pytest.mark.django_db


@contextmanager
def read_only_database():
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA query_only = ON")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA query_only = OFF")
        return
    # PostgreSQL: inside a savepoint, whose rollback also undoes the SET (the test's own transaction
    # must be writable again for pytest-django's checks at teardown).
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET transaction_read_only = on")
        yield
        transaction.set_rollback(True)


@pytest.mark.parametrize("password", ["pw-olga-123", "a wrong password"])  # a failure is recorded by axes: a write
def test_logging_in_on_a_read_only_database_shows_a_503_page(client, owner, password):
    client.raise_request_exception = False
    with read_only_database():
        response = client.post("/login/", {"username": "olga", "password": password})
    page = response.content.decode()
    assert response.status_code == 503, page[:500]
    assert "Temporarily unavailable" in page and "read-only" in page
    assert "Traceback" not in page and response["Retry-After"]


def test_pages_that_only_read_still_work_on_a_read_only_database(client, owner, workspace):
    client.force_login(owner)
    with read_only_database():
        assert client.get(f"/w/{workspace.name}/facts/").status_code == 200


def test_other_database_errors_are_not_disguised_as_read_only():
    from django.db import IntegrityError, OperationalError

    from memory.services.errors import is_read_only_error

    assert is_read_only_error(OperationalError("attempt to write a readonly database"))
    assert not is_read_only_error(IntegrityError("UNIQUE constraint failed: memory_fact.memory_id"))
    assert not is_read_only_error(ValueError("readonly database"))


def test_the_cli_says_the_database_is_read_only_in_one_line(workspace, capsys):
    with read_only_database(), pytest.raises(SystemExit) as exit_:
        call_command("tideline", "add", "I keep a strict vegetarian diet.", "--workspace", workspace.name,
                     "--segment", "preference", "--json")  # fmt: skip
    assert exit_.value.code == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "environment" and "read-only" in error["message"]
    with read_only_database(), pytest.raises(SystemExit):
        call_command("tideline", "add", "I keep a strict vegetarian diet.", "--workspace", workspace.name,
                     "--segment", "preference")  # fmt: skip
    err = capsys.readouterr().err
    assert err.startswith("error: the database is read-only") and err.count("\n") == 1
