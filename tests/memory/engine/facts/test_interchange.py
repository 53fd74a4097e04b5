"""facts.jsonl records are read and written back exactly (ENGINE-SPEC §1.7)."""

from __future__ import annotations

import pytest

from memory.engine.facts import interchange as X
from memory.engine.facts import records as R

FULL = {
    "memoryId": "mem_mqmhnc52_eod06u",
    "content": "I deploy on Fridays",
    "segment": "preference",
    "tier": "long",
    "importance": 0.7000000000000001,
    "decayRate": 0.02,
    "accessCount": 2,
    "lastAccessedAt": 1750000300000,
    "createdAt": 1750000000000,
    "sourceTurn": "sess-1",
    "supersedes": ["mem_old"],
    "lifecycle": "active",
    "createdBy": {"kind": "channel", "channelId": "slack", "conversationId": "c:1", "sessionKey": "s.1", "accountId": "T1"},
    "sourceType": "channel_message",
    "links": [{"kind": "supports", "target": "mem_b", "reason": "same day", "strength": 3}],
    "validFrom": 1750000000000,
    "validTo": 1760000000000,
    "confidence": 0.9,
    "status": "confirmed",
    "sourcePointers": ["mem_src"],
    "modality": "audio",
    "mediaPointer": "s3://bucket/a.ogg",
    "subjectKey": "deploy_day",
    "metadata": {"corrects": "Thursdays"},
    "embedding": [0.0417, -0.0832],
}


def test_a_full_record_renders_back_identically_with_the_writer_key_order():
    out = X.render_record(X.parse_record(FULL))
    assert out == FULL
    assert list(out) == list(FULL)


def test_a_legacy_record_without_origin_is_the_owners_and_exports_without_one():
    legacy = {k: v for k, v in FULL.items() if k not in ("createdBy", "sourceType")}
    record = X.parse_record(legacy)
    assert record.origin == R.Origin.owner() and not record.origin_recorded
    assert X.render_record(record) == legacy


def test_unknown_keys_survive_a_round_trip():
    record = X.parse_record({**FULL, "futureField": {"nested": [1, 2]}, "another": None})
    assert X.render_record(record)["futureField"] == {"nested": [1, 2]}
    assert "another" in X.render_record(record)


def test_a_minimal_record_does_not_gain_defaulted_keys_on_export():
    minimal = {"memoryId": "m1", "content": "just text"}
    record = X.parse_record(minimal)
    assert record.segment == "context" and record.lifecycle == "archived"  # never "active" (§1.7)
    assert X.render_record(record) == minimal


@pytest.mark.parametrize(
    "patch,reason",
    [
        ({"memoryId": 5}, "memoryId"),
        ({"content": "   "}, "content"),
        ({"content": "x" * 1001}, "1000"),
        ({"segment": "gossip"}, "segment"),
        ({"sourceType": "web_page"}, "sourceType"),
        ({"importance": 1.5}, "importance"),
        ({"importance": "high"}, "importance"),
        ({"accessCount": 1.5}, "accessCount"),
        ({"links": [{"kind": "likes", "target": "x"}]}, "kind"),
        ({"links": [{"kind": "relates"}]}, "target"),
        ({"createdBy": {"kind": "alien"}}, "createdBy"),
        ({"createdBy": {"kind": "channel", "channelId": "x"}}, "channel"),
        ({"metadata": [1]}, "metadata"),
        ({"supersedes": "mem_x"}, "supersedes"),
    ],
)
def test_invalid_records_are_refused_with_a_reason(patch, reason):
    with pytest.raises(X.InterchangeError, match=reason):
        X.parse_record({**FULL, **patch})


def test_decode_line_skips_blank_lines_and_reports_bad_json():
    assert X.decode_line("   \n") is None
    with pytest.raises(X.InterchangeError, match="not valid JSON"):
        X.decode_line("{nope")
    with pytest.raises(X.InterchangeError, match="JSON object"):
        X.decode_line("[1, 2]")


def test_channel_origin_keys_cannot_collide_through_separators():
    a = R.Origin("channel", "a:b", "c", "d")
    b = R.Origin("channel", "a", "b:c", "d")
    assert a.key != b.key


def test_parse_origin_accepts_the_cli_forms_and_refuses_malformed_ones():
    assert R.parse_origin("owner").is_owner
    peer = R.parse_origin("channel:slack/team/s1@T9")
    assert (peer.channel_id, peer.conversation_id, peer.session_key, peer.account_id) == ("slack", "team", "s1", "T9")
    for bad in ("root", "channel:slack/team", "channel:a//c", ""):
        with pytest.raises(R.OriginError):
            R.parse_origin(bad)
