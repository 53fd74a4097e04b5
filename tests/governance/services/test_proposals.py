"""Self-improvement proposals: the bar, the second person, apply and revert (ENGINE-SPEC §7, Decision 11)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from governance.models import GoldCase, GoldSet, Proposal
from governance.services import proposals
from memory.models import Fact, MemoryEvent
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError

pytestmark = pytest.mark.django_db

# Ten facts, each with one rare word; each query misspells that word, so only the n-gram lane can
# find the fact, and only when its floor lets a fact that shares no stem through.
WORDS = ["lisbon", "saxophone", "kilimanjaro", "origami", "pistachio", "trombone", "zanzibar", "marmalade",
         "telescope", "hyacinth"]  # fmt: skip
TYPOS = ["lisbton", "saxaphone", "kilimanjero", "origammi", "pistashio", "trombome", "zansibar", "marmalaid",
         "telesckope", "hyasinth"]  # fmt: skip


@pytest.fixture
def memory(tl):
    ids = {}
    for word in WORDS:
        ids[word] = tl.add(f"Maya keeps a {word} in the study.", segment="knowledge").id
    tl.add("Maya prefers green tea in the morning.", segment="preference")
    return ids


def _gold(workspace, cases, *, approver=None):
    gold = GoldSet.objects.create(workspace=workspace, name="typos", kind="live", source="scaffold", created_by="olga")
    for position, (query, keys) in enumerate(cases):
        GoldCase.objects.create(gold_set=gold, case_id=f"c{position}", query=query, relevant_keys=keys,
                                position=position, category="typo")  # fmt: skip
    gold.approved_at, gold.approved_by_name = timezone.now(), "abe"
    gold.save()
    return gold


def _evaluated(proposal, user):
    proposals.request_evaluation(proposal, user=user, actor=user.username)  # runs inline: TIDELINE_Q_SYNC
    proposal.refresh_from_db()
    assert proposal.evaluation == "done", proposal.eval_error
    return proposal


def test_a_telemetry_retraction_of_a_fact_a_gold_case_needs_fails_the_bar_and_cannot_be_approved(tl, memory, personas):
    ws = tl.workspace
    _gold(ws, [(f"where is the {w}", [memory[w]]) for w in WORDS])
    for _ in range(3):
        tl.feedback(memory["origami"], "down")
    made = proposals.propose_from_telemetry(ws)
    assert [p.fact_ids for p in made] == [[memory["origami"]]] and made[0].author_name == "telemetry"
    assert proposals.propose_from_telemetry(ws) == []  # one open proposal per fact
    proposal = _evaluated(made[0], personas.owner)
    assert proposal.clears_bar is False and "gold case needs" in proposal.bar_reason
    with pytest.raises(RequestError, match="does not clear the bar"):
        proposals.approve(proposal, user=personas.approver, actor="abe", reason="looks fine")
    proposal.refresh_from_db()
    assert proposal.status == "pending" and Fact.objects.get(memory_id=memory["origami"]).lifecycle == "active"


def test_a_retraction_no_gold_case_needs_passes_and_is_applied_then_reverted(tl, memory, personas):
    ws = tl.workspace
    _gold(ws, [(f"where is the {w}", [memory[w]]) for w in WORDS[:5]])
    proposal = proposals.propose_retraction(ws, [memory["hyacinth"]], rationale="stale", user=personas.owner,
                                            actor="olga")  # fmt: skip
    proposal = _evaluated(proposal, personas.approver)
    assert proposal.clears_bar is True, proposal.bar_reason
    proposals.approve(proposal, user=personas.approver, actor="abe", reason="not needed")
    proposals.apply(proposal, user=personas.owner, actor="olga")
    assert Fact.objects.get(memory_id=memory["hyacinth"]).status == "retracted"
    assert memory["hyacinth"] not in [h.id for h in tl.recall("hyacinth")]
    with pytest.raises(RequestError, match="applied already"):
        proposals.apply(proposal, user=personas.owner, actor="olga")
    proposals.revert(proposal, user=personas.owner, actor="olga")
    fact = Fact.objects.get(memory_id=memory["hyacinth"])
    assert (fact.lifecycle, fact.status) == ("active", None)
    assert memory["hyacinth"] in [h.id for h in tl.recall("hyacinth")]


def test_protected_facts_cannot_be_proposed_for_retraction(tl, personas):
    pinned = tl.add("My name is Maya Ortiz.", segment="identity").id
    with pytest.raises(RequestError, match="protected"):
        proposals.propose_retraction(tl.workspace, [pinned], rationale="x", user=personas.owner, actor="olga")
    assert not Proposal.objects.exists()


def test_a_settings_proposal_that_helps_passes_is_approved_by_a_second_person_applied_and_reverted(tl, memory, personas):
    ws = tl.workspace
    # A bad version is in force: the n-gram lane may not bring a fact that shares no word.
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="olga", reason="strict")
    _gold(ws, [(f"where is the {typo}", [memory[w]]) for w, typo in zip(WORDS, TYPOS, strict=True)])
    before = {t: [(h.id, h.score) for h in tl.explain(f"where is the {t}")] for t in TYPOS}
    assert all(memory[w] not in [i for i, _ in before[t]] for w, t in zip(WORDS, TYPOS, strict=True))

    proposal = proposals.propose_tuning(ws, {"ngram_floor": 0.3}, rationale="typos miss", user=personas.admin,
                                        actor="ada")  # fmt: skip
    assert proposals.describe_change(proposal) == [
        {"name": "ngram_floor", "label": "n-gram floor for a fact sharing no word", "group": "recall",
         "before": 0.95, "after": 0.3}]  # fmt: skip
    proposal = _evaluated(proposal, personas.owner)
    assert proposal.clears_bar is True, proposal.bar_reason
    deltas = proposal.report["capabilities"]["default"]["deltas"]
    assert deltas["mrr"]["ci95"][0] > 0 and proposal.report["bar"] == "beat"

    with pytest.raises(RequestError, match="author cannot approve"):
        proposals.approve(proposal, user=personas.admin, actor="ada", reason="mine")
    with pytest.raises(RequestError, match="only approvers or admins"):
        proposals.approve(proposal, user=personas.owner, actor="olga", reason="not mine to decide")
    with pytest.raises(RequestError, match="only an approved proposal"):
        proposals.apply(proposal, user=personas.owner, actor="olga")
    proposals.approve(proposal, user=personas.approver, actor="abe", reason="clear gain")
    with pytest.raises(RequestError, match="approved already"):
        proposals.approve(proposal, user=personas.approver, actor="abe", reason="again")
    applied = proposals.apply(proposal, user=personas.owner, actor="olga")
    assert applied.applied == {"from_version": 1, "to_version": 2}

    hits = tl.explain("where is the lisbton")
    assert hits and hits[0].id == memory["lisbon"] and hits[0].components["settings_version"] == 2

    proposals.revert(applied, user=personas.owner, actor="olga")
    assert tuning_service.current(ws)[0] == 3
    after = {t: [(h.id, h.score) for h in tl.explain(f"where is the {t}")] for t in TYPOS}
    assert after == before  # recall exactly as before
    with pytest.raises(RequestError, match="only an applied proposal"):
        proposals.revert(applied, user=personas.owner, actor="olga")
    actions = [e.data["action"] for e in MemoryEvent.objects.filter(workspace=ws, kind="proposal").order_by("revision")]
    assert actions == ["proposed", "evaluation_requested", "evaluated", "approved", "applied", "reverted"]


def test_a_stale_evaluation_must_be_redone_before_approval(tl, memory, personas):
    ws = tl.workspace
    _gold(ws, [(f"where is the {w}", [memory[w]]) for w in WORDS])
    proposal = proposals.propose_tuning(ws, {"graph_weight": 1.5}, rationale="try", user=personas.owner, actor="olga")
    proposal = _evaluated(proposal, personas.owner)
    tuning_service.set_tuning(ws, {"hop_decay": 0.4}, actor="ada")
    with pytest.raises(RequestError, match="evaluate it again"):
        proposals.approve(proposal, user=personas.approver, actor="abe", reason="ok")


def test_evaluation_is_refused_without_an_approved_gold_set_and_says_why(tl, memory, personas):
    ws = tl.workspace
    proposal = proposals.propose_tuning(ws, {"graph_weight": 1.5}, rationale="try", user=personas.owner, actor="olga")
    with pytest.raises(RequestError, match="no gold set"):
        proposals.request_evaluation(proposal, user=personas.owner, actor="olga")
    gold = GoldSet.objects.create(workspace=ws, name="draft", kind="live", source="scaffold", created_by="olga")
    GoldCase.objects.create(gold_set=gold, case_id="c0", query="TODO: rewrite (auto-extraction empty)",
                            relevant_keys=[memory["lisbon"]])  # fmt: skip
    with pytest.raises(RequestError, match="placeholder query"):
        proposals.request_evaluation(proposal, user=personas.owner, actor="olga")
    proposal.refresh_from_db()
    assert proposal.evaluation == "none"


def test_recall_misses_propose_settings_from_a_bounded_search(tl, memory, personas):
    ws = tl.workspace
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="olga")
    _gold(ws, [(f"where is the {typo}", [memory[w]]) for w, typo in zip(WORDS, TYPOS, strict=True)])
    proposal, why = proposals.propose_from_recall_misses(ws)
    assert proposal is not None and proposal.source == "recall_misses" and proposal.author_name == "telemetry"
    assert proposal.tuning["ngram_floor"] < 0.95 and "10 of 10" in proposal.rationale
    assert "cross-validation" in why and "expected MRR gain on questions it has not seen" in proposal.rationale


def test_feedback_and_the_playground_name_the_settings_version_in_force(tl, memory, client, personas):
    ws = tl.workspace
    tuning_service.set_tuning(ws, {"ngram_floor": 0.5}, actor="olga", reason="test")
    tl.feedback(memory["origami"], "up")
    event = MemoryEvent.objects.filter(workspace=ws, kind="feedback").latest("revision")
    assert event.data["settings_version"] == 1
    client.force_login(personas.owner)
    page = client.get(f"/w/{ws.name}/recall/?q=origami").content.decode()
    assert "recall settings version 1" in page


def test_a_gold_set_that_cannot_show_a_gain_says_so_instead_of_a_bare_miss(tl, memory, personas):
    ws = tl.workspace
    # Every case already finds its fact first: no change can show a gain, and the search says so too.
    _gold(ws, [(f"where is the {w}", [memory[w]]) for w in WORDS])
    proposal = _evaluated(proposals.propose_tuning(ws, {"ngram_weight": 0.25}, rationale="try", user=personas.owner,
                                                   actor="olga"), personas.owner)  # fmt: skip
    assert proposal.clears_bar is False and "already finds its fact first" in proposal.bar_reason
    made, why = proposals.propose_from_recall_misses(ws)
    assert made is None and "already finds its fact first" in why


def test_too_few_improved_cases_are_named_with_the_number_the_bar_needs(tl, memory, personas):
    ws = tl.workspace
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="olga", reason="strict")
    # Two typo cases the n-gram floor decides, eight cases found either way.
    cases = [(f"where is the {t}", [memory[w]]) for w, t in zip(WORDS[:2], TYPOS[:2], strict=True)]
    cases += [(f"where is the {w}", [memory[w]]) for w in WORDS[2:]]
    _gold(ws, cases)
    proposal = _evaluated(proposals.propose_tuning(ws, {"ngram_floor": 0.3}, rationale="typos", user=personas.owner,
                                                   actor="olga"), personas.owner)  # fmt: skip
    assert proposal.clears_bar is False
    assert "only 2 of the 10 scored cases rank better" in proposal.bar_reason and "at least 4 must" in proposal.bar_reason


def test_fewest_cases_to_show_a_gain_follows_the_bootstrap():
    from governance.engine.proposals import fewest_to_show_a_gain

    assert [fewest_to_show_a_gain(n) for n in (1, 3, 5, 10, 300)] == [1, 3, 3, 4, 4]


def test_the_votes_on_recall_since_a_settings_proposal_was_applied_are_counted_beside_those_before(tl, memory, personas):
    ws = tl.workspace
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="olga", reason="strict")
    _gold(ws, [(f"where is the {typo}", [memory[w]]) for w, typo in zip(WORDS, TYPOS, strict=True)])
    tl.feedback(memory["lisbon"], "down")  # under version 1, before the proposal
    tl.recall("where is the lisbton")  # agents' questions under version 1: a typo finds nothing
    tl.recall("where is the origami")
    proposal = _evaluated(proposals.propose_tuning(ws, {"ngram_floor": 0.3}, rationale="typos", user=personas.owner,
                                                   actor="olga"), personas.owner)  # fmt: skip
    assert proposals.traffic_since_applied(proposal) is None  # nothing applied yet
    proposals.approve(proposal, user=personas.approver, actor="abe", reason="typos are found")
    proposal = proposals.apply(proposal, user=personas.owner, actor="olga")
    assert proposals.traffic_since_applied(proposal)["asked_both"] == 0
    tl.feedback(memory["origami"], "up")
    tl.feedback(memory["zanzibar"], "up")
    for query in ("where is the lisbton", "where is the origami", "where is the zansibar"):
        tl.recall(query)
    traffic = proposals.traffic_since_applied(proposal)
    assert (traffic["from_version"], traffic["to_version"]) == (1, 2)
    assert traffic["after"] == {"up": 2, "down": 0}
    assert traffic["before"]["up"] == 0  # the earlier down-vote may fall outside the window of equal length
    # Two questions were asked under both versions; the typo's first hit moved from nothing to its fact.
    assert traffic["asked_both"] == 2
    assert [(m["query"], m["before"], m["after"], m["after_text"]) for m in traffic["moved"]] == [
        ("where is the lisbton", "", memory["lisbon"], "Maya keeps a lisbon in the study.")]
    page = personas.client_for(personas.approver).get(f"/w/{ws.name}/proposals/{proposal.pk}/").content.decode()
    assert "Of the 2 questions agents asked both before and after, 1 got a different first hit" in page
    assert "Maya keeps a lisbon in the study." in page
    assert "over less than a minute, beside" in page and "0 minutes" not in page  # applied seconds ago
