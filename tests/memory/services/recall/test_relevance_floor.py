"""Recall that knows when it knows nothing (ENGINE-SPEC Decision 20), through the facade and the services: a relevance
on every hit, the workspace's floor, `k` as a maximum, context with nothing unrelated in it."""

from __future__ import annotations

import json

import pytest

from memory.engine.recall import relevance as rel
from memory.engine.tuning import DEFAULT
from memory.services.recall import verbs as recall_service
from memory.services.tuning import set_tuning

pytestmark = pytest.mark.django_db
FACTS = [
    "I am allergic to peanuts",
    "The billing service runs on Postgres 15",
    "I work at Beta Labs as a staff engineer",
    "The deploy pipeline uses GitHub Actions",
    "I drink oat milk in my coffee",
    "Our team standup is at 9:30 every weekday",
    "Caroline moved to Lisbon in 2021",
]


@pytest.fixture
def memory(tl):
    return {text: tl.add(text, segment="knowledge").id for text in FACTS}


def test_a_question_gets_its_answer_and_nothing_unrelated(tl, memory):
    hits = tl.recall("what am I allergic to", k=8)
    assert [h.id for h in hits] == [memory["I am allergic to peanuts"]]
    assert hits[0].relevance == 1.0 and hits[0].why.startswith("Relevance 1.00: matched 1 of 1 important word")


def test_context_never_packs_a_line_below_the_floor(tl, memory):
    block = tl.context("peanuts")
    assert block is not None and "peanuts" in block and "billing" not in block and "standup" not in block
    assert tl.context("what is my zodiac sign") is None


def test_a_question_about_someone_the_memory_never_met_gets_nothing(tl, memory):
    assert tl.recall("Where did Melanie move?") == []
    assert [h.id for h in tl.recall("Where did Caroline move?")] == [memory["Caroline moved to Lisbon in 2021"]]


def test_every_hit_reaches_the_workspaces_floor_which_a_setting_can_raise(tl, memory, workspace):
    query = "staff engineer coffee billing"
    set_tuning(workspace, {"match_cut": 0.0}, actor="t")  # the floor alone
    loose = tl.recall(query, k=8)
    assert len(loose) >= 2 and all(h.relevance >= DEFAULT.relevance_floor for h in loose)
    strict_floor = sorted(h.relevance for h in loose)[-1]  # only the best survives
    set_tuning(workspace, {"match_cut": 0.0, "relevance_floor": strict_floor}, actor="t")
    strict = tl.recall(query, k=8)
    assert strict and all(h.relevance >= strict_floor for h in strict) and len(strict) < len(loose)
    assert recall_service.relevance_floor(workspace) == strict_floor


def test_explain_with_floor_zero_shows_what_the_floor_holds_back(tl, memory, workspace):
    held = recall_service.explain(workspace=workspace, query="Where did Melanie move?", origin="owner", floor=0.0)
    assert held and all(h.relevance < rel.DEFAULT_FLOOR for h in held)
    assert "no fact in this memory mentions ‘Melanie’" in held[0].why
    assert held[0].components["names_missed"] == ["Melanie"]


def test_the_hit_dict_carries_relevance_for_json_callers(tl, memory):
    payload = tl.recall("oat milk")[0].to_dict()
    assert payload["relevance"] == 1.0 and payload["why"] and payload["components"]["matched_words"] == ["oat", "milk"]


def test_the_cli_prints_relevance_and_says_nothing_relevant(memory, workspace, capsys):
    from django.core.management import call_command

    call_command("tideline", "recall", "what am I allergic to", "--workspace", workspace.name)
    out = capsys.readouterr().out
    assert "relevance 1.00" in out and "I am allergic to peanuts" in out and "billing" not in out
    call_command("tideline", "explain", "Where did Caroline move", "--workspace", workspace.name)
    out = capsys.readouterr().out
    assert "Relevance 1.00: matched 2 of 2 important words" in out and "coverage 1" in out
    for verb in ("recall", "context", "explain"):
        call_command("tideline", verb, "what is my zodiac sign", "--workspace", workspace.name)
        assert f"(nothing relevant: no fact reaches the relevance floor {DEFAULT.relevance_floor:g})" in capsys.readouterr().out
        call_command("tideline", verb, "what is my zodiac sign", "--workspace", workspace.name, "--json")
        assert json.loads(capsys.readouterr().out)["nothing_relevant"] is True
        with pytest.raises(SystemExit):
            call_command("tideline", verb, "  ", "--workspace", workspace.name, "--json")
        assert "the query is empty" in json.loads(capsys.readouterr().out)["error"]["message"]
    call_command("tideline", "recall", "what am I allergic to", "--workspace", workspace.name, "--json")
    assert json.loads(capsys.readouterr().out)["nothing_relevant"] is False


def test_the_cut_keeps_the_hits_nearly_as_good_as_the_best_and_says_why_the_next_is_left_out(tl, memory, workspace):
    query = "staff engineer coffee billing"
    set_tuning(workspace, {"match_cut": 0.0}, actor="t")
    every = tl.recall(query, k=8)
    set_tuning(workspace, {"match_cut": 0.0, "relevance_cut": 0.9}, actor="t")
    found = recall_service.recall_selection(workspace=workspace, query=query, origin="owner", reinforce=False)
    best = found.hits[0].relevance
    assert found.hits and all(h.relevance >= 0.9 * best for h in found.hits) and len(found.hits) < len(every)
    assert [h.relevance for h in found.hits] == sorted((h.relevance for h in found.hits), reverse=True)
    assert found.hits[0].components["kept_because"].startswith("Kept: relevance")
    left = found.left_out[0]
    assert left.relevance < 0.9 * best and "below the cut" in left.components["left_out_because"]
    assert found.counts["cut"] >= len(every) - len(found.hits)


def test_the_explain_command_says_why_each_hit_was_kept_and_why_the_next_was_left_out(memory, workspace, capsys):
    import json

    from django.core.management import call_command

    call_command("tideline", "explain", "staff engineer coffee billing", "--workspace", workspace.name)
    out = capsys.readouterr().out
    assert "Kept: relevance" in out and "next, left out: relevance" in out and "candidate(s) left out:" in out
    call_command("tideline", "explain", "staff engineer coffee billing", "--workspace", workspace.name, "--json")
    payload = json.loads(capsys.readouterr().out)
    assert payload["left_out"] and all(item["because"].startswith("Left out: relevance") for item in payload["left_out"])
    for hit in payload["hits"]:  # the formula a hit states is the one its rank score was made with
        c = hit["components"]
        if c.get("route") == "graph":
            assert c["formula"] == "rrf_lexical + rrf_vector + rrf_graph"
            assert hit["score"] == pytest.approx(c["rrf_lexical"] + c["rrf_vector"] + c["rrf_graph"])
        else:
            assert hit["score"] == pytest.approx(c["blend"] * c["modulator"] * c["trust"])
    assert sum(payload["left_out_counts"].values()) == len(payload["left_out"])
    kept = [h["relevance"] for h in payload["hits"]]
    assert kept == sorted(kept, reverse=True) and all(item["relevance"] <= kept[-1] for item in payload["left_out"])
