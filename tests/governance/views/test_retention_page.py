"""The retention page (/w/<ws>/retention/): members read it, admins add, edit, enable, disable, remove
and apply policies (a typed confirmation for a run); bad input is a message on the page, never a 500."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from governance.models import RetentionPolicy
from governance.services import retention
from memory.engine.facts import records as R
from memory.models import Fact, MemoryEvent
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")
OLD = timezone.now() - timedelta(days=40)
FORM = {"op": "save", "name": "chat logs", "segments": ["context"], "age": "30", "age_unit": "d", "basis": "created",
        "action": "archive", "keep_confirmed": "on", "keep_permanent": "on", "enabled": "on"}  # fmt: skip


@pytest.fixture
def world(workspace, personas):
    tl = Tideline(workspace)
    tl.add("We talked about the ferry timetable on Tuesday.", segment="context", now=OLD)
    tl.add("The ferry leaves at nine from pier four.", segment="context", origin=PEER, now=OLD)
    tl.add("I prefer the ferry over the bus.", segment="preference", now=OLD)
    return workspace, personas


def _url(workspace, query=""):
    return f"/w/{workspace.name}/retention/{query}"


def _admin(client, world):
    workspace, users = world
    client.force_login(users["admin"])
    return workspace


def test_an_admin_adds_a_policy_previews_it_applies_it_and_sees_the_run(client, world):
    workspace = _admin(client, world)
    response = client.post(_url(workspace), FORM)
    policy = RetentionPolicy.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"?preview={policy.pk}#retention-preview")
    page = client.get(response["Location"]).content.decode()
    assert "What “chat logs” would take now" in page and 'id="retention-takes">2<' in page
    assert "facts of any origin, segment context" in page and "older than 30 days since it was written" in page
    assert page.count('href="/w/acme/facts/mem_') == 2
    refused = client.post(_url(workspace), {"op": "apply", "policy": policy.pk, "confirm": "3"})
    assert refused.status_code == 400 and "the confirmation did not match" in refused.content.decode()
    assert not Fact.objects.filter(lifecycle="archived").exists()
    done = client.post(_url(workspace), {"op": "apply", "policy": policy.pk, "confirm": "2"}, follow=True)
    text = done.content.decode()
    assert "Applied 1 policy: 2 facts archived, 0 purged" in text and 'id="retention-runs"' in text
    assert Fact.objects.filter(lifecycle="archived").count() == 2
    assert MemoryEvent.objects.get(kind="retention_run").actor == "user:ada"
    assert "<td data-label=\"Archived\">2</td>" in text


def test_editing_saves_a_new_version_and_the_form_is_prefilled(client, world):
    workspace = _admin(client, world)
    policy = retention.create(workspace, {"name": "chat logs", "segments": ["context"], "max_age_seconds": "2w"}, actor="t")
    page = client.get(_url(workspace, f"?edit={policy.pk}")).content.decode()
    assert 'value="chat logs"' in page and 'value="2"' in page and '<option value="w" selected>' in page
    client.post(_url(workspace), {**FORM, "policy": policy.pk, "age": "7"})
    policy.refresh_from_db()
    assert (policy.version, policy.max_age_seconds) == (2, 7 * 86400)


def test_enable_disable_and_remove(client, world):
    workspace = _admin(client, world)
    policy = retention.create(workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    client.post(_url(workspace), {"op": "disable", "policy": policy.pk})
    policy.refresh_from_db()
    assert not policy.enabled and policy.version == 2
    client.post(_url(workspace), {"op": "enable", "policy": policy.pk})
    client.post(_url(workspace), {"op": "remove", "policy": policy.pk})
    assert not RetentionPolicy.objects.exists()
    assert [e.data["change"] for e in MemoryEvent.objects.filter(kind="settings_changed").order_by("revision")] == [
        "created", "disabled", "enabled", "deleted"]


def test_the_ladder_form_adds_one_policy_per_rung(client, world):
    workspace = _admin(client, world)
    client.post(_url(workspace), {"op": "ladder", "by": "tiers", "rung_short": "1 hour", "rung_long": "1 year",
                                  "rung_permanent": "never", "basis": "created", "action": "archive",
                                  "keep_confirmed": "on", "keep_permanent": "on"})  # fmt: skip
    assert sorted((p.tiers[0], p.max_age_seconds) for p in RetentionPolicy.objects.all()) == [("long", 365 * 86400), ("short", 3600)]


@pytest.mark.parametrize(("change", "words"), [
    ({"segments": []}, "no scope would expire every fact"),
    ({"age": "-5"}, "more than zero"),
    ({"age": "0"}, "more than zero"),
    ({"age": "soon"}, "not an age"),
    ({"age": ""}, "how old a fact may get"),
    ({"name": ""}, "give the policy a name"),
    ({"name": "x" * 101}, "at most 100 characters"),
    ({"segments": ["gossip"]}, "unknown segments: gossip"),
    ({"action": "burn"}, "archive or purge"),
    ({"age_unit": "fortnights"}, "unknown unit"),
    ({"origin_kind": "owner", "origin_key": PEER.key}, "is not of kind"),
])  # fmt: skip
def test_bad_input_is_a_message_on_the_page_and_changes_nothing(client, world, change, words):
    workspace = _admin(client, world)
    revision = workspace.revision
    response = client.post(_url(workspace), {**FORM, **change})
    assert response.status_code == 400
    text = response.content.decode()
    assert 'role="alert"' in text and "nothing was changed" in text
    if words:
        assert words in text
    workspace.refresh_from_db()
    assert workspace.revision == revision and not RetentionPolicy.objects.exists()


def test_unknown_policies_and_actions_are_messages_not_errors(client, world):
    workspace = _admin(client, world)
    for data in ({"op": "remove", "policy": "999"}, {"op": "apply", "policy": "nope", "confirm": "1"}, {"op": "explode"},
                 {"op": "enable", "policy": "\x00"}):  # fmt: skip
        response = client.post(_url(workspace), data)
        assert response.status_code == 400 and 'role="alert"' in response.content.decode()
    assert client.get(_url(workspace, "?preview=999&edit=999")).status_code == 200


@pytest.mark.parametrize("role", ["owner", "approver"])
def test_owners_and_approvers_read_it_but_may_not_change_or_apply(client, world, role):
    workspace, users = world
    policy = retention.create(workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    client.force_login(users[role])
    page = client.get(_url(workspace, f"?preview={policy.pk}")).content.decode()
    assert "chat" in page and "Admins add, change and apply retention policies" in page
    assert 'name="op"' not in page  # no form to change or apply
    for data in (FORM, {"op": "apply", "policy": policy.pk, "confirm": "2"}, {"op": "remove", "policy": policy.pk}):
        assert client.post(_url(workspace), data).status_code == 403
    assert RetentionPolicy.objects.get().version == 1 and not Fact.objects.filter(lifecycle="archived").exists()


def test_outsiders_get_404_and_visitors_the_login_page(client, world):
    workspace, users = world
    assert client.get(_url(workspace))["Location"].startswith("/login/")
    client.force_login(users["outsider"])
    assert client.get(_url(workspace)).status_code == 404
    assert client.post(_url(workspace), FORM).status_code == 404
    assert not RetentionPolicy.objects.exists()


def test_apply_all_takes_the_workspace_name_and_runs_every_enabled_policy(client, world):
    workspace = _admin(client, world)
    retention.create(workspace, {"name": "mine", "origin_kind": "owner", "max_age_seconds": "30d"}, actor="t")
    retention.create(workspace, {"name": "peers", "origin_kind": "channel", "max_age_seconds": "30d"}, actor="t")
    retention.create(workspace, {"name": "off", "tiers": ["short"], "max_age_seconds": "1d", "enabled": False}, actor="t")
    page = client.get(_url(workspace)).content.decode()
    assert "3 facts would be taken" in page
    assert client.post(_url(workspace), {"op": "apply", "confirm": "globex"}).status_code == 400
    done = client.post(_url(workspace), {"op": "apply", "confirm": "acme"}, follow=True).content.decode()
    assert "Applied 2 policies: 3 facts archived" in done
    assert sorted(e.data["name"] for e in MemoryEvent.objects.filter(kind="retention_run")) == ["mine", "peers"]


def test_the_preview_lists_each_facts_text_origin_and_age_linked_to_it(client, world):
    workspace = _admin(client, world)
    policy = retention.create(workspace, {"name": "chat logs", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    page = client.get(_url(workspace, f"?preview={policy.pk}")).content.decode()
    listed = page.split('<ul class="retention-facts">')[1].split("</ul>")[0]
    assert listed.count("<li>") == 2 and listed.count('href="/w/acme/facts/mem_') == 2
    assert "We talked about the ferry timetable on Tuesday." in listed and "The ferry leaves at nine from pier four." in listed
    assert "the owner · written" in listed and "a peer on slack, conversation team, session s1 · written" in listed
    # Its age in words, the exact moment in the console's one date format (and machine-readable).
    assert f'title="{OLD:%Y-%m-%d %H:%M}">1\xa0month, 1\xa0week ago</time>' in listed
    assert "Facts 1–2 of 2" in page and 'id="retention-more"' not in page


def test_a_long_preview_shows_one_page_and_says_how_many_more(client, world):
    workspace = _admin(client, world)
    tl = Tideline(workspace)
    for n in range(25):
        tl.add(f"Old note number {n} about the harbour.", segment="context", now=OLD)
    policy = retention.create(workspace, {"name": "chat logs", "segments": ["context"], "max_age_seconds": "30d"}, actor="t")
    page = client.get(_url(workspace, f"?preview={policy.pk}")).content.decode()
    assert page.split('<ul class="retention-facts">')[1].split("</ul>")[0].count("<li>") == 20
    assert "Facts 1–20 of 27" in page and "and 7 more on the next page." in page and 'rel="next"' in page
    second = client.get(_url(workspace, f"?preview={policy.pk}&page=2")).content.decode()
    assert "Facts 21–27 of 27" in second and 'id="retention-more"' not in second


def test_a_policy_that_takes_nothing_says_so(client, world):
    workspace = _admin(client, world)
    policy = retention.create(workspace, {"name": "far future", "segments": ["context"], "max_age_seconds": "3650d"}, actor="t")
    page = client.get(_url(workspace, f"?preview={policy.pk}")).content.decode()
    assert "This policy would take no fact now" in page and "retention-facts" not in page
    assert "Apply every enabled policy now" not in page  # nothing to apply: no button for it


def test_the_ladder_is_named_in_the_products_words(client, world):
    workspace = _admin(client, world)
    page = client.get(_url(workspace)).content.decode()
    ladder = page.split('id="retention-ladder"')[1].split("</section>")[0]
    assert "Preset: the default retention ladder" in ladder and "TTL" not in page and "Seed" not in page
    assert "Expire short-term memory after 30 days and long-term memory after a year" in ladder
    made = client.post(_url(workspace), {"op": "ladder", "by": "tiers", "rung_short": "30 days", "rung_long": "1 year",
                                         "rung_permanent": "never", "basis": "created", "action": "archive"}, follow=True)  # fmt: skip
    assert "Added 2 policies from the default retention ladder" in made.content.decode()


def test_the_explanations_and_command_lines_are_behind_help(client, world):
    workspace = _admin(client, world)
    page = client.get(_url(workspace)).content.decode()
    outside = "".join(part.split("</details>", 1)[-1] for part in page.split('<details class="help">'))
    assert "tideline retention" not in outside and "Recall hides a fact past its policy" not in outside
    assert "tideline retention list|preview|apply" in page and "Recall hides a fact past its policy" in page
    empty = page.split('class="empty"')[1].split("</p>")[0]
    assert "No retention policy yet" in empty and 'href="#retention-form"' in empty  # says what to do


def test_readers_are_told_whom_to_ask_when_there_is_no_policy(client, world):
    workspace, users = world
    client.force_login(users["owner"])
    page = client.get(_url(workspace)).content.decode()
    assert "Ask an admin of acme to add one." in page
