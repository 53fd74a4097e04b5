"""The proposals and gold-set pages (ENGINE-SPEC §7, §8.1): the loop through the console as two people, each role's
view, and bad input answered with a message on the page (never a 500, nothing changed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.models import GoldSet, Proposal
from memory.models import MemoryEvent
from memory.services import tuning as tuning_service
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
GOLD_DIR = Path(__file__).resolve().parents[2] / "data" / "tideline-gold"
WORDS = ["lisbon", "saxophone", "kilimanjaro", "origami", "pistachio", "trombone", "harmonica", "xylophone", "marzipan",
         "tambourine"]
TYPOS = ["lisbton", "saxaphone", "kilimanjero", "origammi", "pistashio", "trombome", "harmonika", "xylophome", "marzipam",
         "tamborine"]


@pytest.fixture
def world(workspace, personas):
    tl = Tideline(workspace)
    ids = {w: tl.add(f"Maya keeps a {w} in the study.", segment="knowledge").id for w in WORDS}
    return workspace, personas, ids


def _messages(response) -> str:
    return " ".join(str(m) for m in response.context["messages"]) if response.context else ""


def test_the_whole_loop_through_the_console_as_two_people(client, world):
    ws, users, ids = world
    client.force_login(users["owner"])
    response = client.post(f"/w/{ws.name}/gold/", {"action": "scaffold", "size": "10"}, follow=True)
    assert response.status_code == 200
    gold = GoldSet.objects.get(workspace=ws)
    for case in gold.cases.all():
        word = next(w for w in WORDS if case.relevant_keys == [ids[w]])
        client.post(f"/w/{ws.name}/gold/{gold.pk}/", {"action": "edit", "case": case.pk,
                                                      "query": f"where is the {TYPOS[WORDS.index(word)]}"})
    assert "gold-approve" not in client.get(f"/w/{ws.name}/gold/{gold.pk}/").content.decode()  # owners do not approve
    client.force_login(users["approver"])
    response = client.post(f"/w/{ws.name}/gold/{gold.pk}/", {"action": "approve"}, follow=True)
    assert "Approved" in _messages(response)
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="setup")  # typos miss at this floor
    client.force_login(users["owner"])
    response = client.post(f"/w/{ws.name}/proposals/", {"action": "tuning", "ngram_floor": "0.3",
                                                         "rationale": "typos should still find the fact"}, follow=True)
    proposal = Proposal.objects.get(workspace=ws)
    assert response.redirect_chain[-1][0].endswith(f"/proposals/{proposal.pk}/")
    response = client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "evaluate"}, follow=True)  # inline (TIDELINE_Q_SYNC)
    assert "Evaluated" in _messages(response), _messages(response)
    proposal.refresh_from_db()
    assert proposal.evaluation == "done" and proposal.clears_bar, proposal.bar_reason
    page = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/").content.decode()
    assert "Clears the bar" in page and "<svg" in page
    assert "<th>precision</th><th>hits/question</th>" in page and 'class="eval-precision"' in page
    assert "You wrote this proposal: a second person" in page
    response = client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "approve", "reason": "mine"}, follow=True)
    assert "cannot be approved" in _messages(response)
    client.force_login(users["approver"])
    client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "approve", "reason": "helps typos"})
    proposal.refresh_from_db()
    assert proposal.status == "approved" and proposal.decided_by_name == users["approver"].username
    asked = client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "apply"})
    assert b"confirm-action" in asked.content and tuning_service.current(ws)[0] == 1  # asks first
    client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "apply", "confirmed": "yes"})
    assert tuning_service.current(ws)[0] == 2
    response = client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "apply", "confirmed": "yes"}, follow=True)
    assert "applied already" in _messages(response) and tuning_service.current(ws)[0] == 2
    Tideline(ws).feedback(ids["lisbon"], "up")  # an agent's vote on what the new settings served
    page = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/").content.decode()
    assert 'id="traffic"' in page and "version 2, this proposal" in page
    client.post(f"/w/{ws.name}/proposals/{proposal.pk}/", {"action": "revert", "confirmed": "yes", "reason": "test"})
    proposal.refresh_from_db()
    assert proposal.status == "reverted" and tuning_service.current(ws)[1] == tuning_service.values_of(ws, 1)
    actions = list(MemoryEvent.objects.filter(workspace=ws, kind="proposal").order_by("revision")
                   .values_list("data__action", flat=True))
    assert actions == ["proposed", "evaluation_requested", "evaluated", "approved", "applied", "reverted"]
    listing = client.get(f"/w/{ws.name}/proposals/?status=reverted").content.decode()
    assert f"#{proposal.pk}" in listing


def test_each_role_sees_the_pages_and_outsiders_get_404(client, world):
    ws, users, _ = world
    for role in ("owner", "approver", "admin"):
        client.force_login(users[role])
        for url in (f"/w/{ws.name}/proposals/", f"/w/{ws.name}/gold/"):
            assert client.get(url).status_code == 200, (role, url)
    client.force_login(users["approver"])
    page = client.get(f"/w/{ws.name}/proposals/").content.decode()
    assert "Propose settings by hand" not in page and "Owners and admins make proposals" in page
    response = client.post(f"/w/{ws.name}/proposals/", {"action": "telemetry"}, follow=True)
    assert "only owners or admins" in _messages(response) and not Proposal.objects.exists()
    client.force_login(users["outsider"])
    for url in (f"/w/{ws.name}/proposals/", f"/w/{ws.name}/gold/", f"/w/{ws.name}/proposals/1/", f"/w/{ws.name}/gold/1/"):
        assert client.get(url).status_code == 404


@pytest.mark.parametrize("upload, says", [
    (b"not json at all", "is not JSON"),
    (json.dumps({"facts": [], "cases": [], "extra": 1}).encode(), "unknown key(s) ['extra']"),
    (b'{"facts": ' + b"[" * 50_000 + b"]" * 50_000 + b', "cases": []}', "nested too deeply"),  # was a 500
    (b'{"facts": ' + b"[" * 100 + b"]" * 100 + b', "cases": []}', "nests 101 levels"),
])
def test_a_bad_gold_upload_is_a_message_and_adds_nothing(client, world, upload, says):
    from django.core.files.uploadedfile import SimpleUploadedFile

    ws, users, _ = world
    client.force_login(users["owner"])
    response = client.post(f"/w/{ws.name}/gold/", {"action": "upload", "file": SimpleUploadedFile("g.json", upload)},
                           follow=True)
    assert response.status_code == 200 and says in _messages(response) and not GoldSet.objects.exists()


def test_an_uploaded_gold_file_lands_unapproved_and_bad_proposal_input_changes_nothing(client, world):
    from django.core.files.uploadedfile import SimpleUploadedFile

    ws, users, _ = world
    client.force_login(users["admin"])
    raw = (GOLD_DIR / "synthetic.json").read_bytes()
    response = client.post(f"/w/{ws.name}/gold/", {"action": "upload", "file": SimpleUploadedFile("synthetic.json", raw)},
                           follow=True)
    made = GoldSet.objects.get(workspace=ws)
    assert response.status_code == 200 and made.kind == "standalone" and not made.approved
    assert client.get(f"/w/{ws.name}/proposals/999999/").status_code == 404
    response = client.post(f"/w/{ws.name}/proposals/", {"action": "tuning", "ngram_floor": "banana", "rationale": "x"},
                           follow=True)
    assert response.status_code == 200 and _messages(response) and not Proposal.objects.exists()
    response = client.post(f"/w/{ws.name}/proposals/", {"action": "retract", "fact_ids": "m-nope", "rationale": "x"},
                           follow=True)
    assert "no active fact" in _messages(response) and not Proposal.objects.exists()


def test_the_playground_adds_a_gold_case(client, world):
    ws, users, ids = world
    client.force_login(users["owner"])
    page = client.get(f"/w/{ws.name}/recall/?q=lisbon").content.decode()
    assert "Right answer" in page and "should have found" in page
    response = client.post(f"/w/{ws.name}/gold/from-playground/", {"query": "where is lisbon", "memory_id": ids["lisbon"]},
                           follow=True)
    assert "playground" in _messages(response)
    assert GoldSet.objects.get(workspace=ws, name="playground").cases.get().relevant_keys == [ids["lisbon"]]


def test_a_running_evaluation_polls_its_progress_as_a_fragment(client, world):
    ws, users, _ = world
    proposal = Proposal.objects.create(workspace=ws, change="tuning", source="manual", title="t", rationale="r",
                                       tuning={"ngram_floor": 0.5}, author_name="x", evaluation="running",
                                       eval_done=3, eval_total=12)  # fmt: skip
    client.force_login(users["approver"])
    fragment = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment and 'id="evaluation"' in fragment and 'hx-trigger="every 1s"' in fragment
    assert 'value="25"' in fragment and "3 of 12" in fragment
    Proposal.objects.filter(pk=proposal.pk).update(evaluation="failed", eval_error="the evaluation failed: boom")
    fragment = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in fragment and "the evaluation failed: boom" in fragment


def _figures(precision: float | None, per_question: float | None, mrr: float) -> dict:
    out = {"mrr": mrr, "recall_at_k": 1.0, "ndcg_at_k": mrr, "hit_at_k": 1.0, "scored": 4, "abstention_violations": 0}
    if precision is not None:
        out |= {"precision": precision, "hits_per_question": per_question}
    return out


def _evaluated(ws, *, noise: bool) -> Proposal:
    """A proposal whose evaluation is done, with the report an evaluation stores (made before precision and
    hits per question were measured when `noise` is False)."""
    deltas = {name: {"metric": name, "baseline": 0.5, "candidate": 0.75, "mean": 0.25, "ci95": [0.1, 0.4], "pairs": 4}
              for name in ("mrr", "recall_at_k", "ndcg_at_k", "hit_at_k")}  # fmt: skip
    capability = {"baseline": _figures(0.25 if noise else None, 4.0, 0.5),
                  "candidate": _figures(0.8 if noise else None, 1.25, 0.75), "deltas": deltas}  # fmt: skip
    report = {"k": 10, "bar": "beat", "settings_version": 1, "sets": [{"id": 1, "name": "mine", "kind": "live", "cases": 4}],
              "cases": 4, "capabilities": {"default": capability}, "seconds": 1.0, "needed_facts_taken": [],
              "by_category": {"preference": {"baseline": {"n": 4, "mrr": 0.5} | ({"precision": 0.2, "hits_per_question": 5.0} if noise else {}),
                                             "candidate": {"n": 4, "mrr": 0.75} | ({"precision": 0.5, "hits_per_question": 2.0} if noise else {})}},
              "verdict": {"clears": True, "reason": "MRR improves"}}  # fmt: skip
    return Proposal.objects.create(workspace=ws, change="tuning", source="manual", title="t", rationale="r",
                                   tuning={"ngram_floor": 0.5}, author_name="x", evaluation="done", report=report,
                                   clears_bar=True, bar_reason="MRR improves")  # fmt: skip


def test_an_evaluation_shows_precision_and_hits_per_question_beside_mrr(client, world):
    ws, users, _ = world
    proposal = _evaluated(ws, noise=True)
    client.force_login(users["approver"])
    page = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/").content.decode()
    header = page.split('<table class="eval-table">', 1)[1].split("</thead>", 1)[0]
    assert header.index("hit@k") < header.index("<th>precision</th>") < header.index("<th>hits/question</th>")
    precision = page.split('class="eval-precision">', 1)[1].split("</td>", 1)[0]
    assert "0.250 → 0.800" in precision and "Δ 0.550" in precision and "[" not in precision
    per_question = page.split('class="eval-hits_per_question">', 1)[1].split("</td>", 1)[0]
    assert "4.00 → 1.25" in per_question and "Δ -2.75" in per_question
    assert 'id="noise-note"' in page
    by_category = page.split('<table class="eval-by-category">', 1)[1].split("</table>", 1)[0]
    assert "<th>precision</th><th>hits/question</th>" in by_category
    assert "<td>preference</td><td>0.500</td><td>0.750</td><td>0.200 → 0.500</td><td>5.00 → 2.00</td>" in by_category


def test_an_evaluation_made_before_precision_was_measured_still_shows_its_figures(client, world):
    ws, users, _ = world
    proposal = _evaluated(ws, noise=False)
    client.force_login(users["approver"])
    page = client.get(f"/w/{ws.name}/proposals/{proposal.pk}/").content.decode()
    assert "0.500 → 0.750" in page and "hits/question" not in page and 'id="noise-note"' not in page
    assert "<td>preference</td><td>0.500</td><td>0.750</td></tr>" in page


def test_the_navigation_counts_pending_proposals(client, world):
    ws, users, _ = world
    Proposal.objects.create(workspace=ws, change="tuning", source="manual", title="t", rationale="r",
                            tuning={"ngram_floor": 0.5}, author_name="x")  # fmt: skip
    Proposal.objects.create(workspace=ws, change="tuning", source="manual", title="u", rationale="r", status="applied",
                            tuning={"ngram_floor": 0.6}, author_name="x")  # fmt: skip
    client.force_login(users["approver"])
    page = client.get(f"/w/{ws.name}/").content.decode()
    assert '<span class="badge" title="pending proposals">1</span>' in page


def test_a_query_lifted_from_its_fact_is_pointed_out(client, world):
    ws, users, ids = world
    client.force_login(users["owner"])
    client.post(f"/w/{ws.name}/gold/", {"action": "scaffold", "size": "2"})
    gold = GoldSet.objects.get(workspace=ws)
    first, second = gold.cases.all()
    first.query = " ".join(first.hint.split()[:4])  # the fact's own words
    first.save()
    second.query = "what instrument sits by the desk"
    second.save()
    page = client.get(f"/w/{ws.name}/gold/{gold.pk}/").content.decode()
    assert page.count("gold-copied") == 1 and "Every word of this query is the fact's own" in page


def test_the_settings_search_runs_as_a_task_and_the_page_shows_its_bar_then_its_outcome(client, world):
    from django.utils import timezone

    from governance.models import GoldCase, SettingsSearch

    ws, users, ids = world
    gold = GoldSet.objects.create(workspace=ws, name="typos", kind="live", source="upload", created_by="olga",
                                  approved_at=timezone.now(), approved_by_name="abe")  # fmt: skip
    for position, word in enumerate(WORDS):
        GoldCase.objects.create(gold_set=gold, case_id=f"c{position}", query=f"where is the {word}",
                                relevant_keys=[ids[word]], position=position)  # fmt: skip
    client.force_login(users["owner"])
    page = client.post(f"/w/{ws.name}/proposals/misses/", follow=True).content.decode()  # runs inline here
    assert "found nothing to propose" in page and "already finds its fact first" in page
    # While the worker runs it, the part polls itself and the button waits.
    running = SettingsSearch.objects.create(workspace=ws, requested_by_name="olga", status="running", done=30, total=120)
    page = client.get(f"/w/{ws.name}/proposals/").content.decode()
    assert 'id="search-button" disabled' in page and "30 of 120 (25%)" in page
    part = client.get(f"/w/{ws.name}/proposals/searches/{running.pk}/").content.decode()
    assert f'hx-get="/w/{ws.name}/proposals/searches/{running.pk}/"' in part and "<h1>" not in part
    assert client.get(f"/w/{ws.name}/proposals/searches/999999/").status_code == 404
    client.force_login(users["approver"])  # approvers do not search
    response = client.post(f"/w/{ws.name}/proposals/misses/", follow=True)
    assert "only" in _messages(response) and SettingsSearch.objects.count() == 2


def test_the_queued_notice_is_part_of_the_refreshing_evaluation_and_goes_when_the_report_arrives(client, world,
                                                                                                   monkeypatch):
    from governance.services import proposals as proposal_service

    ws, users, ids = world
    client.force_login(users["owner"])
    client.post(f"/w/{ws.name}/gold/", {"action": "scaffold", "size": "6"})
    gold = GoldSet.objects.get(workspace=ws)
    for case in gold.cases.all():
        word = next(w for w in WORDS if case.relevant_keys == [ids[w]])
        client.post(f"/w/{ws.name}/gold/{gold.pk}/", {"action": "edit", "case": case.pk, "query": f"where is the {word}"})
    client.force_login(users["approver"])
    client.post(f"/w/{ws.name}/gold/{gold.pk}/", {"action": "approve"})
    client.force_login(users["owner"])
    response = client.post(f"/w/{ws.name}/proposals/", {"action": "tuning", "ngram_floor": "0.4", "rationale": "typos"},
                           follow=True)  # fmt: skip
    assert Proposal.objects.filter(workspace=ws).exists(), _messages(response)
    proposal = Proposal.objects.get(workspace=ws)
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: None)  # a worker that has not run yet
    url = f"/w/{ws.name}/proposals/{proposal.pk}/"
    response = client.post(url, {"action": "evaluate"}, follow=True)
    assert "queued" not in _messages(response)  # no message that would outlive the evaluation
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "Evaluation queued" in fragment and 'hx-trigger="every 1s"' in fragment and "for a worker" not in fragment
    from datetime import timedelta

    from django.utils import timezone

    queued = Proposal.objects.get(pk=proposal.pk)
    later = timezone.now() + timedelta(minutes=2, seconds=5)
    assert proposal_service.waiting_for_worker(queued) is None  # just queued: no question yet
    assert proposal_service.waiting_for_worker(queued, now=later).startswith(
        "It has waited 2 minutes for a worker: is one running?")
    proposal_service.run_evaluation(proposal.pk)
    for page in (client.get(url, headers={"HX-Request": "true"}), client.get(url)):
        body = page.content.decode()
        assert "Evaluation queued" not in body and 'id="verdict"' in body
