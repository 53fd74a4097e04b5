"""Shared fixtures: a private key store, personas and small factories."""

from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture(autouse=True, scope="session")
def _private_keystore(tmp_path_factory):
    # Keys created by tests never mix with a developer's var/keystore.
    settings.TIDELINE_KEYSTORE_DIR = tmp_path_factory.mktemp("keystore")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The test client and live server speak plain HTTP.
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    yield


@pytest.fixture
def workspace(db):
    from memory.services.workspaces import create_workspace

    return create_workspace("acme")


@pytest.fixture
def other_workspace(db):
    from memory.services.workspaces import create_workspace

    return create_workspace("globex")


@pytest.fixture(autouse=True)
def _fresh_recall_indexes():
    # Recall indexes live in the process: a test must never see another test's (rolled-back) memory.
    from memory.services.recall_index import registry

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
    """A console user who owns the test workspace."""
    from django.contrib.auth import get_user_model

    from memory.models import Membership

    user = get_user_model().objects.create_user("olga", password="pw-olga-123")
    Membership.objects.create(user=user, workspace=workspace, role="owner")
    return user
