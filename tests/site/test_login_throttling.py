"""Repeated failed logins lock out that username from that address, with a page that says so."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from tests.personas import make_user

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture
def users(db):
    return make_user("olga"), make_user("otto")  # passwords pw-olga-123, pw-otto-123


def _login(client, username, password, address="192.0.2.10"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def _guess_wrong(client, username, times, address="192.0.2.10"):
    return [_login(client, username, f"guess-{n}", address) for n in range(times)]


def test_two_failures_never_lock_a_user_out_and_ten_always_do(client, users):
    """The limit is a handful: a typo or two is forgiven, a guessing run is not."""
    _guess_wrong(client, "olga", 2)
    assert _login(client, "olga", "pw-olga-123").status_code == 302
    client.logout()
    assert _guess_wrong(client, "otto", 10)[-1].status_code == 429
    response = _login(client, "otto", "pw-otto-123")
    assert response.status_code == 429 and "Too many failed logins" in response.content.decode()


def test_after_the_limit_even_the_right_password_is_refused_with_a_lockout_page(client, users):
    responses = _guess_wrong(client, "olga", LIMIT)
    assert [r.status_code for r in responses[:-1]] == [200] * (LIMIT - 1)  # the form again, "did not match"
    assert responses[-1].status_code == 429

    response = _login(client, "olga", "pw-olga-123")
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many failed logins" in page and "olga" in page and "minutes" in page
    assert "_auth_user_id" not in client.session
    assert client.get("/").status_code == 302  # still anonymous


def test_another_user_from_the_same_address_is_unaffected(client, users):
    _guess_wrong(client, "olga", LIMIT)
    response = _login(client, "otto", "pw-otto-123")
    assert response.status_code == 302 and client.session["_auth_user_id"] == str(users[1].pk)


def test_the_same_user_from_another_address_is_unaffected(client, users):
    _guess_wrong(client, "olga", LIMIT, address="192.0.2.66")
    assert _login(client, "olga", "pw-olga-123", address="192.0.2.10").status_code == 302


def test_a_successful_login_resets_the_count(client, users):
    _guess_wrong(client, "olga", LIMIT - 1)
    assert _login(client, "olga", "pw-olga-123").status_code == 302
    client.logout()
    _guess_wrong(client, "olga", LIMIT - 1)
    assert _login(client, "olga", "pw-olga-123").status_code == 302


def test_the_admin_login_is_throttled_too(client, db):
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    for n in range(LIMIT):
        client.post("/admin/login/", {"username": "root", "password": f"guess-{n}", "next": "/admin/"},
                    REMOTE_ADDR="192.0.2.10")  # fmt: skip
    response = client.post("/admin/login/", {"username": "root", "password": "pw-root-123", "next": "/admin/"},
                           REMOTE_ADDR="192.0.2.10")  # fmt: skip
    assert response.status_code == 429 and "_auth_user_id" not in client.session


def test_behind_a_proxy_the_address_is_the_one_the_proxy_appended(client, users, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")  # TIDELINE_BEHIND_PROXY=1

    def login(password, forwarded):
        return client.post("/login/", {"username": "olga", "password": password}, REMOTE_ADDR="10.0.0.1",
                           HTTP_X_FORWARDED_FOR=forwarded)  # fmt: skip

    # A client that invents a new first entry each time is still one address to the proxy.
    for n in range(LIMIT):
        login(f"guess-{n}", f"203.0.113.{n}, 198.51.100.7")
    assert login("pw-olga-123", "203.0.113.99, 198.51.100.7").status_code == 429
    assert login("pw-olga-123", "198.51.100.8").status_code == 302


def test_without_a_proxy_x_forwarded_for_is_ignored_and_the_socket_address_counts(client, users, settings):
    settings.SECURE_PROXY_SSL_HEADER = None  # TIDELINE_BEHIND_PROXY unset
    for n in range(LIMIT):  # every guess claims another address; they all come from 127.0.0.1
        client.post("/login/", {"username": "olga", "password": f"guess-{n}"}, REMOTE_ADDR="127.0.0.1",
                    HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")  # fmt: skip
    response = client.post("/login/", {"username": "olga", "password": "pw-olga-123"}, REMOTE_ADDR="127.0.0.1",
                           HTTP_X_FORWARDED_FOR="198.51.100.9")  # fmt: skip
    assert response.status_code == 429 and "_auth_user_id" not in client.session
