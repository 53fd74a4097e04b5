"""Webhooks (governance/services/webhooks.py) against a real HTTP server on this machine: queued in the
change's own transaction, signed, retried with backoff, given up, never sent to a private address
unless allowed, never carrying content."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import transaction
from django.utils import timezone

from governance.engine import webhooks as rules
from governance.models import ReviewItem, WebhookDelivery
from governance.services import proposals, retention, verdicts, webhooks
from memory.engine.facts import records as R
from memory.services.errors import RequestError
from memory.services.keys.crypto_shred import shred_origin
from memory.services.lifecycle.retract_and_purge import purge_facts
from memory.tideline import Tideline
from tests.canary import CANARY
from tests.governance.services.test_proposals import _gold

pytestmark = pytest.mark.django_db
PEER = R.Origin("channel", "slack", "team", "s1")


class Receiver:
    """A webhook receiver: records each call, answers with the next status of `answers` (then 200)."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.answers: list[int] = []
        self.delay = 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.calls.append({"headers": dict(self.headers), "body": body, "path": self.path})
                time.sleep(receiver.delay)
                self.send_response(receiver.answers.pop(0) if receiver.answers else 200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/tideline?src=test"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def documents(self) -> list[dict]:
        return [json.loads(call["body"]) for call in self.calls]


@pytest.fixture
def receiver(settings):
    settings.TIDELINE_WEBHOOKS_ALLOW_PRIVATE = True  # the receiver is on this machine
    settings.TIDELINE_WEBHOOK_TIMEOUT_SECONDS = 1.0
    found = Receiver()
    yield found
    found.server.shutdown()


@pytest.fixture
def hook(receiver, workspace):
    row, secret = webhooks.add(workspace, url=receiver.url, events=list(rules.EVENTS), actor="admin")
    return row, secret


def _deliver() -> dict:
    return webhooks.deliver_due()


def test_a_held_write_and_its_verdict_are_signed_calls_with_ids_and_counts_only(hook, receiver, workspace):
    row, secret = hook
    tl = Tideline(workspace)
    tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    held = tl.add(f"The user lives in Madrid now, says {CANARY}.", segment="knowledge", subject_key="home_city",
                  source_type="tool_output")  # fmt: skip
    verdicts.decide(workspace, held.review_item_id, "block", actor="olga", reason=f"{CANARY} is wrong")
    assert _deliver()["delivered"] == 2
    opened, decided = receiver.documents()
    assert (opened["event"], opened["workspace"], opened["data"]) == (
        "review.opened", workspace.name, {"review_item": held.review_item_id, "kind": "quarantine", "facts": 1})
    assert decided["event"] == "review.decided" and decided["data"]["verdict"] == "block"
    for call in receiver.calls:
        headers = {k.lower(): v for k, v in call["headers"].items()}
        assert rules.verify(secret, headers["x-tideline-signature"], call["body"], now=time.time())
        assert not rules.verify("whsec_not-the-secret", headers["x-tideline-signature"], call["body"], now=time.time())
        assert headers["x-tideline-event"] in ("review.opened", "review.decided")
        assert call["path"] == "/hooks/tideline?src=test"
        assert CANARY.lower() not in call["body"].decode().lower() and "madrid" not in call["body"].decode().lower()
    assert WebhookDelivery.objects.filter(status="delivered").count() == 2


def test_purge_shred_retention_and_proposals_are_events_too(hook, receiver, workspace):
    tl = Tideline(workspace)
    gone = tl.add("The spare key is under the mat.", segment="knowledge")
    tl.add("The peer likes short replies.", segment="preference", origin=PEER)
    purge_facts(workspace, [gone.id], actor="admin", reason="asked")
    shred_origin(workspace, PEER.key, actor="admin")
    retention.create(workspace, {"name": "chat", "segments": ["context"], "max_age_seconds": "30d"}, actor="admin")
    retention.apply(workspace, actor="admin")
    kept = tl.add("Maya keeps a hyacinth in the study.", segment="knowledge")
    stale = tl.add("The office plant needs water on Mondays.", segment="knowledge")
    _gold(workspace, [("where is the hyacinth", [kept.id])])
    proposal = proposals.propose_retraction(workspace, [stale.id], rationale="stale", actor="olga")
    proposals.request_evaluation(proposal, actor="olga")  # inline: TIDELINE_Q_SYNC
    proposal.refresh_from_db()
    proposals.approve(proposal, actor="abe", reason="not needed")
    proposals.revert(proposals.apply(proposal, actor="abe"), actor="abe")
    _deliver()
    events = [doc["event"] for doc in receiver.documents()]
    assert events == ["purge", "shred", "retention.run", "proposal.applied", "proposal.reverted"]
    purge, shred = receiver.documents()[:2]
    assert purge["data"]["facts"] == 1 and purge["data"]["hard"] is True
    assert shred["data"] == {"origin": PEER.key, "facts": 1, "revision": shred["data"]["revision"]}


def test_a_failing_receiver_is_retried_with_backoff_then_given_up(hook, receiver, workspace):
    receiver.answers = [500, 503]
    webhooks.emit(workspace, "purge", facts=1, hard=True)
    assert _deliver() == {"delivered": 0, "retrying": 1, "failed": 0}
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.last_status) == ("pending", 1, 500)
    wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
    assert 25 < wait <= 30
    assert _deliver() == {"delivered": 0, "retrying": 0, "failed": 0}  # not due yet
    later = timezone.now() + timedelta(seconds=31)
    assert webhooks.deliver_due(now=later)["retrying"] == 1
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_status) == (2, 503)
    assert 55 < (delivery.next_attempt_at - later).total_seconds() <= 60
    assert webhooks.deliver_due(now=later + timedelta(seconds=61))["delivered"] == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 3)

    receiver.answers = [500]
    ping = webhooks.ping(workspace, hook[0].pk)  # a test call is made at once and tried once
    assert (ping.status, ping.attempts, ping.last_status) == ("failed", 1, 500)
    assert [rules.retry_after(n) for n in range(1, rules.MAX_ATTEMPTS + 1)] == [30, 60, 120, 240, 480, 960, 1920, None]


