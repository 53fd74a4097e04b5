"""Relevance on a fixed 0–1 scale (ENGINE-SPEC Decision 20): what a hit matched, what the memory has never heard of,
and the floor that lets recall say "nothing relevant". Pure: no database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.engine.recall import relevance as rel
from memory.engine.recall.candidates import FactColumns, FactRow
from memory.engine.recall.fusion import recall_fused

FACTS = [
    "I am allergic to peanuts",
    "My sister is allergic to cats",
    "The billing service runs on Postgres 15",
    "I work at Beta Labs as a staff engineer",
    "Caroline moved to Lisbon in 2021",
    "The deploy pipeline uses GitHub Actions",
    "I drink oat milk in my coffee",
    "Our team standup is at 9:30 every weekday",
]


def _cols(facts=FACTS) -> FactColumns:
    return FactColumns.from_rows([FactRow(memory_id=f"m{i}", content=c, created_at=0) for i, c in enumerate(facts)])


def _recall(query: str, floor: float = rel.DEFAULT_FLOOR, facts=FACTS):
    return recall_fused(_cols(facts), query, 0, "owner", limit=8, floor=floor)


def test_a_question_the_memory_answers_returns_only_what_matches():
    hits = _recall("what am I allergic to")
    assert [h.memory_id for h in hits][:1] == ["m0"]
    assert {h.memory_id for h in hits} <= {"m0", "m1"}  # never the billing service or the standup
    assert hits[0].components["relevance"] == 1.0 and hits[0].components["matched_words"] == ["allergic"]


def test_a_name_the_memory_has_never_heard_of_gets_nothing():
    assert _recall("Where did Melanie move to?") == []
    # Without the floor the same query still finds "moved" facts, each with a relevance near zero.
    loose = _recall("Where did Melanie move to?", floor=0.0)
    assert loose and all(h.components["relevance"] < rel.DEFAULT_FLOOR for h in loose)
    assert loose[0].components["unknown_words"] == ["Melanie"] and loose[0].components["names_missed"] == ["Melanie"]


def test_a_known_name_is_answered():
    hits = _recall("Where did Caroline move to?")
    assert hits and hits[0].memory_id == "m4" and hits[0].components["relevance"] >= 0.5


def test_words_the_memory_puts_differently_do_not_silence_a_clear_answer():
    # "current" and "job" appear in no fact; "work" does: a synonym gap, not an unknown subject.
    hits = _recall("what is my current job and where do I work")
    assert hits and hits[0].memory_id == "m3"


def test_a_typo_counts_as_the_word_it_misspells():
    words = rel.weigh_query("allergic to peanutz", {"allerg": 1.0, "peanut": 2.0}, 5.0,
                            spell=lambda s: ("peanut", 2.0) if s == "peanutz" else None)  # fmt: skip
    assert words.known_share == 1.0
    assert rel.match(words, {"allerg", "peanut"}).relevance == 1.0


def test_function_words_and_dates_weigh_nothing():
    words = rel.weigh_query("What did she eat on 21 May, 2023?", {"eat": 1.5}, 4.0)
    assert [w.surface for w in words.important] == ["eat"]
    assert rel.match(words, {"eat"}).relevance == 1.0


def test_the_sentence_says_what_matched_and_what_was_missed():
    hits = _recall("Did Caroline move to Porto?", floor=0.0)
    sentence = rel.describe(hits[0].components)
    assert sentence.startswith("Relevance ") and "matched" in sentence and "‘Porto’" in sentence
    assert "no fact in this memory mentions" in sentence


def test_a_generic_word_alone_holds_nothing_the_question_asks_about():
    """"What is my dog's name?": a memory that holds names but no dog holds nothing for it."""
    words = rel.weigh_query("What is my dog's name?", {"name": 2.0}, 5.0)
    assert [w.surface for w in words.important] == ["dog"]
    assert rel.match(words, {"name", "maya", "okafor"}).relevance == 0.0
    # With no other word, a generic word is what the question is about.
    alone = rel.weigh_query("What is my name?", {"name": 2.0}, 5.0)
    assert rel.match(alone, {"name", "maya"}).relevance == 1.0


@pytest.mark.parametrize("query", ["What is Maya's dog's name?", "What is the name of Maya's dog?",
                                   "what's the name of the dog?"])
def test_the_thing_whose_attribute_is_asked_for_counts_in_full_when_no_fact_holds_it(query):
    """A name the memory knows does not make "Maya's dog's name" a question about Maya: the dog is
    weighed like a name the memory has never heard of, so the owner's own facts hold almost nothing."""
    words = rel.weigh_query(query, {"maya": 2.0, "name": 2.0}, 5.0)
    dog = next(w for w in words.words if w.surface == "dog")
    assert dog.name and not dog.known and words.unknown_name_weight == 5.0
    assert rel.match(words, {"name", "maya", "okafor"}).relevance < rel.DEFAULT_FLOOR
    # A word the memory holds is weighed as it always is.
    held = rel.weigh_query("What is Maya's dog's name?", {"maya": 2.0, "dog": 3.0}, 5.0)
    assert rel.match(held, {"maya", "dog", "rex"}).relevance == 1.0


