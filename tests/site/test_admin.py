"""Django's admin is for superusers only and shows memory records without a way to change them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from memory.models import Fact, Link, MemoryEvent
from memory.tideline import Tideline
from tests.personas import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")


@pytest.fixture
def staff(db):
    return make_user("staffer", password="pw-staff-123", is_staff=True)


@pytest.fixture
def linked(workspace, owner):
    tl = Tideline(workspace)
    first = Fact.objects.get(memory_id=tl.add("I live in Porto.", segment="identity").id)
    second = Fact.objects.get(memory_id=tl.add("I take the metro to work in Porto every day.", segment="context").id)
    Link.objects.create(workspace=workspace, from_fact=second, to_fact=first, kind="relates")
    return workspace


def test_a_staff_user_who_is_not_a_superuser_cannot_open_the_admin(client, staff):
    client.force_login(staff)
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get("/admin/memory/membership/").status_code == 302


def test_the_admin_login_form_refuses_a_staff_user_who_is_not_a_superuser(client, staff):
    response = client.post("/admin/login/?next=/admin/", {"username": "staffer", "password": "pw-staff-123",
                                                           "next": "/admin/"})  # fmt: skip
    assert response.status_code == 200 and "superuser" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_superuser_opens_the_admin(client, superuser):
    client.force_login(superuser)
    assert client.get("/admin/").status_code == 200


@pytest.mark.parametrize("model", ["workspace", "membership", "fact", "link", "memoryevent"])
def test_memory_records_are_viewable_but_cannot_be_added_changed_or_deleted(client, superuser, linked, model):
    client.force_login(superuser)
    changelist = client.get(f"/admin/memory/{model}/")
    assert changelist.status_code == 200
    assert client.get(f"/admin/memory/{model}/add/").status_code == 403
    record = changelist.context["cl"].result_list[0]
    detail = client.get(f"/admin/memory/{model}/{record.pk}/change/")
    assert detail.status_code == 200 and detail.context["has_change_permission"] is False
    assert client.post(f"/admin/memory/{model}/{record.pk}/change/", {}).status_code == 403
    assert client.post(f"/admin/memory/{model}/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    bulk = client.post(f"/admin/memory/{model}/", {"action": "delete_selected", "_selected_action": [record.pk],
                                                   "post": "yes"})  # fmt: skip
    assert bulk.status_code in (200, 302)
    assert type(record).objects.filter(pk=record.pk).exists()


def test_links_survive_the_admin_with_their_events_intact(client, superuser, linked):
    client.force_login(superuser)
    link = Link.objects.get(workspace=linked)
    events = MemoryEvent.objects.count()
    client.post(f"/admin/memory/link/{link.pk}/delete/", {"post": "yes"})
    assert Link.objects.filter(pk=link.pk).exists() and MemoryEvent.objects.count() == events
