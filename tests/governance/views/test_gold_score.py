"""Scoring a gold set from the recall playground: /w/<ws>/gold/score/ shows what recall returns on the
set's queries now (the workspace's facts, its settings in force, nothing reinforced) and the figures
the evaluation harness computes, overall and per category."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from governance.models import GoldCase, GoldSet
from governance.services import proposal_eval
from memory.models import Fact, MemoryEvent
from memory.services.recall.evaluation import PLACEHOLDER

pytestmark = pytest.mark.django_db


@pytest.fixture
def facts(tl):
    """Four facts written through the write path; each query below finds exactly the facts named."""
    return {
        "sax": tl.add("Maya keeps a saxophone in the study.", segment="knowledge").id,
        "scope": tl.add("Maya keeps a telescope on the balcony.", segment="knowledge").id,
        "hyacinth": tl.add("Maya waters the hyacinth every Sunday.", segment="knowledge").id,
        "tea": tl.add("Maya prefers green tea in the morning.", segment="preference").id,
    }


def _set(workspace, cases, *, name="playground", kind="live"):
    gold = GoldSet.objects.create(workspace=workspace, name=name, kind=kind, source="playground", created_by="olga")
    for position, (query, keys, category) in enumerate(cases):
        GoldCase.objects.create(gold_set=gold, case_id=f"c{position + 1}", query=query, relevant_keys=keys,
                                category=category, position=position)  # fmt: skip
    return gold


@pytest.fixture
def gold(workspace, facts):
    return _set(workspace, [
        ("where is the saxophone", [facts["sax"]], "music"),  # recall: sax — found at #1
        ("what does Maya keep", [facts["tea"]], "music"),  # recall: sax, telescope — missed
        ("what about hyacinth", [facts["hyacinth"], facts["tea"]], "garden"),  # recall: hyacinth — one of two
        ("what is my favourite football team", [], "none"),  # nothing should come back, and nothing does
        (PLACEHOLDER, [facts["tea"]], "music"),  # not written yet: not scored
    ])  # fmt: skip


def _score(client, workspace, **params):
    return client.get(reverse("governance:gold-score", args=[workspace.name]), params)


def _cells(page: str, row_start: str) -> list[str]:
    row = page.split(row_start, 1)[1].split("</tr>", 1)[0]
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def _case(page: str, number: int) -> str:
    return page.split(f'id="case-{number}"', 1)[1].split('<li class="score-case', 1)[0]


def test_the_figures_are_the_ones_worked_out_by_hand(personas, workspace, gold, facts):
    """At k = 8: c1 finds its fact first (RR 1); c2 gets two hits, neither relevant (RR 0); c3 gets one
    of its two facts first (RR 1, nDCG 1 / (1 + 1/log2 3) = 0.613). hit@8 and MRR 2/3, nDCG
    (1 + 0 + 0.613) / 3 = 0.538, precision 2 relevant of 4 returned, 4/3 hits per question."""
    page = _score(personas.client_for(personas.owner), workspace, set=gold.pk, k=8).content.decode()
    assert "playground: 4 cases at k = 8" in page
    assert _cells(page, 'id="score-overall">') == ["all", "3", "0.667", "0.667", "0.538", "0.500", "1.33"]
    assert _cells(page, "<td>music</td>") == ["2", "0.500", "0.500", "0.500", "0.333", "1.50"]
    assert _cells(page, "<td>garden</td>") == ["1", "1.000", "1.000", "0.613", "1.000", "1.00"]
    assert "1 case with no relevant fact, where nothing should come back (nothing did)" in page
    assert "1 case still has the placeholder query and is not scored." in page
    assert re.search(rf'<strong>1 missed</strong> \(no relevant fact in the first 8\): <a href="\?set={gold.pk}&amp;k=8#case-2">c2</a>', page)


def test_each_case_shows_its_query_its_relevant_facts_and_what_came_back_relevant_ones_marked(personas, workspace,
                                                                                             gold, facts):  # fmt: skip
    page = _score(personas.client_for(personas.owner), workspace, set=gold.pk, k=8).content.decode()
    found = _case(page, 1)
    assert "found at #1" in found and "where is the saxophone" in found
    assert '<li class="score-relevant-hit"><span class="badge bar-clears">✓ relevant</span> Maya keeps a saxophone' in found
    missed = _case(page, 2)
    assert "missed" in missed and "what does Maya keep" in missed
    assert f"<code>{facts['tea']}</code></a>: <strong>not returned</strong>" in missed
    assert "Maya prefers green tea in the morning." in missed  # what it should have found, in words
    assert "Maya keeps a saxophone" in missed and "Maya keeps a telescope" in missed and "✓ relevant" not in missed
    half = _case(page, 3)
    assert f"<code>{facts['hyacinth']}</code></a>: returned at #1" in half
    assert f"<code>{facts['tea']}</code></a>: <strong>not returned</strong>" in half
    quiet = _case(page, 4)
    assert "nothing should come back" in quiet and "nothing came back" in quiet
    assert PLACEHOLDER not in page.split('id="score-cases"', 1)[1]


def test_the_cases_can_be_narrowed_to_the_missed_ones(personas, workspace, gold, facts):
    client = personas.client_for(personas.owner)
    page = _score(client, workspace, set=gold.pk, k=8).content.decode()
    assert f'href="?set={gold.pk}&amp;k=8&amp;only=missed" id="show-missed">Show only the 1 missed</a>' in page
    page = _score(client, workspace, set=gold.pk, k=8, only="missed").content.decode()
    cases = page.split('id="score-cases"', 1)[1]
    assert "Missed cases" in cases and cases.count('<li class="score-case') == 1 and 'id="case-2"' in cases
    assert _cells(page, 'id="score-overall">')[1:3] == ["3", "0.667"]  # the figures still cover every case


def test_a_live_sets_page_links_to_its_score(personas, workspace, gold):
    page = personas.client_for(personas.approver).get(reverse("governance:gold-detail", args=[workspace.name, gold.pk]))
    url = reverse("governance:gold-score", args=[workspace.name])
    assert f'<a href="{url}?set={gold.pk}" id="score-this-set">Score recall on it now</a>' in page.content.decode()


def test_scoring_changes_nothing_in_the_memory(personas, workspace, gold, facts):
    """The score asks recall passively: no fact is reinforced and no event is written."""
    before = dict(Fact.objects.filter(workspace=workspace).values_list("memory_id", "access_count"))
    events = MemoryEvent.objects.filter(workspace=workspace).count()
    assert _score(personas.client_for(personas.owner), workspace, set=gold.pk, k=8).status_code == 200
    assert dict(Fact.objects.filter(workspace=workspace).values_list("memory_id", "access_count")) == before
    assert MemoryEvent.objects.filter(workspace=workspace).count() == events


def test_k_is_the_one_asked_for(personas, workspace, gold):
    """At k = 1, c2's first hit is all that counts: still one hit per case that got any."""
    page = _score(personas.client_for(personas.owner), workspace, set=gold.pk, k=1).content.decode()
    assert "playground: 4 cases at k = 1" in page and "<th class=\"num\">hit@1</th>" in page
    assert _cells(page, 'id="score-overall">') == ["all", "3", "0.667", "0.667", "0.667", "0.667", "1.00"]