def test_a_word_of_the_same_family_counts_nearly_in_full():
    words = rel.weigh_query("What am I allergic to?", {"allerg": 2.0, "allergi": 2.2}, 5.0)
    exact = rel.match(words, {"allerg", "peanut"})
    family = rel.match(words, {"allergi", "peanut", "mild"})
    assert exact.relevance == 1.0 and family.relevance == pytest.approx(rel.FAMILY_CREDIT)
    assert family.matched == ("allergic",) and not family.missed
    # Words that merely begin alike are not one family.
    assert not rel.same_family("cat", "catalog") and not rel.same_family("parent", "parenthes")
    assert rel.same_family("allerg", "allergi") and rel.same_family("photograph", "photographi")


@given(st.text(max_size=80), st.sets(st.sampled_from(["allerg", "peanut", "work", "caroline", "lisbon"])),
       st.floats(0, 1))  # fmt: skip
def test_relevance_always_lies_between_zero_and_one(query, fact, spelling):
    words = rel.weigh_query(query, {"allerg": 1.2, "work": 0.4, "caroline": 2.0}, 3.0)
    value = rel.match(words, fact, spelling, similarity=spelling / 2).relevance
    assert 0.0 <= value <= 1.0


@given(st.floats(0.0, 1.0))
def test_k_is_a_maximum_and_every_hit_reaches_the_floor(floor):
    hits = _recall("allergic peanuts coffee billing", floor=floor)
    assert len(hits) <= 8 and all(h.components["relevance"] >= floor for h in hits)


def test_an_untrusted_page_worded_like_the_question_never_sets_the_bar_that_cuts_the_owners_fact():
    owner = FactRow(memory_id="owner", content="I prefer window seats on flights.", created_at=0,
                    source_type="owner_message", segment="preference")  # fmt: skip
    page = FactRow(memory_id="page", created_at=0, source_type="retrieved_document",
                   content="Which seat does Maya like on a flight? Maya likes the aisle seat: seat like aisle, flight seat.")
    filler = [FactRow(memory_id=f"f{i}", content=c, created_at=0) for i, c in enumerate(FACTS)]
    cols = FactColumns.from_rows([owner, page, *filler])
    hits = recall_fused(cols, "Which seat does Maya like on a flight?", 0, "owner", limit=8, floor=rel.DEFAULT_FLOOR,
                        match_cut=rel.DEFAULT_MATCH_CUT)  # fmt: skip
    by_id = {h.memory_id: h for h in hits}
    assert "owner" in by_id, [(h.memory_id, h.components["match"]) for h in hits]
    # The page's words match far more strongly, but its match counts at its source's trust (0.6).
    assert by_id["page"].components["match"] <= 0.6 + 1e-9 and by_id["page"].components["match"] >= by_id["page"].components["relevance"]
