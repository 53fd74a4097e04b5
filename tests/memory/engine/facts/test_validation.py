"""The write path's own field rules (memory.engine.facts.validation), without a database."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.facts import interchange as X
from memory.engine.facts import records as R
from memory.engine.facts import validation as V
from memory.engine.writes.gate import FactValidationError

NOW_MS = 1_750_000_000_000
DAY_MS = 86_400_000
GOLD = Path("/work/shared/data/tideline-gold")


# ---------------------------------------------------------------- ids


@pytest.mark.parametrize("good", ["mem_mqmhnc52_eod06u", "h-diet", "rc-team", "m1", "_x", "D1:3", "a.b", "x" * 128])
def test_ids_the_original_engine_and_its_gold_sets_use_pass(good):
    assert V.check_memory_id(good) == good


@pytest.mark.parametrize(
    "bad",
    ["a/b", "a b", "a?b", "a#b", "a%2Fb", "a\x00b", "a\nb", "..", ".hidden", "-x", ":x", "", "x" * 129, "é", "a\u202eb",
     "a\u200bb", 7, None],
)  # fmt: skip
def test_ids_that_would_break_a_url_or_the_column_are_refused(bad):
    with pytest.raises(FactValidationError) as caught:
        V.check_memory_id(bad)
    assert caught.value.rules == ("bad_id",)


@pytest.mark.skipif(not GOLD.is_dir(), reason="the original engine's gold sets are not here")
def test_every_id_in_the_original_gold_sets_passes():
    keys = [fact["key"] for path in GOLD.glob("*.json") for fact in json.loads(path.read_text()).get("facts", [])]
    assert keys and all(V.is_memory_id(key) for key in keys)


def test_ids_named_in_supersedes_and_links_follow_the_same_rule():
    with pytest.raises(FactValidationError, match="supersedes"):
        V.check_fields(content="fine", supersedes=("ok", "a/b"))
    with pytest.raises(FactValidationError, match="link target"):
        V.check_fields(content="fine", links=[("relates", "x y", "")])


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("field", "value"),
    [("importance", 1.5), ("importance", -0.01), ("importance", math.nan), ("confidence", 2), ("confidence", math.inf),
     ("decay_rate", -1), ("decay_rate", 1.01), ("decay_rate", math.nan), ("access_count", 2**31),
     ("access_count", 1e30), ("access_count", -1), ("access_count", 1.5), ("created_at_ms", 1e20),
     ("created_at_ms", -5), ("created_at_ms", NOW_MS + 2 * DAY_MS), ("last_accessed_at_ms", NOW_MS + 2 * DAY_MS),
     ("valid_to_ms", 10**20), ("valid_from_ms", -1), ("created_at_ms", 10**400), ("importance", True)],
)  # fmt: skip
def test_out_of_range_numbers_are_refused(field, value):
    with pytest.raises(FactValidationError):
        V.check_fields(content="fine", now_ms=NOW_MS, **{field: value})


def test_in_range_numbers_pass_including_a_planned_validity_and_slight_clock_skew():
    V.check_fields(content="fine", importance=0, confidence=1, decay_rate=1, access_count=2**31 - 1,
                   created_at_ms=NOW_MS + DAY_MS - 1, valid_to_ms=NOW_MS + 400 * DAY_MS, now_ms=NOW_MS)  # fmt: skip


def test_every_segment_default_decay_rate_is_within_the_bound():
    assert all(0 <= d.decay_rate <= V.MAX_DECAY_RATE for d in R.SEGMENT_DEFAULTS.values())


# ---------------------------------------------------------------- text


@pytest.mark.parametrize("field", ["subject_key", "intent_scope", "source_turn"])
def test_over_long_short_columns_are_refused(field):
    V.check_fields(content="fine", **{field: "k" * 200})
    with pytest.raises(FactValidationError, match="the limit is 200"):
        V.check_fields(content="fine", **{field: "k" * 201})


@pytest.mark.parametrize("field", ["subject_key", "intent_scope", "source_turn", "media_pointer"])
def test_nul_and_lone_surrogates_are_refused_in_every_text_field(field):
    for bad in ("a\x00b", "a\ud800b"):
        with pytest.raises(FactValidationError):
            V.check_fields(content="fine", **{field: bad})
    with pytest.raises(FactValidationError):
        V.check_fields(content="fine", source_pointers=["ok", "a\x00"])
    with pytest.raises(FactValidationError):
        V.check_fields(content="fine", links=[("relates", "x", "why\x00")])


@pytest.mark.parametrize("source", [None, "owner_message", "tool_output"])
def test_nul_is_refused_in_any_content(source):
    with pytest.raises(FactValidationError, match="NUL"):
        V.check_content("before\x00after", source)


@pytest.mark.parametrize("source", sorted(R.UNTRUSTED_SOURCE_TYPES))
def test_untrusted_content_is_cleaned_of_control_characters_but_keeps_tab_and_newlines(source):
    assert V.check_content("a\x07b\x1bc\td\ne\rf\x7fg", source) == "abc\td\ne\rfg"


def test_trusted_content_is_kept_as_written():
    assert V.check_content("beep \x07 here", "owner_message") == "beep \x07 here"


def test_untrusted_content_of_only_control_characters_is_empty():
    with pytest.raises(FactValidationError, match="empty"):
        V.check_content("\x01\x02 \x03", "tool_output")


# ---------------------------------------------------------------- origins


@pytest.mark.parametrize("hidden", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200b", "\u200d", "\ufeff", "\x00", "\x1b",
                                    "\u2028"])  # fmt: skip
def test_origin_ids_refuse_bidi_overrides_zero_width_and_control_characters(hidden):
    with pytest.raises(R.OriginError, match="invisible or control"):
        R.parse_origin(f"channel:slack/team{hidden}/s1")
    with pytest.raises(R.OriginError):
        R.origin_from_created_by({"kind": "channel", "channelId": "wa", "conversationId": "c",
                                  "sessionKey": f"s{hidden}"})  # fmt: skip
    with pytest.raises(FactValidationError):
        V.check_fields(content="fine", origin=R.Origin("channel", "wa", "c", "s", f"acct{hidden}"))


def test_origin_parts_are_bounded_by_their_columns():
    assert R.parse_origin("channel:" + "/".join(["x" * 200] * 3)).channel_id == "x" * 200
    with pytest.raises(R.OriginError, match="the limit is 200"):
        R.parse_origin("channel:" + "x" * 201 + "/c/s")
    # Quotes double in the JSON key: four 200-character parts of quotes would not fit its 900.
    with pytest.raises(R.OriginError, match="too long"):
        R.check_origin(R.Origin("channel", '"' * 200, '"' * 200, '"' * 200, '"' * 200))


def test_visible_unicode_origins_still_pass():
    assert R.parse_origin("channel:whatsapp/família-😀/sessão").conversation_id == "família-😀"


# ---------------------------------------------------------------- interchange lines


def test_deep_nesting_and_huge_integers_are_refused_lines_not_crashes():
    with pytest.raises(X.InterchangeError, match="nested too deeply"):
        X.decode_line('{"memoryId": "a", "content": "c", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(X.InterchangeError):
        X.decode_line('{"memoryId": "a", "createdAt": 1' + "0" * 5000 + "}")


def test_a_line_that_is_not_utf8_is_refused_on_its_own():
    with pytest.raises(X.InterchangeError, match="not UTF-8"):
        X.decode_line(b'{"memoryId": "a", "content": "caf\xe9"}')
    assert X.decode_line(b'{"memoryId": "a"}') == {"memoryId": "a"}


def test_an_escaped_lone_surrogate_anywhere_in_a_line_is_refused():
    with pytest.raises(X.InterchangeError, match="surrogate"):
        X.decode_line('{"memoryId": "a", "content": "ok", "metadata": {"deep": [{"k": "\\udc00"}]}}')


# ---------------------------------------------------------------- properties

_hostile_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from("a/?#% \x00\x07\u202e\u200b\ud800\U0001f600-_.:"), max_size=30),
    st.builds(lambda n, c: c * n, st.integers(0, 1200), st.sampled_from(["x", "\x00", "é", '"'])),
)
_hostile_number = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=True),
    st.sampled_from([1e20, 1e30, -1, 2**31, 10**400]), st.text(max_size=3),
)  # fmt: skip
_hostile_any = st.one_of(_hostile_text, _hostile_number, st.lists(_hostile_text, max_size=3), st.just({"k": 1}))
_origin = st.one_of(
    st.just(R.Origin.owner()),
    st.builds(lambda a, b, c, d: R.Origin("channel", a, b, c, d), _hostile_text, _hostile_text, _hostile_text, _hostile_text),
    _hostile_any,
)
_fields = st.fixed_dictionaries(
    {"content": st.one_of(_hostile_text, _hostile_any)},
    optional={
        "source_type": st.one_of(st.sampled_from(R.SOURCE_TYPES), _hostile_any), "origin": _origin,
        "memory_id": st.one_of(_hostile_text, _hostile_any), "subject_key": _hostile_any, "intent_scope": _hostile_any,
        "source_turn": _hostile_any, "media_pointer": _hostile_any, "source_pointers": _hostile_any,
        "supersedes": _hostile_any,
        "links": st.one_of(_hostile_any, st.lists(st.tuples(st.sampled_from(R.LINK_KINDS + ("bogus",)), _hostile_text,
                                                            st.one_of(st.none(), _hostile_text)), max_size=3)),
        "importance": _hostile_number, "confidence": _hostile_number, "decay_rate": _hostile_number,
        "access_count": _hostile_number, "created_at_ms": _hostile_number, "last_accessed_at_ms": _hostile_number,
        "valid_from_ms": _hostile_number, "valid_to_ms": _hostile_number,
    },
)  # fmt: skip

# The model's column limits (memory/models.py), restated so the test checks the validator against them.
COLUMNS = {"memory_id": 128, "subject_key": 200, "intent_scope": 200, "source_turn": 200, "media_pointer": 1000}


@settings(max_examples=400, deadline=None)
@given(fields=_fields)
def test_hostile_fields_raise_only_the_typed_error_and_what_passes_fits_the_columns(fields):
    try:
        content = V.check_fields(**fields, now_ms=time.time() * 1000)
    except FactValidationError as error:
        assert error.message and error.rules and len(error.message) < 400
        return
    assert isinstance(content, str) and 1 <= len(content) <= R.MAX_FACT_CONTENT_CHARS and "\x00" not in content
    for name, limit in COLUMNS.items():
        value = fields.get(name)
        assert value is None or (isinstance(value, str) and len(value) <= limit and "\x00" not in value)
    if fields.get("memory_id") is not None:
        assert "/" not in fields["memory_id"] and V.is_memory_id(fields["memory_id"])
    origin = fields.get("origin")
    if isinstance(origin, R.Origin) and not origin.is_owner:
        assert len(origin.key) <= 900 and all(len(p) <= 200 for p in (origin.channel_id, origin.session_key))
    for name in ("importance", "confidence"):
        value = fields.get(name)
        assert value is None or 0 <= value <= 1
    for name in ("created_at_ms", "valid_to_ms"):
        value = fields.get(name)
        assert value is None or 0 <= value <= V.MAX_EPOCH_MS


_json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _hostile_text),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(_hostile_text, children, max_size=3)),
    max_leaves=8,
)
_line_keys = st.sampled_from(list(X.KEY_ORDER) + ["classification", "intentScope", "createdBy", "futureKey"])


@settings(max_examples=300, deadline=None)
@given(
    base=st.fixed_dictionaries({"memoryId": st.one_of(st.just("mem_ok"), _hostile_text), "content": _hostile_text}),
    extra=st.dictionaries(_line_keys, _json_value, max_size=6),
)
def test_any_decoded_line_is_a_record_or_an_interchange_error(base, extra):
    try:
        line = json.dumps({**base, **extra})
    except ValueError:
        return
    try:
        obj = X.decode_line(line)
        record = X.parse_record(obj) if obj is not None else None
    except X.InterchangeError:
        return
    if record is not None:
        assert V.is_memory_id(record.memory_id) and record.content.strip()
        assert 0 <= record.created_at <= time.time() * 1000 + V.FUTURE_TOLERANCE_MS
        assert 0 <= record.access_count <= V.MAX_COUNT and 0 <= record.decay_rate <= V.MAX_DECAY_RATE