def test_a_slow_receiver_times_out_and_is_tried_again(hook, receiver, workspace, settings):
    settings.TIDELINE_WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.delay = 1.0
    started = time.perf_counter()
    webhooks.ping(workspace, hook[0].pk)
    assert time.perf_counter() - started < 0.9
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and "timed out" in delivery.last_error.lower()


def test_private_and_loopback_addresses_are_refused_unless_allowed(settings, workspace, monkeypatch):
    settings.TIDELINE_WEBHOOKS_ALLOW_PRIVATE = False
    for url in ("http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/x", "http://169.254.169.254/latest",
                "http://[::1]/x", "http://0.0.0.0/x", "ftp://example.org/x", "https://user:pw@example.org/x",
                "not a url", "https:///nohost"):  # fmt: skip
        with pytest.raises(RequestError):
            webhooks.add(workspace, url=url, events=["purge"], actor="admin")
    # A name that resolved to a public address when added and to a private one when called is refused then.
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("93.184.215.14", port))])
    row, _ = webhooks.add(workspace, url="https://hooks.example.org/x", events=["purge"], actor="admin")
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, **kw: [(2, 1, 6, "", ("10.0.0.7", port))])
    sent = webhooks.send(row.url, "s", "ping", 1, {})
    assert not sent.ok and "private address" in sent.error


def test_the_calls_commit_with_the_change_or_not_at_all(hook, workspace):
    with pytest.raises(RuntimeError), transaction.atomic():
        webhooks.emit(workspace, "purge", facts=3, hard=True)
        raise RuntimeError("the change failed")
    assert not WebhookDelivery.objects.exists()
    webhooks.emit(workspace, "purge", facts=3, hard=True)
    assert WebhookDelivery.objects.count() == 1


def test_one_delivery_is_claimed_by_one_worker(hook, workspace):
    webhooks.emit(workspace, "purge", facts=1, hard=True)
    now = timezone.now()
    first = webhooks._claim(now)
    assert first is not None and webhooks._claim(now) is None
    # A worker that died holding it: the claim is taken again after CLAIM_SECONDS.
    assert webhooks._claim(now + timedelta(seconds=webhooks.CLAIM_SECONDS + 1)).pk == first.pk


def test_paused_unsubscribed_and_removed_webhooks_get_nothing(hook, receiver, workspace, personas):
    row, _ = hook
    only_shred, _ = webhooks.add(workspace, url=receiver.url, events=["shred"], actor="admin")
    webhooks.change(workspace, row.pk, action="pause", actor="admin")
    assert webhooks.emit(workspace, "purge", facts=1, hard=True) == 0
    webhooks.change(workspace, row.pk, action="resume", actor="admin")
    assert webhooks.emit(workspace, "purge", facts=1, hard=True) == 1
    _, new_secret = webhooks.change(workspace, row.pk, action="rotate", actor="admin")
    assert new_secret.startswith("whsec_") and new_secret != hook[1]
    webhooks.change(workspace, row.pk, action="remove", actor="admin")
    assert webhooks.emit(workspace, "purge", facts=1, hard=True) == 0
    with pytest.raises(RequestError, match="admins"):
        webhooks.add(workspace, url=receiver.url, events=["purge"], user=personas.owner, actor="olga")
    with pytest.raises(RequestError, match="unknown event"):
        webhooks.add(workspace, url=receiver.url, events=["everything"], actor="admin")
    assert ReviewItem.objects.count() == 0 and only_shred.events == ["shred"]


def test_no_word_of_the_demo_reaches_a_webhook(receiver, django_capture_on_commit_callbacks):
    """Every event on the demo workspace, and not one of its facts' words in any call."""
    from memory.services.demo import load_demo
    from memory.services.writes.interchange import export_facts
    from tests.canary import assert_no_content

    demo = load_demo()
    workspace = demo.workspace
    contents = [record["content"] for record in export_facts(workspace=workspace)]
    webhooks.add(workspace, url=receiver.url, events=list(rules.EVENTS), actor="admin")
    item = ReviewItem.objects.filter(workspace=workspace, status="open").first()
    verdicts.decide(workspace, item.pk, "coexist" if item.kind == "contradiction" else "block", actor="admin",
                    reason="checked")  # fmt: skip
    first = workspace.facts.filter(origin_key="owner", lifecycle="active").order_by("pk").first()
    purge_facts(workspace, [first.memory_id], actor="admin")
    peer = workspace.facts.exclude(origin_key="owner").values_list("origin_key", flat=True).first()
    shred_origin(workspace, peer, actor="admin")
    _deliver()
    assert {doc["event"] for doc in receiver.documents()} >= {"review.decided", "purge", "shred"}
    text = "\n".join(call["body"].decode() + json.dumps(call["headers"]) for call in receiver.calls)
    documents = receiver.documents()
    for doc in documents:  # a shred names the origin it shredded (an id, as a receiver needs it)
        assert doc["data"].pop("origin", peer) == peer
    assert_no_content(text, contents, values=json.dumps(documents))
