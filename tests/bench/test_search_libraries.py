"""The side-by-side of search libraries (`python -m bench.memory.search_libraries`) on a small corpus."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.memory import search_libraries as S

pytest.importorskip("tantivy")
pytest.importorskip("bm25s")


@pytest.fixture(scope="module")
def report() -> dict:
    return S.compare(docs=300, queries=10, seed=7)


def test_every_library_builds_answers_and_is_timed(report):
    runs = {run["library"]: run for run in report["libraries"]}
    assert list(runs) == list(S.LIBRARIES)
    for run in runs.values():
        assert run["installed"] and run["version"]
        assert run["build_s"] > 0 and run["p95_ms"] >= run["p50_ms"] > 0 and run["index_mb"] > 0
        # Every query is two or three words of a fact in the corpus: every library finds something.
        assert run["empty_results"] == 0


def test_tantivy_ranks_as_tidelines_own_bm25(report):
    """Same terms, same BM25 (k1, b, IDF): tantivy's top 10 are Tideline's, up to ties."""
    runs = {run["library"]: run for run in report["libraries"]}
    assert runs["tideline"]["top10_overlap"] == runs["tideline"]["rank1_agreement"] == 1.0
    tantivy = runs["tantivy"]
    assert tantivy["top10_overlap"] >= 0.9 and tantivy["rank1_agreement"] >= 0.9
    assert tantivy["top10_overlap_ties"] == tantivy["rank1_agreement_ties"] == 1.0
    # bm25s is given the same parameters and IDF: it agrees once ties are counted.
    assert runs["bm25s"]["top10_overlap_ties"] == 1.0


def test_top_k_breaks_ties_by_lower_number_and_skips_zero_scores():
    scores = np.array([0.0, 2.0, 1.0, 2.0, 0.0, 3.0])
    assert S.top_k(scores, 3) == [5, 1, 3]
    assert S.top_k(scores, 10) == [5, 1, 3, 2]


def test_agreement_counts_ties():
    base = S.Baseline(top=[1, 2], could_be_top=frozenset({1, 2, 3}), could_be_first=frozenset({1}))
    figures = S.agreement([[1, 3], [2, 1]], [base, base])
    assert figures["top10_overlap"] == pytest.approx(0.75) and figures["top10_overlap_ties"] == 1.0
    assert figures["rank1_agreement"] == 0.5 == figures["rank1_agreement_ties"]


def test_the_command_prints_a_table_or_json(capsys):
    S.main(["--docs", "200", "--queries", "5", "--libraries", "tantivy"])
    out = capsys.readouterr().out
    assert "tantivy" in out and "bm25s" not in out.split("\n\n")[1]
    S.main(["--docs", "200", "--queries", "5", "--json"])
    assert [run["library"] for run in json.loads(capsys.readouterr().out)["libraries"]] == list(S.LIBRARIES)
