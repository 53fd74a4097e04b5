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
