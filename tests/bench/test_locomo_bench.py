"""The LoCoMo evaluation (bench/memory/locomo.py): seeding, scoring, the report and the command."""

import json

import pytest

from bench.memory.locomo import evaluate_locomo, format_report, load_conversation, main, seed_conversation

CONVERSATION = {
    "name": "tiny",
    "facts": [
        {"key": "f0", "content": "Maria adopted a puppy named Coco.", "segment": "knowledge"},
        {"key": "f1", "content": "John plays basketball every Friday.", "segment": "knowledge"},
        {"key": "f2", "content": "Maria volunteers at the homeless shelter.", "segment": "knowledge"},
    ],
    "cases": [
        {
            "id": "q0",
            "query": "What is the name of Maria's puppy?",
            "relevantKeys": ["f0"],
            "category": "single-hop",
        },
        {
            "id": "q1",
            "query": "When does John play basketball?",
            "relevantKeys": ["f1"],
            "category": "temporal",
        },
        {
            "id": "q2",
            "query": "Where has Maria volunteered?",
            "relevantKeys": ["f2"],
            "category": "single-hop",
        },
        {
            "id": "q3",
            "query": "What instrument does Maria play?",
            "relevantKeys": ["f9"],
            "category": "temporal",
        },
    ],
}


@pytest.fixture
def conversation(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    return path


def test_cases_may_spell_relevant_keys_either_way(conversation, tmp_path):
    assert load_conversation(conversation)["cases"][0]["relevant_keys"] == ["f0"]
    snake = tmp_path / "snake.json"
    snake.write_text(json.dumps({"facts": [], "cases": [{"id": "x", "query": "q", "relevant_keys": []}]}))
    spec = load_conversation(snake)
    assert spec["cases"][0]["relevant_keys"] == [] and spec["name"] == "snake"


def test_seeding_writes_every_fact_in_order_as_an_active_owner_fact_at_the_clock(conversation):
    cols = seed_conversation(load_conversation(conversation))
    assert cols.memory_ids == ["f0", "f1", "f2"]
    assert (cols.lifecycle == "active").all() and set(cols.origin_keys) == {"owner"}
    assert (cols.created_at == 0).all() and cols.embeddings.shape == (3, 256)


def test_seeding_honours_supersedes_and_refuses_what_the_original_refuses():
    spec = {
        "facts": [
            {"key": "old", "content": "I work at Acme.", "segment": "project"},
            {"key": "new", "content": "I work at Beta.", "segment": "project", "supersedes_keys": ["old"]},
        ]
    }
    cols = seed_conversation(spec)
    assert cols.lifecycle.tolist() == ["archived", "active"] and cols.valid_to[0] == 0
    with pytest.raises(ValueError, match="duplicate"):
        seed_conversation({"facts": [spec["facts"][0], spec["facts"][0]]})
    with pytest.raises(ValueError, match="not earlier"):
        seed_conversation({"facts": [spec["facts"][1]]})


def test_the_report_scores_hits_and_reciprocal_ranks_overall_and_per_category(conversation):
    """q0–q2 find their fact first; q3's relevant key is not in the memory, a miss."""
    report = evaluate_locomo([conversation])
    assert report.overall.n == 4
    assert (report.overall.hit_at_5, report.overall.hit_at_10, report.overall.mrr_at_10) == (0.75, 0.75, 0.75)
    assert list(report.by_category) == ["single-hop", "temporal"]
    assert report.by_category["single-hop"].mrr_at_10 == 1.0
    assert report.by_category["temporal"].hit_at_10 == 0.5
    assert report.by_conversation["tiny"].n == 4
    assert [case.case_id for case in report.cases] == ["q0", "q1", "q2", "q3"]


def test_a_lane_may_be_named_or_given_as_a_function(conversation):
    def last_first(cols, query, limit):
        from memory.engine.recall.core import search

        return list(reversed(search(cols, query, 0, "owner", limit=limit)))

    assert evaluate_locomo([conversation], lane="plain_bm25").lane == "plain_bm25"
    custom = evaluate_locomo([conversation], lane=last_first)
    assert custom.lane == "last_first"
    with pytest.raises(KeyError):
        evaluate_locomo([conversation], lane="nope")


def test_the_command_prints_a_table_per_lane(conversation, capsys):
    assert main([str(conversation), "--lane", "default", "--lane", "hybrid"]) == 0
    out = capsys.readouterr().out
    assert "lane: default" in out and "lane: hybrid" in out and "overall" in out
    assert format_report(evaluate_locomo([conversation])).splitlines()[-1].startswith("overall")
