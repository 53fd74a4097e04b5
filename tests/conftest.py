"""Shared fixtures: a private key store, personas and small factories."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.test.signals import setting_changed


@pytest.fixture(autouse=True, scope="session")
def _private_keystore(tmp_path_factory):
    # Keys created by tests never mix with a developer's var/keystore.
    settings.TIDELINE_KEYSTORE_DIR = tmp_path_factory.mktemp("keystore")
    # And in every process a test starts (the CLI, servers): key stores are per workspace id, and a
    # test database's workspace 1 shredding its owner key must never touch a developer's workspace 1.
    os.environ["TIDELINE_KEYSTORE_DIR"] = str(settings.TIDELINE_KEYSTORE_DIR)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The test client and live server speak plain HTTP.
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    # A test reads a use count right after its recall, in its own transaction: written at once.
    # tests/memory/services/recall/test_reinforcement.py covers the batches.
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 0
    # A cache of this session's own, shared with the processes it starts: a token's calls this
    # minute from an earlier run (whose database numbered its tokens alike) must not count here.
    cache_dir = str(tmp_path_factory.mktemp("cache"))
    os.environ["TIDELINE_CACHE_DIR"] = cache_dir
    if settings.CACHES["default"]["BACKEND"].endswith("FileBasedCache"):
        settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": cache_dir}}
        setting_changed.send(sender=None, setting="CACHES", value=settings.CACHES, enter=True)
    yield


@pytest.fixture(autouse=True, scope="session")
def _flush_may_empty_the_event_log():
    # A transactional test ends with Django's flush: one TRUNCATE of every table, which the event
    # log refuses on PostgreSQL (migration 0007) unless the session sets
    # `tideline.allow_event_truncate`. Only that flush gets the setting, so every test itself runs
    # against the production refusal.
    from django.db import connections
    from django.test import TransactionTestCase

    original = TransactionTestCase._fixture_teardown

    def teardown(self):
        postgres = [connections[alias] for alias in self._databases_names(include_mirrors=False)
                    if connections[alias].vendor == "postgresql"]  # fmt: skip
        for conn in postgres:
            with conn.cursor() as cursor:
                cursor.execute("SET tideline.allow_event_truncate = 'on'")
        try:
            original(self)
        finally:
            for conn in postgres:
                with conn.cursor() as cursor:
                    cursor.execute("RESET tideline.allow_event_truncate")

    TransactionTestCase._fixture_teardown = teardown
    yield
    TransactionTestCase._fixture_teardown = original


@pytest.fixture
def workspace(db):
    from memory.services.workspaces import create_workspace

    return create_workspace("acme")


@pytest.fixture
def other_workspace(db):
    from memory.services.workspaces import create_workspace

    return create_workspace("globex")


@pytest.fixture(autouse=True)
def _fresh_key_store_binding():
    # The binding row rolls back with each test; a verification cached by the previous test must not
    # stand in for it (each test's first write binds its own database to the session key store).
    from memory.services.keys import binding as key_binding

    key_binding.forget()
    yield


@pytest.fixture(autouse=True)
def _fresh_token_counts():
    # API tokens count their use in the process; a rolled-back test's token id may come back.
    from governance.services import tokens

    tokens.forget_use()
    yield


@pytest.fixture(autouse=True)
def _no_batches_left_behind():
    # Recall's use counts and the recall log are written in batches off the request; a test that
    # batched them (a flush interval of a minute) and never flushed must not leave its rows for the
    # next test, or for the process's exit after the test database is gone.
    from governance.services import recall_log
    from memory.services.recall import reinforcement

    yield
    reinforcement.pending.take()
    recall_log.pending.take()


@pytest.fixture(autouse=True)
def _fresh_recall_indexes():
    # Recall indexes live in the process: a test must never see another test's (rolled-back) memory.
    from memory.services.recall.index import registry

    registry.clear()
    yield
    registry.clear()


@pytest.fixture
def tl(workspace):
    """The agent-facing facade over the test workspace."""
    from memory.tideline import Tideline

    return Tideline(workspace, actor="test")


@pytest.fixture
def owner(workspace):
    """A console user who owns the test workspace: olga, password "pw-olga-123"."""
    from tests.personas import make_user

    return make_user("olga", "owner", workspace=workspace)


@pytest.fixture
def personas(workspace, other_workspace, owner):
    """The test workspace's cast (tests/personas.py): owner, approver, admin, an outsider who holds every
    role in another workspace, and a stranger in none; `personas[role]`, `personas.client_for(user)`."""
    from tests.personas import cast

    return cast(workspace, other_workspace, owner=owner)
