"""Login, the workspace list and the overview page; outsiders learn nothing; errors are friendly."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_fact

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_are_sent_to_the_login_page(client, workspace):
    for url in ("/", reverse("memory:workspace-overview", args=[workspace.name])):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client.get("/login/").status_code == 200


def test_a_wrong_password_shows_a_clear_message(client, owner):
    response = client.post("/login/", {"username": "olga", "password": "nope"})
    assert response.status_code == 200 and "did not match" in response.content.decode()


def test_a_member_sees_the_workspace_and_its_facts(client, owner, workspace):
    make_fact(workspace, "I keep a strict vegetarian diet.")
    client.force_login(owner)
    assert workspace.name in client.get("/").content.decode()
    dashboard = client.get(reverse("memory:workspace-overview", args=[workspace.name])).content.decode()
    assert "1 fact" in dashboard and "preference" in dashboard and "<rect" in dashboard
    page = client.get(reverse("memory:fact-list", args=[workspace.name])).content.decode()
    assert "I keep a strict vegetarian diet." in page


def test_the_home_page_counts_each_workspaces_facts_once_whatever_the_persons_roles(client, owner, workspace,
                                                                                    other_workspace):  # fmt: skip
    from memory.models import Membership

    for n in range(3):
        make_fact(workspace, f"Fact number {n} about the harbour.", segment="knowledge")
    for role in ("owner", "approver", "admin"):  # three roles in the other one, which holds no fact
        Membership.objects.get_or_create(user=owner, workspace=other_workspace, role=role)
    Membership.objects.get_or_create(user=owner, workspace=workspace, role="approver")
    client.force_login(owner)
    rows = {row["workspace"].name: row["workspace"].fact_count for row in client.get("/").context["rows"]}
    assert rows == {workspace.name: 3, other_workspace.name: 0}


def test_untrusted_content_is_escaped(client, owner, workspace):
    make_fact(workspace, '<img src=x onerror="alert(1)"> <a href="http://evil">x</a>', segment="knowledge",
              source_type="retrieved_document")  # fmt: skip
    client.force_login(owner)
    page = client.get(reverse("memory:fact-list", args=[workspace.name])).content.decode()
    assert "<img src=x" not in page and "&lt;img src=x" in page


def test_a_member_of_another_workspace_gets_a_friendly_404(client, personas, workspace):
    client.force_login(personas.outsider)
    response = client.get(reverse("memory:workspace-overview", args=[workspace.name]))
    assert response.status_code == 404
    assert "Not found" in response.content.decode() and "Traceback" not in response.content.decode()


def test_the_dashboard_says_which_recall_the_workspace_gets(client, owner, workspace, settings):
    from memory.services.recall import embedding

    make_fact(workspace, "I keep a strict vegetarian diet.")
    client.force_login(owner)
    url = reverse("memory:workspace-overview", args=[workspace.name])
    assert "Model-free" in client.get(url).content.decode()
    settings.TIDELINE_EMBEDDER = "minilm"
    page = client.get(url).content.decode()
    fingerprint = embedding.load("minilm").fingerprint
    # The fact was written before the embedder was configured: it has no vector yet.
    assert fingerprint in page and "tideline reembed --workspace acme" in page
    embedding.reembed(workspace, actor="test")
    page = client.get(url).content.decode()
    assert "1 fact carry its vectors" in page.replace("\n", " ") and "tideline reembed" not in page
    settings.TIDELINE_EMBEDDER_PATH = "/nonexistent/model"
    assert "cannot load here" in client.get(url).content.decode()
