"""The model-free contradiction detector: its rules, its reach (one origin), its cost and its accuracy."""

import random

from bench.governance.contradictions import evaluate
from governance.engine.contradiction_rules import ClaimRecord, find_candidates, judge


def fact(id, content, *, origin="owner", subject="", trusted=True, created=0):
    return ClaimRecord(id=id, content=content, segment="knowledge", origin_key=origin, subject_key=subject,
                      trusted=trusted, created_ms=created)  # fmt: skip


def test_the_held_out_half_of_the_labelled_set_meets_the_precision_and_recall_targets():
    held_out = evaluate()["held_out"]
    assert held_out.pairs >= 80
    assert held_out.precision >= 0.8
    assert held_out.recall >= 0.6


def test_a_negated_fact_contradicts_its_positive_form():
    verdict = judge("I speak fluent Spanish.", "I don't speak Spanish.")
    assert verdict.kind == "negation"
    assert "spanish" in verdict.reason


def test_a_negation_about_a_whole_class_contradicts_a_fact_about_one_member():
    assert judge("I never work on weekends.", "I work on Saturdays.").kind == "negation"


def test_opposite_words_in_the_same_frame_contradict():
    verdict = judge("Smoking is allowed on the balcony.", "Smoking is forbidden on the balcony.")
    assert verdict.kind == "antonym"
    assert "'allowed' vs 'forbidden'" in verdict.reason


def test_different_numbers_weekdays_and_places_in_the_same_slot_contradict():
    assert "numbers differ: 'two' vs 'three'" in judge("I have two cats.", "I have three cats.").reason
    assert "weekdays differ" in judge("My flight is on Tuesday.", "My flight is on Friday.").reason
    assert "names differ: 'porto' vs 'lisbon'" in judge("I live in Porto.", "I live in Lisbon.").reason
    assert "times differ" in judge("The gym opens at 6 am.", "The gym opens at 8 am.").reason


def test_swapped_sides_of_a_comparison_contradict():
    assert (
        judge("Sara prefers email over phone calls.", "Sara prefers phone calls over email.").kind == "swap"
    )


def test_two_active_values_of_one_subject_key_are_a_slot_conflict():
    verdict = judge("I work at Brightline.", "My employer is Lumen Freight.", "employer", "employer")
    assert verdict.kind == "slot"
    assert "employer" in verdict.reason


def test_facts_that_can_both_be_true_are_not_contradictions():
    for a, b in [
        ("I owe Priya a reply about the driver app API.", "I owe Priya a reply about the routing service."),
        ("I like tea.", "I like coffee."),
        ("I visited Rome in May.", "I visited Florence in May."),
        ("My manager is Priya.", "My mentor is Daniel."),
        ("The invoice for March was paid.", "The invoice for April was paid."),
        ("The cat is allowed on the sofa.", "The cat is not allowed in the bedroom."),
        ("Lena's birthday is in June.", "Omar's birthday is in September."),
        ("I live in Porto.", "I live in Porto."),
    ]:
        assert judge(a, b) is None, (a, b)


def test_pairs_are_never_opened_across_origins():
    records = [
        fact("a", "I live in Porto.", origin="owner"),
        fact("b", "I live in Lisbon.", origin="peer:tomas"),
        fact("c", "I am vegetarian.", origin="peer:tomas", subject="diet"),
        fact("d", "I eat meat.", origin="owner", subject="diet"),
    ]
    assert find_candidates(records).candidates == []


def test_candidates_are_ranked_best_first_name_older_first_and_respect_the_limit():
    records = [
        fact("old", "The API rate limit is 100 requests per minute.", created=1),
        fact("new", "The API rate limit is 500 requests per minute.", created=2),
        fact("x", "I love jazz.", created=3),
        fact("y", "I hate jazz.", created=4),
        fact("task1", "I owe Priya a reply about the driver app API.", created=5),
        fact("task2", "I owe Priya a reply about the routing service.", created=6),
    ]
    found = find_candidates(records).candidates
    assert {(c.a, c.b) for c in found} == {("old", "new"), ("x", "y")}
    assert [c.confidence for c in found] == sorted((c.confidence for c in found), reverse=True)
    assert all(0.0 <= c.confidence <= 1.0 for c in found)
    assert len(find_candidates(records, limit=1).candidates) == 1


def test_an_untrusted_source_disagreeing_with_a_trusted_one_says_so():
    records = [
        fact("mine", "The release is scheduled for Monday.", created=1),
        fact("tool", "The release is scheduled for Wednesday.", trusted=False, created=2),
    ]
    [candidate] = find_candidates(records).candidates
    assert candidate.trust_mismatch
    assert "untrusted" in candidate.reason and "tool" in candidate.reason


def test_candidate_generation_is_far_below_all_pairs_on_twenty_thousand_facts():
    rng = random.Random(12)
    vocabulary = [f"w{n}" for n in range(3000)]
    records = [
        fact(str(n), " ".join(rng.choice(vocabulary) for _ in range(rng.randint(5, 10))) + ".", created=n)
        for n in range(20_000)
    ]
    detection = find_candidates(records)
    all_pairs = len(records) * (len(records) - 1) // 2
    assert detection.pairs_scored < all_pairs / 100
    assert detection.pairs_scored < 20 * len(records)  # near-linear, not quadratic
