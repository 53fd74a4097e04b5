"""`tideline proposals …` and `tideline gold …` (ENGINE-SPEC §7, §8.1): the loop from the command line, and bad
input answered with one line and exit 2, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from governance.models import GoldSet, Proposal
from memory.services import tuning as tuning_service
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
GOLD = Path(__file__).resolve().parents[2] / "data" / "tideline-gold" / "synthetic.json"
WORDS = ["lisbon", "saxophone", "kilimanjaro", "origami", "pistachio", "trombone", "harmonica", "xylophone", "marzipan",
         "tambourine"]
TYPOS = ["lisbton", "saxaphone", "kilimanjero", "origammi", "pistashio", "trombome", "harmonika", "xylophome", "marzipam",
         "tamborine"]


@pytest.fixture
def world(workspace, personas):
    # The commands act --as olga (the owner) and abe (the approver).
    tl = Tideline(workspace)
    ids = {w: tl.add(f"Maya keeps a {w} in the study.", segment="knowledge").id for w in WORDS}
    return workspace, tl, ids


def tideline(capsys, *args) -> tuple[int, dict]:
    try:
        call_command("tideline", *args, "--json")
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, json.loads(capsys.readouterr().out)


def test_the_loop_from_the_command_line(world, capsys):
    ws, tl, ids = world
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="setup")  # typos miss at this floor
    code, made = tideline(capsys, "gold", "scaffold", "--workspace", ws.name, "--size", "10", "--as", "olga")
    assert code == 0 and made["placeholders"] == 10
    code, out = tideline(capsys, "proposals", "propose", "--workspace", ws.name, "--set", "ngram_floor=0.3",
                         "--rationale", "typos", "--as", "olga")
    pid = str(out["proposed"][0]["id"])
    code, out = tideline(capsys, "proposals", "evaluate", pid, "--workspace", ws.name)
    assert code == 2 and "placeholder" in out["error"]["message"]  # the gate refuses a scaffold
    gold_set = GoldSet.objects.get()
    for case in gold_set.cases.all():
        word = next(w for w in WORDS if case.relevant_keys == [ids[w]])
        case.query = f"where is the {TYPOS[WORDS.index(word)]}"
        case.save()
    code, out = tideline(capsys, "gold", "approve", "--set", gold_set.name, "--workspace", ws.name, "--as", "olga")
    assert code == 2 and "only approvers" in out["error"]["message"]
    code, out = tideline(capsys, "gold", "approve", "--set", gold_set.name, "--workspace", ws.name, "--as", "abe")
    assert code == 0 and out["approved"]
    Proposal.objects.filter(pk=pid).update(evaluation="queued")  # queued for a worker that never came: run it here
    code, out = tideline(capsys, "proposals", "evaluate", pid, "--workspace", ws.name, "--inline")
    assert code == 0 and out["clears_bar"] is True and out["report"]["cases"] == 10
    default = out["report"]["capabilities"]["default"]
    # The typos found nothing at the old floor and find their fact at the new one (how much else comes back too).
    assert default["baseline"]["hits_per_question"] < default["candidate"]["hits_per_question"] <= 10
    assert 0 < default["candidate"]["precision"] <= 1
    call_command("tideline", "proposals", "show", pid, "--workspace", ws.name)
    shown = capsys.readouterr().out
    assert "10 case(s) ranked differently (reciprocal rank before → after):" in shown and "where is the lisbton" in shown
    code, out = tideline(capsys, "proposals", "apply", pid, "--workspace", ws.name)
    assert code == 2 and "only an approved proposal" in out["error"]["message"]
    code, out = tideline(capsys, "proposals", "approve", pid, "--workspace", ws.name, "--reason", "ok")
    assert code == 2 and "--as" in out["error"]["message"]
    code, out = tideline(capsys, "proposals", "approve", pid, "--workspace", ws.name, "--reason", "ok", "--as", "abe")
    assert code == 0 and out["status"] == "approved" and out["decided_by"] == "abe"
    code, out = tideline(capsys, "proposals", "approve", pid, "--workspace", ws.name, "--reason", "ok", "--as", "abe")
    assert code == 2 and "approved already" in out["error"]["message"]
    before = [h.id for h in tl.recall("where is the lisbton", k=3, reinforce=False)]
    code, out = tideline(capsys, "proposals", "apply", pid, "--workspace", ws.name)
    assert code == 0 and out["applied"]["to_version"] == 2
    code, shown = tideline(capsys, "proposals", "show", pid, "--workspace", ws.name)
    assert shown["traffic"]["to_version"] == 2 and shown["traffic"]["asked_both"] == 0
    code, explained = tideline(capsys, "explain", "where is the lisbton", "--workspace", ws.name)
    assert explained["settings_version"] == 2 and explained["hits"][0]["id"] == ids["lisbon"]
    code, out = tideline(capsys, "proposals", "apply", pid, "--workspace", ws.name)
    assert code == 2 and "applied already" in out["error"]["message"]
    code, out = tideline(capsys, "proposals", "revert", pid, "--workspace", ws.name)
    assert code == 0 and out["status"] == "reverted"
    assert [h.id for h in tl.recall("where is the lisbton", k=3, reinforce=False)] == before
    code, out = tideline(capsys, "proposals", "revert", pid, "--workspace", ws.name)
    assert code == 2 and "only an applied proposal" in out["error"]["message"]
    code, listed = tideline(capsys, "proposals", "list", "--workspace", ws.name, "--status", "reverted")
    assert [p["id"] for p in listed["proposals"]] == [int(pid)]


def test_telemetry_proposals_and_bad_input(world, capsys):
    ws, tl, ids = world
    for _ in range(3):
        tl.feedback(ids["origami"], "down")
    code, out = tideline(capsys, "proposals", "propose", "--workspace", ws.name, "--from-telemetry")
    assert code == 0 and [p["fact_ids"] for p in out["proposed"]] == [[ids["origami"]]]
    assert out["proposed"][0]["author"] == "telemetry"
    for args, says in [
        (("proposals", "show", "999", "--workspace", ws.name), "no proposal #999"),
        (("proposals", "show", "abc", "--workspace", ws.name), "proposal ids are numbers"),
        (("proposals", "propose", "--workspace", ws.name, "--set", "ngram_floor=high", "--rationale", "x", "--as", "olga"),
         "must be a number"),
        (("proposals", "propose", "--workspace", ws.name, "--set", "ngram_floor=0.5", "--rationale", "x"), "--as"),
        (("gold", "upload", str(GOLD) + ".missing", "--workspace", ws.name), "cannot read"),
    ]:
        count = Proposal.objects.count()
        code, out = tideline(capsys, *args)
        assert code == 2 and says in out["error"]["message"], (args, out)
        assert Proposal.objects.count() == count
    code, out = tideline(capsys, "gold", "upload", str(GOLD), "--workspace", ws.name)
    assert code == 0 and out["kind"] == "standalone" and not out["approved"]


def test_showing_an_evaluated_proposal_prints_precision_and_hits_per_question(world, capsys):
    ws, _, _ = world
    figures = {"mrr": 0.5, "recall_at_k": 1.0, "ndcg_at_k": 0.6, "hit_at_k": 1.0, "scored": 4, "abstention_violations": 0}
    report = {"k": 10, "cases": 4, "capabilities": {"default": {
        "baseline": figures | {"precision": 0.25, "hits_per_question": 4.0},
        "candidate": figures | {"precision": 0.8, "hits_per_question": 1.25},
        "deltas": {"mrr": {"baseline": 0.5, "candidate": 0.75, "mean": 0.25, "ci95": [0.1, 0.4], "pairs": 4}}}}}  # fmt: skip
    proposal = Proposal.objects.create(workspace=ws, change="tuning", source="manual", title="t", rationale="r",
                                       tuning={"ngram_floor": 0.5}, author_name="x", evaluation="done", report=report,
                                       clears_bar=True, bar_reason="MRR improves")  # fmt: skip
    call_command("tideline", "proposals", "show", str(proposal.pk), "--workspace", ws.name)
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["precision", "0.250", "→", "0.800", "Δ", "+0.550"] in lines
    assert ["hits/q", "4.00", "→", "1.25", "Δ", "-2.75"] in lines


def test_a_search_that_finds_nothing_says_why_and_one_that_finds_something_proposes_it(world, capsys):
    ws, tl, ids = world
    tuning_service.set_tuning(ws, {"ngram_floor": 0.95}, actor="setup")  # typos miss at this floor
    gold_set = GoldSet.objects.create(workspace=ws, name="typos", kind="live", source="upload", created_by="olga")
    for position, (word, typo) in enumerate(zip(WORDS[:6], TYPOS[:6], strict=True)):  # six: too few
        gold_set.cases.create(case_id=f"c{position}", query=f"where is the {typo}", relevant_keys=[ids[word]],
                              position=position)  # fmt: skip
    code, out = tideline(capsys, "gold", "approve", "--set", "typos", "--workspace", ws.name, "--as", "abe")
    assert code == 0
    code, out = tideline(capsys, "proposals", "propose", "--from-misses", "--workspace", ws.name)
    assert code == 0 and out["proposed"] == [] and "needs at least 10" in out["search"]
    code, out = tideline(capsys, "proposals", "propose", "--from-misses", "--workspace", ws.name, "--as", "abe")
    assert code == 2 and "propose changes" in out["error"]["message"]  # an approver does not propose
    for position in range(6, 12):  # twelve cases: enough to check a change on cases it was not fitted to
        word, typo = WORDS[position % 6], TYPOS[position % 6]
        gold_set.cases.create(case_id=f"c{position}", query=f"where's the {typo}?", relevant_keys=[ids[word]],
                              position=position)  # fmt: skip
    code, out = tideline(capsys, "gold", "approve", "--set", "typos", "--workspace", ws.name, "--as", "abe")
    code, out = tideline(capsys, "proposals", "propose", "--from-misses", "--workspace", ws.name)
    assert code == 0 and len(out["proposed"]) == 1 and "expected MRR gain on unseen questions" in out["search"]
    assert out["proposed"][0]["diff"][0]["name"] == "ngram_floor"


def test_gold_score_asks_a_live_sets_questions_of_the_workspace_and_says_what_it_missed(world, capsys):
    ws, tl, ids = world
    tideline(capsys, "gold", "scaffold", "--workspace", ws.name, "--size", "10", "--as", "olga")
    gold_set = GoldSet.objects.get()
    for case in gold_set.cases.all():  # nine asked in words the facts hold, one about something else
        word = next(w for w in WORDS if case.relevant_keys == [ids[w]])
        case.query = f"where is the {word}" if word != "trombone" else "which bus goes to the airport"
        case.save()
    code, out = tideline(capsys, "gold", "score", gold_set.name, "--workspace", ws.name, "--k", "3")
    assert code == 0 and out["k"] == 3 and out["summary"]["scored"] == 10
    assert out["summary"]["hit_at_k"] == pytest.approx(9 / 10) and out["by_category"]
    assert [c["query"] for c in out["cases"] if not c["hit"]] == ["which bus goes to the airport"]
    call_command("tideline", "gold", "score", gold_set.name, "--workspace", ws.name)
    text = capsys.readouterr().out
    assert "hit@8 0.900" in text and "missed (1):" in text and "which bus goes to the airport" in text
    code, out = tideline(capsys, "gold", "score", gold_set.name, "--workspace", ws.name, "--k", "0")
    assert code == 2 and "--k must be between 1 and 50" in out["error"]["message"]


def test_the_list_says_when_an_evaluation_is_out_of_date_and_a_twin_proposal_names_the_open_one(world, capsys):
    ws, tl, ids = world
    code, out = tideline(capsys, "proposals", "propose", "--workspace", ws.name, "--set", "ngram_floor=0.4",
                         "--rationale", "typos", "--as", "olga")  # fmt: skip
    pid = out["proposed"][0]["id"]
    code, out = tideline(capsys, "proposals", "propose", "--workspace", ws.name, "--set", "ngram_floor=0.4",
                         "--rationale", "again", "--as", "olga")  # fmt: skip
    assert code == 2 and out["error"]["message"].endswith(f": #{pid} (decide or reject that one)")
    version, _ = tuning_service.current(ws)
    from governance.services import proposal_eval

    Proposal.objects.filter(pk=pid).update(evaluation="done", clears_bar=True, evaluated_version=version,
                                           evaluated_gold=proposal_eval.gold_fingerprint(proposal_eval.usable_sets(ws)))
    call_command("tideline", "proposals", "list", "--workspace", ws.name)
    assert "clears the bar" in capsys.readouterr().out
    tuning_service.set_tuning(ws, {"expansion_weight": 0.3}, actor="someone else")  # the settings move on
    call_command("tideline", "proposals", "list", "--workspace", ws.name)
    listed = capsys.readouterr().out
    assert "out of date" in listed and "clears the bar" not in listed
