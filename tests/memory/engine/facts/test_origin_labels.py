"""Every origin Tideline accepts has exactly one label, and the label parses back to it: no part
holds a separator of the label (`/` anywhere, `@` before the account), is empty (but the account) or
begins or ends with white space. Before, a session key `s1@evil` and the session `s1` of account
`evil` shared the label `channel:C/V/s1@evil`, and a part holding `/` gave a label nothing parses."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memory.engine.facts import records as R

# Separators, white space and ordinary characters, often enough to hit every rule.
PART = st.text(alphabet=st.sampled_from(["a", "b", "1", "-", ":", ".", "@", "/", " ", "*", "é"]), max_size=5)
ANY = st.builds(R.Origin, st.just("channel"), PART, PART, PART, PART) | st.just(R.Origin.owner())
# Parts most of which pass: everything but the separators a part may not hold, inner spaces included.
NAMED = st.text(alphabet=st.sampled_from(["a", "b", "1", "-", ":", ".", " ", "*", "é"]), min_size=1, max_size=5).map(str.strip)
ACCOUNT = st.text(alphabet=st.sampled_from(["a", "1", "@", ".", " ", ":"]), max_size=5).map(str.strip)
ORIGINS = st.builds(R.Origin, st.just("channel"), NAMED, NAMED, NAMED, ACCOUNT) | ANY


def _accepted(origin: R.Origin) -> bool:
    try:
        R.check_origin(origin)
    except R.OriginError:
        return False
    return True


@given(ORIGINS)
def test_every_accepted_origin_parses_back_from_its_label(origin):
    assume(_accepted(origin))
    assert R.parse_origin(origin.label()) == origin
    assert R.origin_from_created_by(origin.as_created_by()) == origin


@given(ORIGINS, ORIGINS)
def test_distinct_accepted_origins_have_distinct_labels(one, other):
    assume(_accepted(one) and _accepted(other) and one != other)
    assert one.label() != other.label()


@given(ANY)
def test_a_label_either_parses_to_an_accepted_origin_or_is_refused(origin):
    """Whatever text arrives as a label, what parses is an origin check_origin accepts."""
    try:
        parsed = R.parse_origin(origin.label())
    except R.OriginError:
        return
    assert _accepted(parsed) and R.parse_origin(parsed.label()) == parsed


@pytest.mark.parametrize("parts, says", [
    (("slack", "general", "s1@evil", ""), "origin session 's1@evil' contains '@'"),
    (("slack", "gen/eral", "s1", ""), "origin conversation 'gen/eral' contains '/'"),
    (("sl@ck", "general", "s1", ""), "origin channel 'sl@ck' contains '@'"),
    (("slack", "general", "s1", "T1/x"), "origin account 'T1/x' contains '/'"),
    (("slack", "", "s1", ""), "origin conversation is empty"),
    (("slack", "general", "s1 ", ""), "begins or ends with white space"),
])  # fmt: skip
def test_ambiguous_parts_are_refused_with_the_rule(parts, says):
    with pytest.raises(R.OriginError, match=says.replace("'", ".")):
        R.check_origin(R.Origin("channel", *parts))
    kind_by = dict(zip(("channelId", "conversationId", "sessionKey", "accountId"), parts, strict=True))
    with pytest.raises(R.OriginError):
        R.origin_from_created_by({"kind": "channel", **kind_by})


def test_an_account_may_be_an_email_address_and_still_parses_back():
    origin = R.Origin("channel", "email", "inbox", "thread-7", "ana@example.com")
    assert origin.label() == "channel:email/inbox/thread-7@ana@example.com"
    assert R.parse_origin(origin.label()) == origin
