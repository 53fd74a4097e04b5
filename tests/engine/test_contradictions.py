"""Contradiction candidates (ENGINE-SPEC §4.3), joined per origin and segment."""

import itertools
import random

import numpy as np
import pytest

from memory.engine.contradictions import find_contradictions
from memory.engine.hrr import cosine
from memory.engine.tokenize import token_set
from tests.engine.maint_factory import NOW, PEER, fact


def test_a_newer_location_contradicts_the_older_one_in_the_same_segment():
    """H77: the newer fact is `a`; a different segment and a fact sharing no content words are ignored."""
    facts = [
        fact("neu", "I live in Bangalore now", "identity", created_at=NOW + 1000),
        fact("old", "I live in Hyderabad", "identity"),
        fact("other", "I drink black coffee", "preference"),
        fact("color", "my favorite color is blue", "identity"),
    ]
    report = find_contradictions(facts)
    [item] = report.items
    assert (item.a, item.b) == ("neu", "old")
    assert item.basis == "tokens"
    assert item.overlap == 0.25 and item.divergence == 0.75 and item.score == pytest.approx(0.1875)


def test_opposed_embeddings_diverge_exactly_one_and_identical_ones_do_not():
    """H78: orthogonal vectors ⇒ divergence 1 and a candidate; identical vectors ⇒ none."""
    a = fact("a", "I live in Hyderabad city", "identity", created_at=NOW + 1000, embedding=[1.0, 0.0])
    b = fact("b", "I live in Bangalore city", "identity", embedding=[0.0, 1.0])
    [item] = find_contradictions([a, b]).items
    assert item.divergence == 1 and item.a == "a" and item.basis == "embedding"
    same = fact("b", "I live in Bangalore city", "identity", embedding=[1.0, 0.0])
    assert find_contradictions([a, same]).items == ()


def test_embeddings_of_different_lengths_fall_back_to_the_token_path():
    """H78: a length mismatch still flags the pair through the token symmetric difference."""
    a = fact("a", "I live in Hyderabad city", "identity", created_at=NOW + 1000, embedding=[1.0, 0.0])
    b = fact("b", "I live in Bangalore city", "identity", embedding=[1.0, 0.0, 0.0])
    [item] = find_contradictions([a, b]).items
    assert item.basis == "tokens" and item.divergence == pytest.approx(0.5)


def test_facts_of_different_principals_are_never_compared():
    facts = [
        fact("o", "I live in Hyderabad", "identity"),
        fact("p", "I live in Bangalore now", "identity", origin_key=PEER, created_at=NOW + 1),
    ]
    assert find_contradictions(facts).items == ()


def test_only_active_facts_take_part():
    facts = [
        fact("a", "I live in Bangalore now", "identity"),
        fact("b", "I live in Hyderabad", "identity", lifecycle="archived"),
    ]
    assert find_contradictions(facts).items == ()


def test_equal_creation_times_make_the_larger_id_the_newer():
    facts = [fact("m1", "I live in Hyderabad", "identity"), fact("m2", "I live in Bangalore now", "identity")]
    [item] = find_contradictions(facts).items
    assert (item.a, item.b) == ("m2", "m1")


def reference(facts, threshold=0.12, min_overlap=0.2):
    """§4.3 as written: every pair of one origin and segment, scored one by one."""
    out = []
    active = [f for f in facts if f.is_active]
    for x, y in itertools.combinations(active, 2):
        if x.origin_key != y.origin_key or x.segment != y.segment:
            continue
        ta, tb = token_set(x.content), token_set(y.content)
        union = ta | tb
        overlap = len(ta & tb) / len(union) if ta and tb else 0.0
        if overlap < min_overlap:
            continue
        if x.embedding is not None and y.embedding is not None and len(x.embedding) == len(y.embedding):
            divergence = 1 - max(0.0, cosine(x.embedding, y.embedding))
        else:
            divergence = len(ta ^ tb) / len(union)
        score = overlap * divergence
        if score >= threshold:
            newer, older = (x, y) if (x.created_at, x.memory_id) > (y.created_at, y.memory_id) else (y, x)
            out.append((newer.memory_id, older.memory_id, score))
    return out


def random_memory(seed, count=300):
    rng = random.Random(seed)
    words = "live city tea jazz deploy friday river lamp blue green red dog cat park run swim".split()  # noqa: SIM905
    segments = ["identity", "preference", "knowledge"]
    facts = []
    for k in range(count):
        dims = rng.choice([None, 4, 4, 4, 3])
        embedding = None if dims is None else np.random.default_rng(k).standard_normal(dims)
        facts.append(
            fact(
                f"m{k:03d}", " ".join(rng.sample(words, rng.randint(1, 6))), rng.choice(segments),
                created_at=NOW + rng.randint(0, 5), origin_key=rng.choice(["owner", "owner", PEER]), embedding=embedding,
            )
        )  # fmt: skip
    return facts


@pytest.mark.parametrize("seed", [1, 2])
def test_the_join_finds_exactly_what_comparing_every_pair_finds(seed):
    facts = random_memory(seed)
    expected = reference(facts)
    report = find_contradictions(facts)
    got = [(c.a, c.b, c.score) for c in report.items]
    assert len(got) == len(expected) == report.found
    assert sorted((a, b) for a, b, _ in got) == sorted((a, b) for a, b, _ in expected)
    scores = {(a, b): s for a, b, s in expected}
    for a, b, score in got:
        assert score == pytest.approx(scores[(a, b)], abs=1e-12)
    # Best first, ties by the ids.
    assert got == sorted(got, key=lambda item: (-item[2], item[0], item[1]))


def test_limit_keeps_the_best_and_still_counts_every_candidate():
    facts = random_memory(3)
    full = find_contradictions(facts)
    top = find_contradictions(facts, limit=5)
    assert top.items == full.items[:5]
    assert top.found == full.found > 5


def test_the_same_facts_give_the_same_report_in_any_order():
    facts = random_memory(4)
    shuffled = facts[:]
    random.Random(0).shuffle(shuffled)
    assert find_contradictions(facts) == find_contradictions(shuffled)


@pytest.mark.parametrize("share", [0.0, float("inf")])
def test_pair_cosines_agree_whether_computed_by_matrix_product_or_one_by_one(monkeypatch, share):
    from memory.engine import contradictions

    monkeypatch.setattr(contradictions, "_DENSE_SHARE", share)
    facts = random_memory(1)
    expected = reference(facts)
    got = [(c.a, c.b, c.score) for c in find_contradictions(facts).items]
    assert sorted((a, b) for a, b, _ in got) == sorted((a, b) for a, b, _ in expected)
