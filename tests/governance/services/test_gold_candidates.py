"""Gold-case candidates from agents' votes (governance.services.gold_candidates): kept, never approved by
themselves; a person accepts (into the live set "from-signals", unapproved again) or rejects them."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.test import Client

from governance.models import GoldCandidate, GoldSet
from governance.services import gold_candidates, tokens
from memory.services.errors import RequestError
from memory.services.lifecycle.deletion import delete_facts
from memory.services.mutation import mutate
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
QUESTION = "What does Maya drink in the morning?"


@pytest.fixture
def facts(workspace):
    tl = Tideline(workspace, actor="agent:planner")
    return tl, {"tea": tl.add("I prefer tea over coffee in the morning.", segment="preference").id,
                "run": tl.add("I like running early on Saturdays.", segment="preference").id}  # fmt: skip


def test_a_vote_that_names_its_query_through_the_api_waits_as_a_candidate_once(workspace, facts):
    _, ids = facts
    token = tokens.create_token(workspace, name="agent", origin="owner", verbs="read,write", actor="test")[1]

    def vote(body):
        response = Client().post("/api/v1/feedback", data=json.dumps(body), content_type="application/json",
                                 HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
        return response.status_code

    assert vote({"id": ids["tea"], "signal": "up", "query": QUESTION}) == 200
    assert vote({"id": ids["tea"], "signal": "up", "query": f"  {QUESTION} "}) == 200  # the same vote again
    assert vote({"id": ids["run"], "signal": "up"}) == 200  # no query: nothing to learn a case from
    assert vote({"id": ids["run"], "signal": "down", "query": 5}) == 422
    found = list(GoldCandidate.objects.filter(workspace=workspace))
    assert [(c.query, c.memory_id, c.source, c.status) for c in found] == [(QUESTION, ids["tea"], "up_vote", "open")]
    assert found[0].actor.startswith("token:")


def test_an_accepted_up_vote_is_a_case_of_an_unapproved_set_and_a_down_vote_needs_the_answer(workspace, facts, personas):
    tl, ids = facts
    tl.feedback(ids["tea"], "up", query=QUESTION)
    tl.feedback(ids["run"], "down", query=QUESTION)
    up, down = (GoldCandidate.objects.get(source=s) for s in ("up_vote", "down_vote"))
    with pytest.raises(RequestError, match="only") as refused:
        gold_candidates.accept(up, user=personas.approver, actor="abe")  # approvers approve sets, owners edit them
    assert refused.value.kind == "forbidden"
    case = gold_candidates.accept(up, user=personas.owner, actor="olga")
    gold = GoldSet.objects.get(workspace=workspace, name="from-signals")
    assert (case.query, case.relevant_keys, gold.kind, gold.approved) == (QUESTION, [ids["tea"]], "live", False)
    with pytest.raises(RequestError, match="accepted already"):
        gold_candidates.accept(up, user=personas.owner, actor="olga")
    with pytest.raises(RequestError, match="name the fact that answers"):
        gold_candidates.accept(down, user=personas.owner, actor="olga")
    answered = gold_candidates.accept(down, user=personas.owner, actor="olga", query="When does Maya run?",
                                      fact_id=ids["run"])  # fmt: skip
    assert (answered.query, answered.relevant_keys) == ("When does Maya run?", [ids["run"]])
    assert not gold_candidates.open_candidates(workspace).exists()


def test_a_candidate_whose_fact_is_no_longer_active_is_not_accepted_as_its_answer(workspace, facts, personas):
    """A verdict undone holds its fact again: recall can never return it, so it cannot be a case's answer."""
    from memory.models import Fact

    tl, ids = facts
    tl.feedback(ids["tea"], "up", query=QUESTION)
    Fact.objects.filter(workspace=workspace, memory_id=ids["tea"]).update(lifecycle="held")
    with pytest.raises(RequestError, match="no longer active"):
        gold_candidates.accept(GoldCandidate.objects.get(), user=personas.owner, actor="olga")
    case = gold_candidates.accept(GoldCandidate.objects.get(), user=personas.owner, actor="olga", fact_id=ids["run"])
    assert case.relevant_keys == [ids["run"]]


def test_a_rejected_candidate_is_closed_and_a_purged_fact_takes_its_candidates_along(workspace, facts, personas):
    tl, ids = facts
    tl.feedback(ids["tea"], "down", query=QUESTION)
    tl.feedback(ids["run"], "up", query="When does Maya run?")
    rejected = gold_candidates.reject(GoldCandidate.objects.get(memory_id=ids["tea"]), user=personas.admin, actor="ada")
    assert rejected.status == "rejected" and rejected.decided_by_name == "ada"
    with mutate(workspace, actor="test") as m:
        delete_facts(m, [ids["run"], ids["tea"]], reason="purge")
    assert not GoldCandidate.objects.filter(workspace=workspace).exists()


def test_the_command_line_lists_accepts_and_refuses(workspace, facts, personas, capsys):
    tl, ids = facts
    tl.feedback(ids["run"], "down", query="When does Maya go running?")
    call_command("tideline", "gold", "candidates", "--workspace", workspace.name, "--json")
    listed = json.loads(capsys.readouterr().out)["candidates"]
    assert [(c["query"], c["fact"], c["source"]) for c in listed] == [
        ("When does Maya go running?", "I like running early on Saturdays.", "down_vote")]
    pk = str(listed[0]["id"])
    with pytest.raises(SystemExit):
        call_command("tideline", "gold", "accept", "--candidate", pk, "--workspace", workspace.name, "--as", "olga",
                     "--json")  # fmt: skip
    refusal = json.loads(capsys.readouterr().out)["error"]["message"]
    assert "name the fact that answers" in refusal and refusal.endswith("(--fact FACT_ID, or --nothing)")
    call_command("tideline", "gold", "accept", "--candidate", pk, "--nothing", "--workspace", workspace.name, "--as",
                 "olga", "--json")  # fmt: skip
    accepted = json.loads(capsys.readouterr().out)
    assert accepted["gold_set"] == "from-signals" and accepted["relevant_keys"] == []
