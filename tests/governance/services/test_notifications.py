"""E-mail when people are needed (governance/services/notifications.py): approvers when a proposal or a
durable promotion awaits them, owners a daily digest, each as they chose on their account page;
names, counts and links only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from governance.models import NotificationPreference
from governance.services import notifications, proposals
from memory.engine.facts import records as R
from memory.models import Membership
from memory.tideline import Tideline
from tests.canary import CANARY

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")


@pytest.fixture
def addresses(personas):
    for user in (personas.owner, personas.approver, personas.admin):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
    return personas


def test_approvers_hear_of_a_proposal_but_not_its_author(addresses, workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        proposal = proposals.propose_tuning(workspace, {"ngram_floor": 0.5}, rationale=f"{CANARY} typos",
                                            user=addresses.owner, actor="olga")  # fmt: skip
    assert [m.to for m in mail.outbox] == [["abe@example.org"]]
    message = mail.outbox[0]
    assert f"proposal #{proposal.pk}" in message.subject and workspace.name in message.subject
    assert f"/w/{workspace.name}/proposals/{proposal.pk}/" in message.body
    assert CANARY not in message.body and CANARY not in message.subject

    mail.outbox.clear()
    Membership.objects.create(user=addresses.approver, workspace=workspace, role="owner")
    with django_capture_on_commit_callbacks(execute=True):  # an approver's own proposal is not theirs to approve
        proposals.propose_tuning(workspace, {"ngram_floor": 0.4}, rationale="again", user=addresses.approver, actor="abe")
    assert mail.outbox == []


def test_a_durable_promotion_tells_the_approvers(addresses, workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        held = Tideline(workspace).add(f"The customer's legal name is {CANARY} Ribeiro.", segment="identity", origin=PEER)
    assert held.outcome == "held"
    assert [m.to for m in mail.outbox] == [["abe@example.org"]]
    assert f"review item #{held.review_item_id}" in mail.outbox[0].subject
    assert CANARY not in mail.outbox[0].body


def test_no_address_or_a_no_means_no_mail(addresses, workspace, django_capture_on_commit_callbacks):
    notifications.set_preference(addresses.approver, approvals=False, review_digest=True)
    with django_capture_on_commit_callbacks(execute=True):
        proposals.propose_tuning(workspace, {"ngram_floor": 0.5}, rationale="typos", actor="olga")
    assert mail.outbox == []
    notifications.set_preference(addresses.approver, approvals=True, review_digest=True)
    addresses.approver.email = ""
    addresses.approver.save(update_fields=["email"])
    with django_capture_on_commit_callbacks(execute=True):
        proposals.propose_tuning(workspace, {"ngram_floor": 0.4}, rationale="typos", actor="olga")
    assert mail.outbox == []


def test_owners_get_one_digest_a_day_of_their_open_queue(addresses, workspace):
    assert notifications.send_review_digests() == {"sent": 0, "skipped": 0}  # nothing open: nothing sent
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    tl.add(f"The user lives in Madrid now, says {CANARY}.", segment="knowledge", subject_key="home_city",
           source_type="tool_output")  # fmt: skip
    mail.outbox.clear()
    assert notifications.send_review_digests()["sent"] == 1
    (digest,) = mail.outbox
    assert digest.to == ["olga@example.org"]
    assert f"{workspace.name}: 1 open (1 quarantine)" in digest.body
    assert f"/w/{workspace.name}/review/" in digest.body and CANARY not in digest.body
    assert notifications.send_review_digests() == {"sent": 0, "skipped": 1}  # once a day
    tomorrow = timezone.now() + timedelta(days=1)
    assert notifications.send_review_digests(now=tomorrow)["sent"] == 1
    notifications.set_preference(addresses.owner, approvals=True, review_digest=False)
    assert notifications.send_review_digests(now=tomorrow + timedelta(days=1)) == {"sent": 0, "skipped": 1}


def test_the_account_page_keeps_each_persons_choice(addresses):
    assert Client().get("/account/notifications/").status_code == 302
    client = Client()
    client.force_login(addresses.approver)
    page = client.get("/account/notifications/")
    assert page.status_code == 200 and b"abe@example.org" in page.content
    bad = client.post("/account/notifications/", {"email": "not an address", "approvals": "on"})
    assert bad.status_code == 200 and b"valid email" in bad.content
    assert not NotificationPreference.objects.exists()
    saved = client.post("/account/notifications/", {"email": "abe@new.example.org", "review_digest": "on"})
    assert saved.status_code == 302
    addresses.approver.refresh_from_db()
    choice = notifications.preference(addresses.approver)
    assert (addresses.approver.email, choice.approvals, choice.review_digest) == ("abe@new.example.org", False, True)
