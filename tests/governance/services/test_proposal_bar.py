"""Setting a workspace's bar (governance.services.proposal_bar): admins only, one event, evaluations made
under another bar stale; the proposals page and `tideline proposals bar` show and set it."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from governance.engine.proposals import Bar
from governance.services import proposal_bar, proposals
from memory.models import MemoryEvent
from memory.services.errors import RequestError
from tests.governance.services.test_proposals import WORDS, _evaluated, _gold

pytestmark = pytest.mark.django_db


@pytest.fixture
def memory(tl):
    return {word: tl.add(f"Maya keeps a {word} in the study.", segment="knowledge").id for word in WORDS}


def test_only_an_admin_sets_the_bar_and_the_change_is_an_event(workspace, personas):
    assert proposal_bar.asks(workspace) == Bar()
    with pytest.raises(RequestError) as refused:
        proposal_bar.set_bar(workspace, noise_weight=0.02, hit_allowance=0.02, user=personas.owner, actor="olga")
    assert refused.value.kind == "forbidden"
    for bad in ({"noise_weight": "lots", "hit_allowance": 0.02}, {"noise_weight": 0.5, "hit_allowance": 0.02},
                {"noise_weight": 0.02, "hit_allowance": float("nan")}):  # fmt: skip
        with pytest.raises(RequestError, match="is a number from 0 to"):
            proposal_bar.set_bar(workspace, **bad, user=personas.admin, actor="ada")
    asks = proposal_bar.set_bar(workspace, noise_weight="0.02", hit_allowance="0.05", user=personas.admin, actor="ada")
    assert asks == Bar(0.02, 0.05) == proposal_bar.asks(workspace)
    proposal_bar.set_bar(workspace, noise_weight=0.02, hit_allowance=0.05, user=personas.admin, actor="ada")  # no change
    events = MemoryEvent.objects.filter(workspace=workspace, kind="settings_changed", data__what="proposal_bar")
    assert [(e.actor, e.data["before"], e.data["after"]) for e in events] == [
        ("user:ada", {"noise_weight": 0.0, "hit_allowance": 0.01}, {"noise_weight": 0.02, "hit_allowance": 0.05})]


def test_an_evaluation_made_under_another_bar_must_be_run_again(tl, memory, personas):
    ws = tl.workspace
    _gold(ws, [(f"where is the {w}", [memory[w]]) for w in WORDS])
    proposal = _evaluated(proposals.propose_tuning(ws, {"relevance_cut": 0.8}, rationale="less noise",
                                                   user=personas.owner, actor="olga"), personas.owner)  # fmt: skip
    assert proposals.stale_reason(proposal) is None
    proposal_bar.set_bar(ws, noise_weight=0.05, hit_allowance=0.02, user=personas.admin, actor="ada")
    assert "the bar proposals must clear changed" in proposals.stale_reason(proposal)
    proposal = _evaluated(proposal, personas.owner)
    assert proposal.report["asks"] == {"noise_weight": 0.05, "hit_allowance": 0.02}
    assert proposals.stale_reason(proposal) is None


def test_the_proposals_page_shows_the_bar_to_everyone_and_the_form_to_admins(workspace, personas):
    proposal_bar.set_bar(workspace, noise_weight=0.02, hit_allowance=0.02, user=personas.admin, actor="ada")
    owner_page = personas.client_for(personas.owner).get(f"/w/{workspace.name}/proposals/").content.decode()
    assert "less noise: each fact returned that does not answer costs 0.02" in owner_page
    assert 'name="noise_weight"' not in owner_page
    admin = personas.client_for(personas.admin)
    assert 'name="noise_weight"' in admin.get(f"/w/{workspace.name}/proposals/").content.decode()
    response = admin.post(f"/w/{workspace.name}/proposals/bar/", {"noise_weight": "0", "hit_allowance": "0.01"},
                          follow=True)  # fmt: skip
    assert "The bar is now answers first" in response.content.decode() and proposal_bar.asks(workspace) == Bar()
    refused = personas.client_for(personas.owner).post(f"/w/{workspace.name}/proposals/bar/",
                                                        {"noise_weight": "0.05", "hit_allowance": "0.01"}, follow=True)  # fmt: skip
    assert refused.status_code == 200 and "only" in refused.content.decode() and proposal_bar.asks(workspace) == Bar()
    bad = admin.post(f"/w/{workspace.name}/proposals/bar/", {"noise_weight": "9", "hit_allowance": ""}, follow=True)
    assert "the noise weight is a number from 0 to 0.2" in bad.content.decode()


def test_the_command_line_shows_and_sets_the_bar(workspace, personas, capsys):
    call_command("tideline", "proposals", "bar", "--workspace", workspace.name, "--json")
    assert json.loads(capsys.readouterr().out)["noise_weight"] == 0.0
    call_command("tideline", "proposals", "bar", "--workspace", workspace.name, "--noise-weight", "0.05",
                 "--as", personas.admin.username)  # fmt: skip
    assert "the bar of acme: less noise" in capsys.readouterr().out
    assert proposal_bar.asks(workspace) == Bar(0.05, 0.01)
