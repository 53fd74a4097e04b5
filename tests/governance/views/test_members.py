"""Members and workspaces: the service (roles, events, the last admin), the page, the CLI."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from governance.services import members
from memory.models import Membership, MemoryEvent, Workspace
from memory.services.errors import NotFoundError, RequestError
from tests.personas import make_user

pytestmark = pytest.mark.django_db
GOOD_PASSWORD = "harbour-ferry-4471"


@pytest.fixture
def people(workspace):
    # Its own small cast, named in the assertions: ada the only admin, bo an owner, cy in no workspace.
    make_user("ada", "admin", workspace=workspace)
    make_user("bo", "owner", workspace=workspace)
    make_user("cy")
    return workspace


def _events(workspace):
    return list(MemoryEvent.objects.filter(workspace=workspace, kind="members_changed").order_by("revision"))


def test_add_change_and_remove_record_one_event_each_without_secrets(people):
    ws = people
    added = members.add_member(ws, "cy", ["approver", "owner"], actor="user:ada")
    assert added.roles == ("owner", "approver")
    assert members.set_roles(ws, "cy", ["approver"], actor="user:ada") == (("owner", "approver"), ("approver",))
    assert members.remove_member(ws, "cy", actor="user:ada") == ("approver",)
    created = members.create_member(ws, "dee", GOOD_PASSWORD, ["owner"], actor="user:ada", email="dee@example.com")
    assert created.email == "dee@example.com" and get_user_model().objects.get(username="dee").check_password(GOOD_PASSWORD)
    changes = [(e.data["change"], e.data["username"], e.data["before"], e.data["after"], e.actor) for e in _events(ws)]
    assert changes == [("added", "cy", [], ["owner", "approver"], "user:ada"),
                       ("roles", "cy", ["owner", "approver"], ["approver"], "user:ada"),
                       ("removed", "cy", ["approver"], [], "user:ada"),
                       ("created", "dee", [], ["owner"], "user:ada")]  # fmt: skip
    assert GOOD_PASSWORD not in json.dumps([e.data for e in _events(ws)])
    assert [m.username for m in members.list_members(ws)] == ["ada", "bo", "dee"]


def test_the_last_admin_is_never_removed_or_demoted(people):
    ws = people
    with pytest.raises(RequestError, match="last admin"):
        members.remove_member(ws, "ada", actor="user:ada")
    with pytest.raises(RequestError, match="last admin"):
        members.set_roles(ws, "ada", ["owner"], actor="user:ada")
    assert members.member(ws, "ada").roles == ("admin",) and not _events(ws)
    members.set_roles(ws, "bo", ["owner", "admin"], actor="user:ada")
    members.set_roles(ws, "ada", ["owner"], actor="user:bo")  # another admin exists now
    assert members.member(ws, "ada").roles == ("owner",)


@pytest.mark.parametrize(("call", "error"), [
    (lambda ws: members.add_member(ws, "nobody", ["owner"], actor="x"), "no user named 'nobody'"),
    (lambda ws: members.add_member(ws, "bo", ["owner"], actor="x"), "already a member"),
    (lambda ws: members.add_member(ws, "cy", ["king"], actor="x"), "unknown role king"),
    (lambda ws: members.add_member(ws, "cy", [], actor="x"), "at least one role"),
    (lambda ws: members.set_roles(ws, "cy", ["owner"], actor="x"), "not a member"),
    (lambda ws: members.remove_member(ws, "cy", actor="x"), "not a member"),
    (lambda ws: members.create_member(ws, "ada", GOOD_PASSWORD, ["owner"], actor="x"), "exists already"),
    (lambda ws: members.create_member(ws, "eve", "123", ["owner"], actor="x"), "password is not accepted"),
    (lambda ws: members.create_member(ws, "e v e", GOOD_PASSWORD, ["owner"], actor="x"), "invalid user name"),
])  # fmt: skip
def test_bad_requests_are_refused_and_change_nothing(people, call, error):
    before = list(Membership.objects.values_list("user__username", "role"))
    with pytest.raises(RequestError, match=error):
        call(people)
    assert list(Membership.objects.values_list("user__username", "role")) == before and not _events(people)
    assert not get_user_model().objects.filter(username__in=["eve", "e v e"]).exists()


def test_a_created_workspace_has_its_admin_and_owner(people):
    ws = members.create_workspace_for("lab", "cy", actor="user:ada")
    assert members.member(ws, "cy").roles == ("owner", "admin")
    assert [e.kind for e in MemoryEvent.objects.filter(workspace=ws).order_by("revision")] == ["workspace_created", "members_changed"]
    with pytest.raises(RequestError, match="exists already"):
        members.create_workspace_for("lab", "cy", actor="user:ada")
    with pytest.raises(NotFoundError):
        members.create_workspace_for("lab2", "nobody", actor="user:ada")
    assert not Workspace.objects.filter(name="lab2").exists()


# ---------------------------------------------------------------- the page


def _login(client, name):
    client.force_login(get_user_model().objects.get(username=name))


def test_members_read_the_list_and_only_admins_change_it(client, people):
    url = f"/w/{people.name}/members/"
    _login(client, "bo")
    page = client.get(url)
    assert page.status_code == 200 and "ada" in page.content.decode() and "Save roles" not in page.content.decode()
    assert client.post(url, {"action": "add", "username": "cy", "roles": ["owner"]}).status_code == 403
    _login(client, "cy")
    assert client.get(url).status_code == 404  # not a member: learns nothing
    client.logout()
    assert client.get(url).status_code == 302


def test_the_admin_adds_changes_and_removes_after_confirming(client, people):
    url = f"/w/{people.name}/members/"
    _login(client, "ada")
    assert "Save roles" in client.get(url).content.decode()
    page = client.post(url, {"action": "add", "username": "cy", "roles": ["approver"]}, follow=True).content.decode()
    assert "Added cy as approver." in page
    asked = client.post(url, {"action": "remove", "username": "cy"})
    assert asked.status_code == 200 and "Remove cy?" in asked.content.decode()
    assert members.member(people, "cy") is not None  # nothing happened yet
    done = client.post(url, {"action": "remove", "username": "cy", "confirmed": "yes"}, follow=True).content.decode()
    assert "Removed cy (was approver)" in done and members.member(people, "cy") is None
    refused = client.post(url, {"action": "roles", "username": "ada", "roles": ["owner"]}, follow=True).content.decode()
    assert "last admin" in refused and "Nothing was changed." in refused
    bad = client.post(url, {"action": "create", "username": "x\x00y", "password": "1", "roles": ["owner"]}, follow=True)
    assert bad.status_code == 200 and "Nothing was changed." in bad.content.decode()


def test_the_member_list_dates_each_membership_like_the_rest_of_the_console(client, people):
    since = Membership.objects.filter(workspace=people, user__username="bo").order_by("created_at").first().created_at
    _login(client, "bo")
    page = client.get(f"/w/{people.name}/members/").content.decode()
    assert f'<time datetime="{since.isoformat()}">{since:%Y-%m-%d %H:%M}</time>' in page


def test_admins_change_roles_where_they_are_listed_and_readers_see_badges(client, people):
    url = f"/w/{people.name}/members/"
    _login(client, "ada")
    table = client.get(url).content.decode().split('class="members-table"')[1].split("</table>")[0]
    roles = table.split('<td data-label="Roles">')[1].split("</td>")[0]
    assert 'class="member-roles"' in roles and "Save roles" in roles  # no second, read-only copy of the roles
    assert 'class="badge role-' not in table and '<td class="member-remove">' in table
    _login(client, "bo")
    table = client.get(url).content.decode().split('class="members-table"')[1].split("</table>")[0]
    assert '<span class="badge role-admin">admin</span>' in table and "member-roles" not in table


def test_the_roles_and_the_command_line_are_explained_behind_help(client, people):
    _login(client, "ada")
    page = client.get(f"/w/{people.name}/members/").content.decode()
    outside = "".join(part.split("</details>", 1)[-1] for part in page.split('<details class="help">'))
    assert "gate durable promotions" not in outside and "tideline members add" not in outside
    assert "gate durable promotions" in page and "tideline members add" in page and "at least 8 characters" in page
    assert "Password <span class=\"muted\">(they can change it later)</span>" in page


def test_admins_and_superusers_create_workspaces_from_the_console(client, people):
    _login(client, "bo")  # an owner only: not allowed
    assert client.get("/workspaces/new/").status_code == 403
    assert "New workspace" not in client.get("/").content.decode()
    _login(client, "ada")
    assert "New workspace" in client.get("/").content.decode()
    made = client.post("/workspaces/new/", {"name": "lab"}, follow=True)
    assert made.redirect_chain[-1][0] == "/w/lab/members/" and "you are its admin and owner" in made.content.decode()
    taken = client.post("/workspaces/new/", {"name": "lab"})
    assert taken.status_code == 400 and "exists already" in taken.content.decode()
    assert client.post("/workspaces/new/", {"name": "Bad Name!"}).status_code == 400


# ---------------------------------------------------------------- the CLI


def _cli(capsys, *args):
    call_command("tideline", *args)
    return capsys.readouterr().out


def _cli_error(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        call_command("tideline", *args, "--json")
    assert exit_.value.code == 2
    return json.loads(capsys.readouterr().out)["error"]


def test_members_from_the_command_line(people, capsys):
    ws = people.name
    assert "added cy to acme as approver" in _cli(capsys, "members", "add", "--workspace", ws, "--user", "cy", "--role", "approver")
    listed = json.loads(_cli(capsys, "members", "list", "--workspace", ws, "--json"))
    assert {m["username"]: m["roles"] for m in listed["members"]} == {"ada": ["admin"], "bo": ["owner"], "cy": ["approver"]}
    assert "cy is now owner, approver" in _cli(capsys, "members", "roles", "--workspace", ws, "--user", "cy",
                                                "--role", "owner", "--role", "approver")  # fmt: skip
    assert _cli_error(capsys, "members", "remove", "--workspace", ws, "--user", "ada")["kind"] == "last_admin"
    assert _cli_error(capsys, "members", "add", "--workspace", ws, "--user", "cy", "--role", "owner", "--as", "bo")["kind"] == "forbidden"
    _cli(capsys, "members", "remove", "--workspace", ws, "--user", "cy", "--as", "ada")
    assert MemoryEvent.objects.filter(workspace=people, kind="members_changed", actor="user:ada").count() == 1


def test_workspace_create_needs_an_admin_and_can_make_one(people, capsys, monkeypatch):
    assert "--admin" in _cli_error(capsys, "workspace", "create", "lab")["message"]
    assert not Workspace.objects.filter(name="lab").exists()
    assert "cy is its admin and owner" in _cli(capsys, "workspace", "create", "lab", "--admin", "cy")
    monkeypatch.setattr("sys.stdin", io.StringIO(GOOD_PASSWORD + "\n"))
    out = json.loads(_cli(capsys, "workspace", "create", "lab2", "--admin", "dee", "--create-user", "--password-stdin", "--json"))
    assert out == {"workspace": "lab2", "admin": "dee", "roles": ["owner", "admin"]}
    assert get_user_model().objects.get(username="dee").check_password(GOOD_PASSWORD)
    monkeypatch.setattr("sys.stdin", io.StringIO(GOOD_PASSWORD + "\n"))
    error = _cli_error(capsys, "workspace", "create", "lab", "--admin", "fay", "--create-user", "--password-stdin")
    assert "exists already" in error["message"] and not get_user_model().objects.filter(username="fay").exists()
    listed = json.loads(_cli(capsys, "workspace", "list", "--json"))["workspaces"]
    assert {w["name"]: w["members"] for w in listed}["lab"] == {"owner": 1, "admin": 1}


def test_a_refused_password_reads_as_sentences_without_a_doubled_stop(client, people):
    client.force_login(get_user_model().objects.get(username="ada"))
    page = client.post(f"/w/{people.name}/members/", {"action": "create", "username": "eve", "password": "password",
                                                      "roles": ["owner"]}, follow=True).content.decode()  # fmt: skip
    assert "This password is too common. Nothing was changed." in page and "common.." not in page