@pytest.mark.parametrize("role", ["owner", "approver", "admin"])
def test_owners_approvers_and_admins_may_score(personas, workspace, gold, role):
    response = _score(personas.client_for(personas[role]), workspace, set=gold.pk, k=8)
    assert response.status_code == 200 and 'id="score-overall"' in response.content.decode()


@pytest.mark.parametrize("who", ["outsider", "stranger"])
def test_someone_outside_the_workspace_gets_the_not_found_page(personas, workspace, gold, who):
    response = _score(personas.client_for(personas[who]), workspace, set=gold.pk, k=8)
    assert response.status_code == 404 and "0.667" not in response.content.decode()


def test_signed_out_the_page_asks_to_log_in(client, workspace, gold):
    response = _score(client, workspace, set=gold.pk)
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_another_workspaces_set_is_not_scored(personas, workspace, other_workspace, gold):
    theirs = _set(other_workspace, [("anything at all", [], "x")], name="theirs")
    page = _score(personas.client_for(personas.owner), workspace, set=theirs.pk).content.decode()
    assert "no such gold set here" in page and 'id="score-overall"' not in page and "theirs" not in page


@pytest.mark.parametrize("params, status, message", [
    ({"set": "1", "k": "0"}, 400, "k is a whole number from 1 to 50"),
    ({"set": "1", "k": "51"}, 400, "k is a whole number from 1 to 50"),
    ({"set": "1", "k": "eight"}, 400, "k is a whole number from 1 to 50"),
    ({"set": "1", "k": "8", "only": "misses"}, 400, "only: “misses” is not a value this page knows; it accepts missed"),
    ({"set": "abc", "k": "8"}, 200, "no such gold set here"),
    ({"set": "", "k": "8"}, 200, "choose a gold set of this workspace"),
])  # fmt: skip
def test_a_bad_request_is_answered_in_words_never_a_server_error(personas, workspace, gold, params, status, message):
    response = _score(personas.client_for(personas.owner), workspace, **params)
    assert response.status_code == status and message in response.content.decode()


