"""`/healthz` and `/readyz` (tideline_site/health.py): unauthenticated, no content, answered before the
host check and the HTTPS redirect; readiness names the check that fails and why."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.test import Client

from tests.keystores import use_key_store
from tideline_site import health

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_probe_state():
    health._state.update(migrated_until=0.0, worker_seen=None)
    yield
    health._state.update(migrated_until=0.0, worker_seen=None)


def test_a_probe_needs_no_login_and_passes_the_host_check_and_the_https_redirect(settings):
    settings.ALLOWED_HOSTS = ["tideline.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    for path in ("/healthz", "/healthz/"):
        response = client.get(path, HTTP_HOST="10.1.2.3:8000")
        assert (response.status_code, response.json()) == (200, {"status": "ok"})
        assert "no-cache" in response["Cache-Control"]
    ready = client.get("/readyz", HTTP_HOST="10.1.2.3:8000")
    assert ready.status_code == 200, ready.json()
    assert client.post("/readyz", HTTP_HOST="10.1.2.3:8000").status_code == 405
    # Anything else still meets the host check.
    assert client.get("/login/", HTTP_HOST="10.1.2.3:8000").status_code == 400


def test_ready_names_every_check(workspace):
    body = Client().get("/readyz").json()
    assert body["ready"] is True and body["failing"] == []
    assert list(body["checks"]) == ["database", "migrations", "key_store", "worker"]
    assert all(check["ok"] and check["detail"] and check["ms"] >= 0 for check in body["checks"].values())


def test_a_migration_not_applied_makes_it_unready_and_says_which(workspace):
    recorder = MigrationRecorder(connection)
    last = recorder.migration_qs.filter(app="governance").order_by("-id").first()
    last_name = last.name
    last.delete()
    try:
        response = Client().get("/readyz")
        assert response.status_code == 503
        body = response.json()
        assert body["failing"] == ["migrations"]
        assert f"governance.{last_name}" in body["checks"]["migrations"]["detail"]
        assert "manage.py migrate" in body["checks"]["migrations"]["detail"]
    finally:
        recorder.record_applied("governance", last_name)
    health._state["migrated_until"] = 0.0
    assert Client().get("/readyz").status_code == 200


def test_a_key_store_that_is_not_this_databases_makes_it_unready(tl, settings, tmp_path):
    tl.add("I live in Porto.", segment="identity")  # binds the database to the running key store
    original = settings.TIDELINE_KEYSTORE_DIR
    use_key_store(settings, keystore=str(tmp_path / "another"))
    try:
        response = Client().get("/readyz")
        assert response.status_code == 503 and response.json()["failing"] == ["key_store"]
        assert "TIDELINE_KEYSTORE_DIR" in response.json()["checks"]["key_store"]["detail"]
    finally:
        use_key_store(settings, keystore=original)


def test_without_a_worker_it_is_unready_unless_the_worker_is_optional(settings):
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "sync": False}
    response = Client().get("/readyz")
    assert response.status_code == 503 and response.json()["failing"] == ["worker"]
    assert "no django-q2 worker has reported" in response.json()["checks"]["worker"]["detail"]
    settings.TIDELINE_READY_WORKER = "optional"
    relaxed = Client().get("/readyz")
    assert relaxed.status_code == 200
    assert relaxed.json()["checks"]["worker"] | {"ms": 0} == {"ok": False, "required": False, "ms": 0,
                                                                "detail": relaxed.json()["checks"]["worker"]["detail"]}
