"""The learned embedder's part in contradiction detection, with small handmade vectors (no model)."""

import numpy as np

from governance.engine.contradiction_rules import ClaimRecord, _candidate_pairs, find_candidates, parse
from governance.engine.contradiction_vectors import (
    LearnedSettings,
    find_candidates_learned,
    nearest_pairs,
    ranking_score,
    unit_rows,
)


def fact(id, content, *, origin="owner", subject="", created=0, trusted=True):
    return ClaimRecord(id=id, content=content, segment="knowledge", origin_key=origin, subject_key=subject,
                      trusted=trusted, created_ms=created)  # fmt: skip


def vec(*values):
    return np.array(values, dtype=np.float32)


def _brute_force(matrix, neighbours, threshold):
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -np.inf)
    pairs = set()
    for i in range(len(matrix)):
        for j in np.argsort(-sims[i], kind="stable")[:neighbours]:
            if sims[i, j] >= threshold:
                pairs.add((min(i, int(j)), max(i, int(j))))
    return pairs


def test_the_chunked_search_finds_each_rows_nearest_rows_above_the_bar():
    matrix = unit_rows(np.random.default_rng(3).standard_normal((60, 6)))
    # A budget of 100 similarities: one row of 60 at a time, so every chunk boundary is crossed.
    found = nearest_pairs(matrix, neighbours=4, threshold=0.5, budget=100)
    assert {tuple(p) for p in found.tolist()} == _brute_force(matrix, 4, 0.5)
    assert len(found) <= 60 * 4  # bounded by rows × neighbours, never all pairs
    assert all(i < j for i, j in found.tolist())


def test_only_the_query_rows_search_and_nothing_below_the_bar_is_kept():
    matrix = unit_rows([vec(1, 0), vec(0.9, 0.1), vec(0, 1), vec(0.1, 0.9)])
    assert nearest_pairs(matrix, neighbours=3, threshold=0.9).tolist() == [[0, 1], [2, 3]]
    assert nearest_pairs(matrix, neighbours=3, threshold=0.9, queries=np.array([3])).tolist() == [[2, 3]]
    assert nearest_pairs(matrix, neighbours=3, threshold=1.01).shape == (0, 2)
    assert nearest_pairs(matrix[:1], neighbours=3, threshold=0.0).shape == (0, 2)


def test_without_vectors_the_learned_path_gives_exactly_the_model_free_candidates():
    records = [
        fact("a", "I live in Hyderabad.", created=1), fact("b", "I live in Bangalore.", created=2),
        fact("c", "I speak fluent Spanish.", created=3), fact("d", "I don't speak Spanish.", created=4),
        fact("e", "I'm a Python developer.", created=5), fact("f", "I've never written Python.", created=6),
        fact("g", "I like tea.", created=7), fact("h", "I like coffee.", created=8),
    ]  # fmt: skip
    assert find_candidates_learned(records, {}) == find_candidates(records)
    assert all(c.cosine is None for c in find_candidates(records).candidates)


def test_a_pair_the_word_blocking_misses_is_judged_when_the_vectors_are_close():
    # 'team' and 'standup' are held by over 200 facts, so the Jaccard join leaves them out and the
    # two times share no joinable word: the word blocking never pairs the two standup facts.
    rng = np.random.default_rng(7)
    fillers = [fact(f"f{k}", f"Team standup item{k}", created=k) for k in range(201)]
    old = fact("old", "The team standup is at 9:30.", created=1000)
    new = fact("new", "The team standup is at 10:00.", created=1001)
    records = [*fillers, old, new]
    assert (201, 202) not in _candidate_pairs(records, [parse(r.content) for r in records])
    assert not any(c.a == "old" for c in find_candidates(records).candidates)

    vectors = {r.id: np.concatenate([[0.0], rng.standard_normal(127)]) for r in fillers}
    vectors["old"] = np.concatenate([[1.0], np.zeros(127)])
    vectors["new"] = np.concatenate([[0.98], np.full(127, 0.02)])
    [found] = [c for c in find_candidates_learned(records, vectors).candidates if c.a == "old"]
    assert (found.b, found.kind) == ("new", "value") and "times differ" in found.reason
    assert found.cosine > 0.95


