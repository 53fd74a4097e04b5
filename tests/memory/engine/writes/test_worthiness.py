"""The worthiness gate (ENGINE-SPEC Decision 15): junk is refused before it reaches the store."""

from __future__ import annotations

import pytest

from memory.engine.writes.gate import UnworthyFactError
from memory.engine.writes.worthiness import MIN_CONTENT_CHARS, Worthiness, assess_worthiness


@pytest.mark.parametrize("content", ["ok", "thanks!", "lol", "Sure.", "noted", "got it", "hi", "👍", "x"])
def test_short_chat_is_too_short_to_be_durable_knowledge(content):
    assert assess_worthiness(content) == Worthiness(False, "too short — not durable knowledge", "too_short")


def test_the_length_floor_is_twelve_characters_after_collapsing_whitespace():
    assert MIN_CONTENT_CHARS == 12
    assert assess_worthiness("ok          .").rule == "too_short"  # padding does not count
    assert assess_worthiness("Born in Oslo").worthy  # exactly twelve


@pytest.mark.parametrize(
    "content",
    [
        "ok thanks so much!",
        "Thank you so much!!",
        "Good morning everyone!",
        "hahahahahaha lol",
        "loooool thanksss",
        "Muchas gracias, vale!",
        "Спасибо большое!",
        "That’s great, thanks a lot",
        "yes yes yes yes yes",
    ],
)
def test_longer_chat_made_only_of_filler_is_refused(content):
    decision = assess_worthiness(content)
    assert (decision.worthy, decision.rule) == (False, "filler")
    assert decision.reason == "conversational filler — not durable knowledge"


@pytest.mark.parametrize("content", ["👍👍👍👍👍👍👍👍👍👍👍👍", "!!!!!!!!!!!!!!!!", "-- ** -- ** --"])
def test_symbols_without_words_are_refused(content):
    assert assess_worthiness(content).rule == "no_words"


@pytest.mark.parametrize("content", ["", "   ", "\n\t "])
def test_empty_content_is_refused(content):
    assert assess_worthiness(content).rule == "empty"


@pytest.mark.parametrize(
    "content",
    [
        "User deploys on Fridays.",
        "Thanks, the deploy moved to Friday",
        "I keep a strict vegetarian diet.",
        "No peanuts, ever: severe allergy",
        "我对花生过敏",  # "I am allergic to peanuts": six wide characters count as twelve
    ],
)
def test_durable_facts_are_worth_keeping(content):
    assert assess_worthiness(content) == Worthiness(True, "worth keeping", "worthy")


def test_two_wide_characters_are_still_too_short():
    assert assess_worthiness("谢谢").rule == "too_short"


@pytest.mark.parametrize(
    "source_type", [None, "owner_message", "user_instruction", "channel_message", "dream"]
)
def test_a_trusted_writer_can_force_a_short_anchor(source_type):
    """Decision 15: short anchors (version pins, ids) are valid with `force`."""
    decision = assess_worthiness("v2.3.1", force=True, source_type=source_type)
    assert (decision.worthy, decision.rule) == (True, "forced")


@pytest.mark.parametrize("source_type", ["tool_output", "retrieved_document", "compaction", "extraction"])
def test_an_untrusted_writers_force_is_ignored(source_type):
    decision = assess_worthiness("ok", force=True, source_type=source_type)
    assert (decision.worthy, decision.rule) == (False, "too_short")
    assert "force is honoured only for trusted writers" in decision.reason


def test_an_unknown_source_types_force_is_ignored_too():
    assert not assess_worthiness("ok", force=True, source_type="web_scrape").worthy


def test_a_refusal_becomes_an_unworthy_fact_error():
    error = assess_worthiness("thanks!").to_error()
    assert isinstance(error, UnworthyFactError)
    assert error.to_dict() == {
        "kind": "unworthy",
        "message": "too short — not durable knowledge",
        "rules": ["too_short"],
    }
