"""`tideline eval`: gold sets seeded through the write path, metrics per capability, scaffolds."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from memory.models import Fact, Workspace
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER, export_scaffold, load_gold, run_eval
from memory.tideline import Tideline
from tests.datasets import GOLD_DIR as GOLD

pytestmark = pytest.mark.django_db

# The original engine's figures on the shared gold sets (their README): our parity floor.
FLOOR = {"synthetic": (1.0, 1.0, 1.0, 0), "hard": (1.0, 0.969, 0.977, 2), "rich": (1.0, 1.0, 1.0, 0)}


def test_the_default_recall_meets_the_originals_figures_on_every_shared_gold_set():
    report = run_eval([load_gold(GOLD / f"{name}.json") for name in FLOOR], k=3, capabilities=["default", "hybrid"])
    for result in report["sets"]:
        recall, mrr, ndcg, violations = FLOOR[result["name"]]
        for capability in ("default", "hybrid"):
            m = result["capabilities"][capability]
            assert m["recall_at_k"] >= recall - 1e-9 and m["mrr"] >= mrr - 5e-4 and m["ndcg_at_k"] >= ndcg - 5e-4
            assert m["abstention_violations"] <= violations
        assert result["capabilities"]["hybrid"]["parity"]["worse"] == 0


def test_an_eval_leaves_nothing_behind():
    before = (Workspace.objects.count(), Fact.objects.count())
    run_eval([load_gold(GOLD / "synthetic.json")], k=5, capabilities=["bm25"])
    assert (Workspace.objects.count(), Fact.objects.count()) == before


def test_merged_duplicates_resolve_both_keys_and_are_counted(tmp_path):
    gold = {"facts": [{"key": "a", "content": "I keep a strict vegetarian diet.", "segment": "preference"},
                      {"key": "b", "content": "I keep a strict vegetarian diet", "segment": "preference"}],
            "cases": [{"id": "c1", "query": "vegetarian diet", "relevantKeys": ["b"], "category": "preference"}]}  # fmt: skip
    path = tmp_path / "dupes.json"
    path.write_text(json.dumps(gold))
    report = run_eval([load_gold(path)], k=5, capabilities=["default"])
    [result] = report["sets"]
    assert result["merged"] == 1 and result["capabilities"]["default"]["mrr"] == 1.0


def test_the_bootstrap_interval_is_reproducible():
    first = run_eval([load_gold(GOLD / "hard.json")], k=3, capabilities=["bm25"])
    second = run_eval([load_gold(GOLD / "hard.json")], k=3, capabilities=["bm25"])
    assert first["overall"]["bm25"]["ci95"] == second["overall"]["bm25"]["ci95"]


def test_an_unapproved_scaffold_or_a_placeholder_query_is_refused(tmp_path, workspace):
    Tideline(workspace).add("I keep a strict vegetarian diet.", segment="preference")
    scaffold = export_scaffold(workspace)
    assert scaffold["approved"] is False and scaffold["cases"][0]["relevantKeys"] == [scaffold["facts"][0]["key"]]
    path = tmp_path / "gold.local.json"
    path.write_text(json.dumps(scaffold))
    with pytest.raises(RequestError, match="un-approved"):
        load_gold(path)
    scaffold["approved"] = True
    scaffold["cases"][0]["query"] = PLACEHOLDER
    path.write_text(json.dumps(scaffold))
    with pytest.raises(RequestError, match="placeholder"):
        load_gold(path)


@pytest.mark.parametrize(
    "gold,message",
    [
        ({"facts": [{"key": "a", "content": "x y z", "segment": "gossip"}], "cases": []}, "unknown segment"),
        ({"facts": [{"key": "a", "content": "x y z", "segment": "knowledge", "sourceType": "web"}], "cases": []}, "source type"),
        ({"facts": [{"key": "a", "content": "x y z", "segment": "knowledge", "supersedesKeys": ["b"]}], "cases": []}, "earlier"),
        ({"facts": [], "cases": [{"id": "c", "query": "q", "relevantKeys": ["zz"], "category": "x"}]}, "unknown fact"),
        ({"cases": []}, "facts"),
    ],
)
def test_malformed_gold_sets_are_refused_with_the_reason(tmp_path, gold, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(gold))
    with pytest.raises(RequestError, match=message):
        load_gold(path)


def test_the_eval_command_runs_on_the_shared_gold_sets(capsys):
    call_command("tideline", "eval", *[str(p) for p in sorted(GOLD.glob("*.json"))], "--k", "3",
                 "--capability", "all", "--json")  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    # `all` includes the learned embedder's capabilities where it is installed (it is, for the tests).
    assert set(report["overall"]) == {"default", "hybrid", "bm25", "vector", "graph", "learned", "default+learned"}
    assert report["overall"]["default"]["scored"] == 33 and report["overall"]["default"]["abstention"] == 9
    for capability in ("default", "default+learned"):
        assert report["overall"][capability]["abstention_violations"] == 0
        assert report["overall"][capability]["mrr"] == 1.0


def test_the_eval_command_refuses_an_unknown_capability(capsys):
    with pytest.raises(SystemExit):
        call_command("tideline", "eval", str(GOLD / "synthetic.json"), "--capability", "magic", "--json")
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "validation"


NOISY = {"name": "noisy",
         "facts": [{"key": "veg", "content": "I keep a strict vegetarian diet.", "segment": "preference"},
                   {"key": "gluten", "content": "My diet avoids gluten on weekdays.", "segment": "preference"},
                   {"key": "home", "content": "I live in Lisbon near the river.", "segment": "knowledge"}],
         "cases": [{"id": "c1", "query": "vegetarian diet", "relevantKeys": ["veg"], "category": "preference"},
                   {"id": "c2", "query": "where do I live, Lisbon", "relevantKeys": ["home"], "category": "knowledge"},
                   {"id": "none", "query": "favourite football club", "relevantKeys": [], "category": "abstention"}]}  # fmt: skip


def test_the_report_says_how_many_hits_come_back_and_how_many_are_relevant(tmp_path, capsys):
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(NOISY))
    call_command("tideline", "eval", str(path), "--k", "5", "--capability", "bm25", "--json")
    report = json.loads(capsys.readouterr().out)
    [result] = report["sets"]
    for figures in (result["capabilities"]["bm25"], report["overall"]["bm25"]):
        # "vegetarian diet" brings the gluten fact along too: 2 relevant among 3 hits, 1.5 hits a question.
        assert figures["precision"] == 2 / 3 and figures["hits_per_question"] == 1.5
    by_category = report["overall"]["bm25"]["by_category"]
    assert by_category["preference"]["precision"] == 0.5 and by_category["preference"]["hits_per_question"] == 2.0
    assert by_category["knowledge"]["precision"] == 1.0 and by_category["knowledge"]["hits_per_question"] == 1.0


def test_precision_and_hits_per_question_count_only_the_first_k_hits(tmp_path):
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(NOISY))
    report = run_eval([load_gold(path)], k=1, capabilities=["bm25"])  # each capability is still asked for 20
    figures = report["overall"]["bm25"]
    assert figures["hits_per_question"] == 1.0 and figures["precision"] == 1.0 and figures["mrr"] == 1.0


def test_the_eval_command_prints_precision_and_hits_per_question(tmp_path, capsys):
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(NOISY))
    call_command("tideline", "eval", str(path), "--k", "5", "--capability", "bm25")
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[header.index("hit") + 1: header.index("hit") + 3] == ["prec", "hits/q"]
    overall = lines[lines.index("overall") + 1].split()
    assert overall[0] == "bm25" and overall[7:9] == ["0.667", "1.50"]
    [preference] = [line for line in lines if line.strip().startswith("preference")]
    assert "precision 0.500" in preference and "hits/q 2.00" in preference
