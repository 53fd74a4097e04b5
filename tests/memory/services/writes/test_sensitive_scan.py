"""`tideline scan` over facts stored before writes were screened: counted by kind; --reclassify raises
them to PII with an event each and holds a fact with a secret in clear for a person; the inspector and
the facts list say what the text holds."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from governance.models import ReviewItem
from memory.models import Fact, MemoryEvent
from memory.services.writes import policy
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
KEY = "AKIAQUORVITHSCAN0001"


@pytest.fixture
def old_facts(workspace, monkeypatch):
    """Facts as an older version stored them: nothing screened."""
    monkeypatch.setattr(policy, "screen_sensitive",
                        lambda new, content: policy.Screened(content, (), new.classification))  # fmt: skip
    tl = Tideline(workspace)
    ids = {
        "email": tl.add("My e-mail is maya.okafor@example.org.", segment="identity").id,
        "phone": tl.add("Call me on +351 912 345 678 after six.", segment="knowledge").id,
        "secret": tl.add(f"The staging AWS key is {KEY}.", segment="knowledge").id,
        "plain": tl.add("I like green tea in the morning.", segment="preference").id,
    }
    monkeypatch.undo()
    return ids


def _scan(capsys, *args) -> dict:
    call_command("tideline", "scan", *args, "--json")
    return json.loads(capsys.readouterr().out)


def test_a_scan_reports_by_kind_and_changes_nothing(old_facts, workspace, capsys):
    report = _scan(capsys, "--workspace", workspace.name)
    assert report["by_kind"] == {"email": 1, "phone": 1, "aws_access_key": 1}
    assert (report["to_raise_count"], report["with_secrets_count"]) == (2, 1)
    assert set(Fact.objects.values_list("classification", flat=True)) == {"INTERNAL"}
    assert not MemoryEvent.objects.filter(kind="reclassified").exists()


def test_reclassify_raises_to_pii_and_holds_a_secret_for_a_person(old_facts, workspace, capsys, client, personas):
    report = _scan(capsys, "--workspace", workspace.name, "--reclassify")
    assert (report["reclassified"], report["held"]) == (2, 1)
    raised = Fact.objects.get(memory_id=old_facts["email"])
    assert raised.classification == "PII"
    event = next(e for e in MemoryEvent.objects.filter(kind="reclassified") if old_facts["email"] in e.fact_ids)
    assert event.data["detected"] == ["email"] and "maya" not in json.dumps(event.data)
    held = Fact.objects.get(memory_id=old_facts["secret"])
    assert held.lifecycle == "held"
    item = ReviewItem.objects.get(fact=held, status="open")
    assert "AWS access key" in item.reason and KEY not in item.reason
    assert old_facts["secret"] not in [h.id for h in Tideline(workspace).recall("staging AWS key")]
    again = _scan(capsys, "--workspace", workspace.name, "--reclassify")
    assert (again["reclassified"], again["held"]) == (0, 0)  # nothing twice

    client.force_login(personas.owner)
    page = client.get(f"/w/{workspace.name}/facts/{old_facts['email']}/").content.decode()
    assert 'id="fact-sensitive">e-mail address<' in page
    listing = client.get(f"/w/{workspace.name}/facts/").content.decode()
    assert "phone number" in listing and 'class="badge sensitive"' in listing


def test_a_replaced_secret_is_named_in_the_inspector(workspace, client, personas):
    fact = Tideline(workspace).add(f"The staging AWS key is {KEY}.", segment="knowledge")
    client.force_login(personas.owner)
    page = client.get(f"/w/{workspace.name}/facts/{fact.id}/").content.decode()
    assert "secret replaced: AWS access key" in page and KEY not in page


def test_the_overview_counts_what_writes_held_by_kind(workspace, client, personas):
    tl = Tideline(workspace)
    tl.add("My e-mail is maya.okafor@example.org.", segment="identity")
    tl.add("Ana's e-mail is ana@example.org and her phone is +44 20 7946 0958.", segment="relationship")
    tl.add(f"The staging AWS key is {KEY}.", segment="knowledge")
    client.force_login(personas.owner)
    page = client.get(f"/w/{workspace.name}/").content.decode()
    card = page.split('id="sensitive-card"')[1].split("</section>")[0]
    assert "e-mail address (2)" in card and "phone number (1)" in card and "AWS access key (1)" in card
    assert "PII" in card and KEY not in page


def test_the_pii_retention_preset_archives_only_peers_personal_data(workspace, client, personas):
    from governance.models import RetentionPolicy

    client.force_login(personas.admin)
    page = client.get(f"/w/{workspace.name}/retention/").content.decode()
    assert 'id="retention-pii-preset"' in page
    form = page.split('id="retention-pii-preset"')[1].split("</form>")[0]
    fields = dict(__import__("re").findall(r'name="(\w+)" value="([^"]*)"', form))
    fields.pop("csrfmiddlewaretoken", None)
    client.post(f"/w/{workspace.name}/retention/save/", fields)
    policy = RetentionPolicy.objects.get()
    assert (policy.classifications, policy.origin_kind, policy.max_age_seconds, policy.action, policy.enabled) == (
        ["PII"], "channel", 90 * 86400, "archive", True)