def test_an_uploaded_set_is_not_offered_and_says_why(personas, workspace, gold):
    uploaded = _set(workspace, [("where is the saxophone", ["k1"], "music")], name="uploaded", kind="standalone")
    client = personas.client_for(personas.owner)
    page = _score(client, workspace).content.decode()
    assert f'<option value="{uploaded.pk}"' not in page and f'<option value="{gold.pk}"' in page
    assert "1 uploaded set carries its own facts, so it is not scored against this memory" in page
    page = _score(client, workspace, set=uploaded.pk, k=8).content.decode()
    assert "carries its own facts" in page and 'id="score-overall"' not in page


def test_a_long_set_is_cut_at_the_cap_and_says_so(personas, workspace, gold, monkeypatch):
    monkeypatch.setattr(proposal_eval, "MAX_SCORED_CASES", 2)
    page = _score(personas.client_for(personas.owner), workspace, set=gold.pk, k=8).content.decode()
    assert "playground: 2 cases at k = 8" in page
    assert "Only the first 2 cases are scored here; 2 more are left out." in page


def test_a_workspace_without_gold_sets_says_how_to_make_one(personas, workspace, facts):
    page = _score(personas.client_for(personas.owner), workspace).content.decode()
    assert 'id="no-gold-set"' in page and "This workspace has no gold set to score yet." in page
    assert f'href="{reverse("governance:gold", args=[workspace.name])}"' in page
    assert 'id="score-set"' not in page


def test_an_empty_workspace_says_there_is_nothing_to_score_yet(personas, workspace):
    page = _score(personas.client_for(personas.owner), workspace, set="1", k="8").content.decode()
    assert "This workspace has no facts yet, so there is nothing for recall to find and no gold set to score." in page
    assert 'id="score-overall"' not in page


def test_a_set_with_no_written_query_yet_asks_for_the_queries(personas, workspace, facts):
    scaffold = _set(workspace, [(PLACEHOLDER, [facts["tea"]], "preference")], name="scaffold")
    page = _score(personas.client_for(personas.owner), workspace).content.decode()
    assert "No case of this workspace's gold sets has a written query yet" in page
    assert f'href="{reverse("governance:gold-detail", args=[workspace.name, scaffold.pk])}"' in page
    page = _score(personas.client_for(personas.owner), workspace, set=scaffold.pk, k=8).content.decode()
    assert "every case of &#x27;scaffold&#x27; still has the placeholder query: write its queries first" in page
    assert 'id="gold-score"' not in page


# ---------------------------------------------------------------- the playground's way in


def _playground(client, workspace, **params):
    return client.get(reverse("memory:recall-playground", args=[workspace.name]), params).content.decode()


def test_the_playground_offers_the_workspaces_live_sets_to_score_at_its_k(personas, workspace, gold):
    uploaded = _set(workspace, [("q", ["k1"], "x")], name="uploaded", kind="standalone")
    page = _playground(personas.client_for(personas.approver), workspace, q="saxophone", k="5")
    form = page.split('id="gold-score-form"', 1)[1].split("</form>", 1)[0]
    assert f'action="{reverse("governance:gold-score", args=[workspace.name])}"' in page.split('id="gold-score-form"')[0][-200:]
    assert f'<option value="{gold.pk}">playground — 4 cases</option>' in form
    assert f'value="{uploaded.pk}"' not in form
    assert '<input type="hidden" name="k" value="5">' in form and "Score at k = 5" in form


def test_the_playground_says_when_there_is_no_gold_set_to_score(personas, workspace):
    page = _playground(personas.client_for(personas.owner), workspace)
    assert 'id="gold-score-none"' in page and "Right answer" in page
    assert f'href="{reverse("governance:gold", args=[workspace.name])}">Gold sets</a>' in page
