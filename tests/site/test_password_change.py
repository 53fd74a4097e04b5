"""Everyone can change their own password (the demo's is public) and reset a forgotten one by mail;
the old password is checked through the login throttle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from tests.personas import make_user

pytestmark = pytest.mark.django_db

OLD, NEW = "pw-olga-old-4821", "tide-chart-moon-7731"


@pytest.fixture
def olga(db):
    return make_user("olga", email="olga@example.com", password=OLD)


@pytest.fixture
def mail_dir(settings, tmp_path):
    settings.EMAIL_BACKEND = "tideline_site.mail.ConsoleAndFileBackend"  # the default: console and files
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    return tmp_path / "mail"


def _change(client, old, new=NEW, address="192.0.2.10"):
    return client.post("/password/change/", {"old_password": old, "new_password1": new, "new_password2": new},
                       REMOTE_ADDR=address)  # fmt: skip


def _logs_in(client, password) -> bool:
    client.logout()
    response = client.post("/login/", {"username": "olga", "password": password}, REMOTE_ADDR="192.0.2.20")
    return response.status_code == 302 and "_auth_user_id" in client.session


def test_the_top_bar_links_to_the_password_change_and_the_login_page_to_the_reset(client, olga):
    assert 'href="/password/reset/"' in client.get("/login/").content.decode()
    client.force_login(olga)
    page = client.get("/password/change/")
    assert page.status_code == 200 and 'href="/password/change/"' in page.content.decode()


def test_a_password_change_takes_effect_and_keeps_the_session(client, olga):
    client.force_login(olga)
    response = _change(client, OLD)
    assert response.status_code == 302 and response["Location"] == "/password/change/done/"
    assert "Password changed" in client.get("/password/change/done/").content.decode()  # still logged in
    assert _logs_in(client, NEW) and not _logs_in(client, OLD)


def test_a_wrong_old_password_is_refused_and_changes_nothing(client, olga):
    client.force_login(olga)
    response = _change(client, "not-my-password")
    assert response.status_code == 200 and "old password was entered incorrectly" in response.content.decode()
    assert _logs_in(client, OLD)


def test_wrong_old_passwords_count_as_failed_logins_and_lock_the_account_out(client, olga):
    client.force_login(olga)
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _change(client, f"guess-{n}").status_code == 200
    assert _change(client, "guess-last").status_code == 429
    locked = _change(client, OLD)  # even the right one, from that address, until the cool-off ends
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    olga.refresh_from_db()
    assert olga.check_password(OLD)
    client.logout()
    assert client.post("/login/", {"username": "olga", "password": OLD}, REMOTE_ADDR="192.0.2.10").status_code == 429


def test_a_weak_new_password_is_refused_with_the_rules(client, olga):
    client.force_login(olga)
    response = _change(client, OLD, new="password")
    assert response.status_code == 200 and "too common" in response.content.decode()


def test_a_reset_mail_is_written_and_its_link_sets_a_new_password_once(client, olga, mail_dir):
    response = client.post("/password/reset/", {"email": "olga@example.com"})
    assert response.status_code == 302 and response["Location"] == "/password/reset/sent/"
    assert "Check your email" in client.get("/password/reset/sent/").content.decode()
    (message,) = list(Path(mail_dir).iterdir())
    text = message.read_text()
    assert "olga@example.com" in text and "reset your password" in text
    link = re.search(r"http://testserver(/password/reset/\S+/)", text).group(1)

    form = client.get(link, follow=True)  # Django swaps the token for a session-held one
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302 and done["Location"] == "/password/reset/done/"
    assert _logs_in(client, NEW) and not _logs_in(client, OLD)
    client.logout()
    again = client.get(link, follow=True)
    assert "This link no longer works" in again.content.decode()


def test_a_reset_for_an_unknown_address_says_the_same_and_sends_nothing(client, olga, mail_dir):
    response = client.post("/password/reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302 and response["Location"] == "/password/reset/sent/"
    assert not mail_dir.exists() or not list(mail_dir.iterdir())


def test_the_pages_need_no_login_except_the_change(client):
    assert client.get("/password/change/")["Location"].startswith("/login/")
    assert client.get("/password/reset/").status_code == 200