def test_opposite_polarity_on_one_topic_is_a_candidate_only_with_close_vectors():
    records = [
        fact("dev", "I'm a Python developer.", created=1),
        fact("never", "I've never written Python.", created=2),
    ]
    assert find_candidates(records).candidates == []  # the rules: polarity plus another change, too loose

    close = {"dev": vec(1, 0.2), "never": vec(0.9, 0.45)}
    [found] = find_candidates_learned(records, close).candidates
    assert (found.a, found.b, found.kind) == ("dev", "never", "negation")
    assert "learned embedder" in found.reason and found.confidence <= 0.5
    apart = {"dev": vec(1, 0), "never": vec(0, 1)}
    assert find_candidates_learned(records, apart).candidates == []


def test_same_polarity_pairs_are_never_called_on_the_vectors_alone():
    records = [fact("tea", "I like tea.", created=1), fact("coffee", "I like coffee.", created=2)]
    assert find_candidates_learned(records, {"tea": vec(1, 0), "coffee": vec(1, 0.01)}).candidates == []


def test_the_cosine_moves_the_ranking_of_equally_confident_rule_verdicts():
    records = [
        fact("p1", "I live in Porto.", created=1), fact("p2", "I live in Lisbon.", created=2),
        fact("c1", "My car is blue.", created=3), fact("c2", "My car is red.", created=4),
    ]  # fmt: skip
    free = {(c.a, c.b): c.confidence for c in find_candidates(records).candidates}
    vectors = {"p1": vec(1, 0, 0), "p2": vec(0.95, 0.3, 0), "c1": vec(0, 0, 1), "c2": vec(0, 0.8, 0.6)}
    learned = find_candidates_learned(records, vectors, settings=LearnedSettings(weight=0.5)).candidates
    by_pair = {(c.a, c.b): c for c in learned}
    assert set(by_pair) == set(free)  # the same pairs: the cosine ranks, the rules decide
    for pair, candidate in by_pair.items():
        assert candidate.confidence == ranking_score(free[pair], candidate.cosine, 0.5)
    # Porto/Lisbon sit on one topic (cosine 0.95), blue/red less so (0.6): the closer pair rises.
    assert (
        by_pair[("p1", "p2")].confidence - free[("p1", "p2")]
        > by_pair[("c1", "c2")].confidence - free[("c1", "c2")]
    )


def test_vectors_never_pair_facts_across_origins():
    records = [
        fact("a", "I'm a Python developer.", origin="owner", created=1),
        fact("b", "I've never written Python.", origin="peer", created=2),
    ]
    assert find_candidates_learned(records, {"a": vec(1, 0), "b": vec(1, 0)}).candidates == []


def test_a_topic_negation_ranks_below_every_rule_verdict():
    records = [
        fact("dev", "I'm a Python developer.", created=1), fact("never", "I've never written Python.", created=2),
        fact("p1", "I live in Porto.", created=3), fact("p2", "I live in Lisbon.", created=4),
    ]  # fmt: skip
    # The learned call at its most certain (cosine 1), the rule verdict at its least (orthogonal vectors).
    vectors = {"dev": vec(1, 0), "never": vec(1, 0), "p1": vec(1, 0), "p2": vec(0, 1)}
    ranked = find_candidates_learned(records, vectors).candidates
    assert [(c.a, c.kind) for c in ranked] == [("p1", "value"), ("dev", "negation")]


def test_a_contrast_names_the_alternative_it_denies_and_is_no_denial():
    records = [
        fact("boss", "Ines Duarte is my manager.", created=1),
        fact("spelling", "Correction: my manager's name is spelled Ines, not Inez.", created=2),
    ]
    assert find_candidates_learned(records, {"boss": vec(1, 0), "spelling": vec(1, 0.1)}).candidates == []


def test_on_the_bench_corpus_without_vectors_the_learned_path_is_the_model_free_one():
    from bench.memory.maintenance import synthesize

    facts, _, _ = synthesize(1500)  # enough pairs for the detector's array prescreen to run
    records = [
        ClaimRecord(id=f.memory_id, content=f.content, segment=f.segment, origin_key=f.origin_key,
                   subject_key=f.subject_key or "", created_ms=int(f.created_at))
        for f in facts
    ]  # fmt: skip
    assert find_candidates_learned(records, {}) == find_candidates(records)
