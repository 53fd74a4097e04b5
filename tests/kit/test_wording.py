"""Messages joined from parts never double a full stop."""

from __future__ import annotations

from tideline_kit.wording import sentence, sentences


def test_each_part_ends_in_exactly_one_stop():
    assert sentences("the password is not accepted: This password is too common.", "Nothing was created.") == (
        "the password is not accepted: This password is too common. Nothing was created.")
    assert sentences("no user named 'x'", "Nothing was changed") == "no user named 'x'. Nothing was changed."
    assert sentences("already stored..", "", "  ", "Why?") == "already stored. Why?"
    assert sentence("is it?") == "is it?" and sentence("wait…") == "wait…" and sentence("  ") == ""
