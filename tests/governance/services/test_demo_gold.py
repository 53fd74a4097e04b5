"""The demo ships a gold set on which the self-improvement loop runs end to end (governance.services.demo_gold)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from governance.models import GoldSet
from governance.services import demo_gold, proposals
from memory.engine import tuning as T
from memory.services import tuning as tuning_service
from memory.services.demo import load_demo
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
QUESTION = "Replying to Rui Costa about the cost dashboard: email or phone call?"
ANSWER = "I prefer email to phone calls for anything non-urgent."


def test_the_demo_loop_proposes_clears_its_bar_applies_changes_recall_and_reverts():
    demo = load_demo()
    ws = demo.workspace
    gold = GoldSet.objects.get(workspace=ws, name=demo_gold.NAME)
    assert gold.approved and gold.approved_by_name == "demo-approver" and gold.created_by == "demo-owner"
    assert gold.cases.count() == len(demo_gold.CASES)  # every answer is among the demo's facts
    load_demo()  # a second load adds no second set
    assert GoldSet.objects.filter(workspace=ws).count() == 1
    users = {u.username: u for u in get_user_model().objects.filter(username__startswith="demo-")}
    memory = Tideline(ws, embedder=None)

    def answers() -> list[str]:
        return [h.content for h in memory.recall(QUESTION, k=10, reinforce=False)]

    assert ANSWER not in answers()  # the shipped cut leaves it out
    proposal, why = proposals.propose_from_recall_misses(ws)
    assert proposal is not None and "expected MRR gain on unseen questions" in why
    assert [c["name"] for c in proposals.describe_change(proposal)] == ["match_cut"]
    assert proposal.tuning["match_cut"] < T.DEFAULT.match_cut
    proposals.request_evaluation(proposal, user=users["demo-owner"], actor="demo-owner", inline=True)
    proposal.refresh_from_db()
    assert proposal.clears_bar is True, proposal.bar_reason
    default = proposal.report["capabilities"]["default"]
    assert default["candidate"]["precision"] < default["baseline"]["precision"]  # the trade is shown, not hidden
    proposals.approve(proposal, user=users["demo-approver"], actor="demo-approver", reason="the trips are found")
    proposals.apply(proposal, user=users["demo-owner"], actor="demo-owner")
    assert ANSWER in answers()
    proposals.revert(proposal, user=users["demo-owner"], actor="demo-owner")
    assert ANSWER not in answers() and tuning_service.current(ws)[1] == T.DEFAULT
