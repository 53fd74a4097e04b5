"""In Chromium (ENGINE-SPEC §6.4): an admin downloads the event log with a filter chosen through HTMX and the
file honours it; imports a facts.jsonl through the preview; adds a member who then signs in; and is
refused, on the page, when removing the last admin."""

from __future__ import annotations

import json

import pytest

from memory.models import Fact, MemoryEvent
from memory.services.demo import DEMO_PASSWORD, load_demo
from memory.services.recall.index import registry
from memory.services.workspaces import create_workspace
from tests.browser.conftest import screenshot

pytestmark = pytest.mark.django_db(transaction=True)


def _login(page, live_server, username, password=DEMO_PASSWORD):
    page.goto(live_server.url + "/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")


def test_the_event_log_download_follows_the_filter_chosen_on_screen(live_server, page, tmp_path):
    registry.clear()
    load_demo()
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/events/")
    page.select_option("select[name=kind]", "created")
    page.wait_for_selector("a.event-download[href*='kind=created']")
    with page.expect_download() as download:
        page.click("a.event-download >> text=JSONL")
    path = tmp_path / "events.jsonl"
    download.value.save_as(path)
    kinds = {json.loads(line)["kind"] for line in path.read_text().splitlines()}
    assert kinds == {"created"}
    event = MemoryEvent.objects.filter(kind="exported").latest("revision")
    assert event.data["filters"] == {"kind": "created"} and event.actor == "user:demo-admin"


def test_an_admin_imports_a_file_through_the_preview(live_server, page, tmp_path):
    registry.clear()
    demo = load_demo()
    create_workspace("copy")
    from django.contrib.auth import get_user_model

    from memory.models import Membership

    Membership.objects.create(user=get_user_model().objects.get(username="demo-admin"),
                              workspace=demo.workspace.__class__.objects.get(name="copy"), role="admin")  # fmt: skip
    _login(page, live_server, "demo-admin")
    with page.expect_download() as download:
        page.goto(f"{live_server.url}/w/demo/exports/")
        page.click("text=Download facts.jsonl")
    exported = tmp_path / "facts.jsonl"
    download.value.save_as(exported)
    page.goto(f"{live_server.url}/w/copy/exports/import/")
    page.set_input_files("#import-file", str(exported))
    page.click("text=Upload and preview")
    page.wait_for_selector("text=Preview: nothing has been imported yet")
    assert not Fact.objects.filter(workspace__name="copy").exists()
    screenshot(page, "import-preview")
    page.click("button[value=import]")
    page.wait_for_selector("#job-status >> text=Imported")
    assert Fact.objects.filter(workspace__name="copy").count() == Fact.objects.filter(workspace__name="demo").count()


def test_an_admin_adds_a_member_who_signs_in_and_the_last_admin_stays(live_server, page, browser):
    registry.clear()
    load_demo()
    _login(page, live_server, "demo-admin")
    page.goto(f"{live_server.url}/w/demo/members/")
    page.fill("#new-username", "zoe")
    page.fill("#new-password", "harbour-ferry-4471")
    page.check(".member-add:has(#new-username) input[value=approver]")
    page.click("text=Create and add")
    page.wait_for_selector("#messages >> text=Created the user zoe")
    assert "zoe" in page.locator(".members-table").inner_text()
    screenshot(page, "members")
    row = page.locator(".members-table tr", has_text="demo-admin")
    row.locator("text=Remove…").click()
    page.wait_for_selector("#confirm-removal")
    page.click("#confirm-removal button")
    page.wait_for_selector("#messages >> text=last admin")
    other = browser.new_page()
    _login(other, live_server, "zoe", "harbour-ferry-4471")
    assert "demo" in other.locator("#workspace-table").inner_text()
    other.goto(f"{live_server.url}/w/demo/review/")
    assert other.locator("h1").count() == 1
    other.close()
