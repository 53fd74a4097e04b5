"""A restarted process loads a large origin's recall index from its sealed snapshot, then follows the
log as any index does; a snapshot it cannot trust is never read (memory.services.recall.index_snapshots)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.utils import timezone

from memory import sealing
from memory.engine.facts import records as R
from memory.services.keys.crypto_shred import shred_origin
from memory.services.lifecycle.curation import set_lifecycle
from memory.services.lifecycle.retract_and_purge import purge_facts
from memory.services.recall import index as recall_index
from memory.services.recall import index_snapshots
from memory.services.recall import verbs as recall_service
from memory.services.recall.index import IndexRegistry
from memory.services.writes.interchange import import_facts
from memory.services.writes.write_path import NewFact, write_fact
from memory.timestamps import to_ms

pytestmark = pytest.mark.django_db

OWNER = R.Origin.owner()
PEER = R.parse_origin("channel:wa/c1/s1")
FACTS = ["I live in Porto.", "My sister Maria plays the piano.", "The falcon project deadline is Friday.",
         "I drink green tea every morning.", "Joao runs a marathon in May."]  # fmt: skip


@pytest.fixture(autouse=True)
def snapshots_on(tmp_path):
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=1, TIDELINE_RECALL_SNAPSHOT_DIR=tmp_path / "snapshots"):
        yield tmp_path / "snapshots"


def _write(workspace, text, origin=OWNER):
    return write_fact(workspace=workspace, new=NewFact(content=text, segment="knowledge", origin=origin), actor="test")


def _fresh_process():
    """What a restarted process sees: no index in memory, no cached data key."""
    sealing.keyring.forget_cache()
    return IndexRegistry()


def _restored(registry: IndexRegistry, workspace, origin, monkeypatch) -> tuple:
    """The index `registry` serves, and whether it started from the snapshot (not a full read)."""
    loaded = []
    original = index_snapshots.load
    monkeypatch.setattr(index_snapshots, "load", lambda *args: loaded.append(original(*args)) or loaded[-1])
    index = registry.get(workspace, origin)
    monkeypatch.setattr(index_snapshots, "load", original)
    return index, bool(loaded) and loaded[0] is not None


def _hits(workspace, origin, query):
    return [(h.id, h.content) for h in recall_service.recall(workspace=workspace, query=query, origin=origin, k=5,
                                                          reinforce=False)]  # fmt: skip


def test_a_restarted_process_serves_from_the_snapshot_and_ranks_as_a_fresh_build(workspace, monkeypatch):
    from tests.memory.services.recall.test_recall_index_sync import assert_same_index

    for text in FACTS:
        _write(workspace, text)
    built = recall_index.registry.get(workspace, OWNER)
    assert index_snapshots.path_of(workspace.pk, OWNER.key).exists()
    restarted = _fresh_process()
    index, from_snapshot = _restored(restarted, workspace, OWNER, monkeypatch)
    assert from_snapshot and index.revision == built.revision
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):
        assert_same_index(index, IndexRegistry().get(workspace, OWNER))
    before = _hits(workspace, "owner", "where do I live")
    monkeypatch.setattr(recall_index, "registry", restarted)
    monkeypatch.setattr(recall_service, "registry", restarted)
    assert _hits(workspace, "owner", "where do I live") == before and before[0][1] == "I live in Porto."


def test_writes_after_the_snapshot_are_taken_from_the_log(workspace, monkeypatch):
    from tests.memory.services.recall.test_recall_index_sync import assert_same_index

    for text in FACTS:
        _write(workspace, text)
    recall_index.registry.get(workspace, OWNER)  # the snapshot, as of now
    _write(workspace, "I moved to Lisbon in March.")
    archived = _write(workspace, "I park at the old station.").fact
    set_lifecycle(workspace=workspace, memory_ids=[archived.memory_id], lifecycle="archived", actor="test")
    index, from_snapshot = _restored(_fresh_process(), workspace, OWNER, monkeypatch)
    assert from_snapshot  # the snapshot, then only the facts the events name
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):
        assert_same_index(index, IndexRegistry().get(workspace, OWNER))
    assert "I moved to Lisbon in March." in index.cols.contents


@pytest.mark.parametrize("archived", [1, 4])
def test_a_snapshot_most_of_whose_facts_changed_since_is_not_opened(workspace, monkeypatch, archived):
    """A dream touches most facts: restoring the snapshot only to rebuild right after would hold both
    at once. Its header and the events since decide first; a few changes still restore it."""
    from tests.memory.services.recall.test_recall_index_sync import assert_same_index

    monkeypatch.setattr(recall_index, "REBUILD_MIN_FACTS", 4)
    facts = [_write(workspace, text).fact for text in FACTS]
    recall_index.registry.get(workspace, OWNER)  # the snapshot, as of now
    set_lifecycle(workspace=workspace, memory_ids=[f.memory_id for f in facts[:archived]], lifecycle="archived",
                  actor="test")  # fmt: skip
    opened = []
    original = index_snapshots.load
    monkeypatch.setattr(index_snapshots, "load", lambda *args: opened.append(args) or original(*args))
    index = _fresh_process().get(workspace, OWNER)
    monkeypatch.setattr(index_snapshots, "load", original)
    assert bool(opened) == (archived == 1)  # four of five changed: more than half, so built afresh
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):
        assert_same_index(index, IndexRegistry().get(workspace, OWNER))


def test_a_shredded_origin_leaves_no_snapshot_and_none_is_ever_read(workspace, monkeypatch, snapshots_on):
    for text in FACTS:
        _write(workspace, text, PEER)
    _write(workspace, "I live in Porto.")
    recall_index.registry.get(workspace, PEER)
    peer_file = index_snapshots.path_of(workspace.pk, PEER.key)
    kept = peer_file.read_bytes()
    assert b"piano" not in kept and b"Maria" not in kept  # sealed: no text in the clear
    shred_origin(workspace, PEER.key, actor="admin")
    assert not peer_file.exists()
    peer_file.write_bytes(kept)  # a copy made before the shred comes back: it can never be opened
    index, from_snapshot = _restored(_fresh_process(), workspace, PEER, monkeypatch)
    assert not from_snapshot and not index.rows and not peer_file.exists()


def test_a_purge_deletes_the_snapshots_that_held_the_purged_text(workspace):
    facts = [_write(workspace, text).fact for text in FACTS]
    recall_index.registry.get(workspace, OWNER)
    assert index_snapshots.path_of(workspace.pk, OWNER.key).exists()
    purge_facts(workspace, [facts[0].memory_id], actor="admin", reason="asked")
    assert not index_snapshots.path_of(workspace.pk, OWNER.key).exists()


@pytest.mark.parametrize("damage", ["flip a byte", "cut short", "another workspace's header", "ahead of the log"])
def test_a_damaged_or_foreign_snapshot_is_dropped_and_the_index_built_from_the_database(
    workspace, other_workspace, monkeypatch, damage
):
    for text in FACTS:
        _write(workspace, text)
    recall_index.registry.get(workspace, OWNER)
    path = index_snapshots.path_of(workspace.pk, OWNER.key)
    data = bytearray(path.read_bytes())
    header_end = data.index(b"\n") + 1
    if damage == "flip a byte":
        data[header_end + 40] ^= 0x01
    elif damage == "cut short":
        data = data[: len(data) - 20]
    elif damage == "another workspace's header":
        data[:header_end] = data[:header_end].replace(f'"workspace": {workspace.pk}'.encode(),
                                                      f'"workspace": {other_workspace.pk}'.encode())  # fmt: skip
    else:
        data[:header_end] = data[:header_end].replace(b'"revision": ', b'"revision": 9')
    path.write_bytes(bytes(data))
    index, from_snapshot = _restored(_fresh_process(), workspace, OWNER, monkeypatch)
    assert not from_snapshot and sorted(index.cols.contents) == sorted(FACTS)
    # The build wrote a good snapshot again.
    assert _restored(_fresh_process(), workspace, OWNER, monkeypatch)[1]


def test_small_indexes_are_not_snapshotted(workspace):
    _write(workspace, "I live in Porto.")
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=2):
        IndexRegistry().get(workspace, OWNER)
    assert not index_snapshots.path_of(workspace.pk, OWNER.key).exists()


def _frames(data: bytes) -> list[bytes]:
    """The sealed frames of a stream, as written (length and flag, nonce, ciphertext)."""
    out, at = [], 0
    while at < len(data):
        length, _ = index_snapshots._FRAME_HEAD.unpack_from(data, at)
        end = at + index_snapshots._FRAME_HEAD.size + index_snapshots._NONCE + length
        out.append(data[at:end])
        at = end
    return out


@pytest.mark.parametrize("frame_bytes", [1, 7, 64, 1 << 20])
def test_sealed_frames_carry_any_pickle_across_their_bounds_and_refuse_any_reordering(monkeypatch, frame_bytes):
    import io
    import os
    import pickle

    import numpy as np
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    monkeypatch.setattr(index_snapshots, "FRAME_BYTES", frame_bytes)
    aead, bound = AESGCM(os.urandom(32)), b"header digest"
    state = {"texts": ["I live in Porto.\n", "two\nlines"] * 20, "array": np.arange(500, dtype=np.float32),
             "nested": [{"a": (1, 2.5, None)}, b"\x00\n" * 30]}  # fmt: skip
    out = io.BytesIO()
    writer = index_snapshots._SealedWriter(out, aead, bound)
    pickle.dump(state, writer, protocol=5)
    writer.close()
    data = out.getvalue()
    assert b"Porto" not in data
    reader = index_snapshots._SealedReader(io.BytesIO(data), aead, bound)
    got = pickle.load(reader)
    reader.finish()
    assert got["texts"] == state["texts"] and got["nested"] == state["nested"]
    assert np.array_equal(got["array"], state["array"])
    frames = _frames(data)
    broken = [b"".join(frames[:-1])]  # the last frame dropped
    if len(frames) > 2:
        broken.append(b"".join([frames[1], frames[0], *frames[2:]]))  # two frames swapped
    broken.append(data)  # the right stream under another header
    for i, stream in enumerate(broken):
        reader = index_snapshots._SealedReader(io.BytesIO(stream), aead, bound if i < len(broken) - 1 else b"other")
        with pytest.raises(Exception):  # noqa: B017, PT011 - a tag mismatch or a stream that ends early
            pickle.load(reader)
            reader.finish()


def test_a_snapshot_this_code_cannot_read_is_dropped_once_and_the_index_built(workspace, monkeypatch):
    """A file that authenticates but holds another version's layout never breaks recall."""
    for text in FACTS:
        _write(workspace, text)
    index = recall_index.registry.get(workspace, OWNER)
    assert index_snapshots.save(workspace.pk, OWNER.key, index.born, index.revision, {"rows": {"not": "tuples"}})
    rebuilt, from_snapshot = _restored(_fresh_process(), workspace, OWNER, monkeypatch)
    assert sorted(rebuilt.cols.contents) == sorted(FACTS)
    assert _restored(_fresh_process(), workspace, OWNER, monkeypatch)[1]  # written again, and good


def _import_lines(count: int, prefix: str = "mem_bulk") -> list[str]:
    import json

    now = to_ms(timezone.now())
    return [json.dumps({"memoryId": f"{prefix}_{i}", "content": f"{FACTS[i % len(FACTS)][:-1]} (note {i}).",
                        "segment": "knowledge", "tier": "long", "importance": 0.7, "decayRate": 0.01,
                        "lifecycle": "active", "accessCount": 0, "createdAt": now, "lastAccessedAt": now,
                        "createdBy": {"kind": "owner"}, "sourceType": "owner_message"})
            for i in range(count)]  # fmt: skip


def test_a_bulk_import_leaves_each_large_origin_snapshotted_for_every_process_first_recall(
    workspace, monkeypatch, django_capture_on_commit_callbacks
):
    from tests.memory.services.recall.test_recall_index_sync import assert_same_index

    _write(workspace, FACTS[0], origin=PEER)
    _write(workspace, FACTS[1], origin=PEER)
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=3), django_capture_on_commit_callbacks(execute=True) as queued:
        report = import_facts(workspace=workspace, lines=_import_lines(6), actor="test")
    assert report.imported == 6 and len(queued) == 1
    workspace.refresh_from_db()
    # The owner's six facts are on disk as of the import; the peer's two are under the minimum.
    assert index_snapshots.peek(workspace.pk, OWNER.key) == (workspace.revision, 6)
    assert not index_snapshots.path_of(workspace.pk, PEER.key).exists()
    # The worker that wrote it keeps no index in memory.
    assert (workspace.pk, OWNER.key) not in recall_index.registry._indexes
    index, from_snapshot = _restored(_fresh_process(), workspace, OWNER, monkeypatch)
    assert from_snapshot and index.revision == workspace.revision
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=0):
        assert_same_index(index, IndexRegistry().get(workspace, OWNER))
    assert "falcon project" in " ".join(text for _, text in _hits(workspace, OWNER, "falcon project deadline"))


def test_a_small_import_queues_no_snapshot_and_a_current_one_is_not_written_again(
    workspace, django_capture_on_commit_callbacks
):
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=5), django_capture_on_commit_callbacks(execute=True) as queued:
        import_facts(workspace=workspace, lines=_import_lines(4), actor="test")
    assert queued == [] and not index_snapshots.path_of(workspace.pk, OWNER.key).exists()
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=3):
        assert recall_index.write_snapshots(workspace.pk) == [OWNER.key]
        written = index_snapshots.path_of(workspace.pk, OWNER.key).stat().st_mtime_ns
        assert recall_index.write_snapshots(workspace.pk) == []  # current: left as it is
        assert index_snapshots.path_of(workspace.pk, OWNER.key).stat().st_mtime_ns == written
        _write(workspace, "My bicycle is blue.")
        assert recall_index.write_snapshots(workspace.pk) == [OWNER.key]  # behind the workspace: written anew
        workspace.refresh_from_db()
        assert index_snapshots.peek(workspace.pk, OWNER.key) == (workspace.revision, 5)


def test_a_purge_that_commits_while_a_snapshot_is_written_leaves_no_file_behind(workspace, monkeypatch):
    """The purge deletes the snapshots as it deletes the facts; a build that read the facts before it
    and writes its snapshot after would leave their text on disk: that file is deleted at once."""
    facts = [_write(workspace, text).fact for text in FACTS]
    original = index_snapshots.save

    def purge_first(*args):
        monkeypatch.setattr(index_snapshots, "save", original)
        purge_facts(workspace, [facts[0].memory_id], actor="admin", reason="asked")  # commits before the write
        return original(*args)

    monkeypatch.setattr(index_snapshots, "save", purge_first)
    recall_index.registry.get(workspace, OWNER)
    assert not index_snapshots.path_of(workspace.pk, OWNER.key).exists()
    # The index follows the purge on its next use, and the next snapshot is written as usual.
    workspace.refresh_from_db()
    assert facts[0].memory_id not in recall_index.registry.get(workspace, OWNER).rows
    assert recall_index.write_snapshots(workspace.pk) == [OWNER.key]


def test_a_snapshot_of_an_earlier_workspace_under_the_same_id_is_not_taken_as_current(workspace):
    """An id can come back (a rolled-back transaction); the creation time cannot: a file naming the
    same id and revision but another creation time is written anew, not kept."""
    from datetime import timedelta

    from memory.models import Workspace

    for text in FACTS:
        _write(workspace, text)
    assert recall_index.write_snapshots(workspace.pk) == [OWNER.key]
    Workspace.objects.filter(pk=workspace.pk).update(created_at=workspace.created_at + timedelta(seconds=1))
    assert recall_index.write_snapshots(workspace.pk) == [OWNER.key]
    assert recall_index.write_snapshots(workspace.pk) == []  # now it names this row: current


def test_an_import_still_succeeds_when_the_broker_cannot_take_the_snapshot_task(
    workspace, monkeypatch, django_capture_on_commit_callbacks
):
    import django_q.tasks

    def broker_down(*args, **kwargs):
        raise ConnectionError("the broker does not answer")

    monkeypatch.setattr(django_q.tasks, "async_task", broker_down)
    with override_settings(TIDELINE_RECALL_SNAPSHOT_MIN_FACTS=3), django_capture_on_commit_callbacks(execute=True) as queued:
        report = import_facts(workspace=workspace, lines=_import_lines(4), actor="test")
    assert len(queued) == 1 and report.imported == 4
    assert not index_snapshots.path_of(workspace.pk, OWNER.key).exists()
    assert "Porto" in " ".join(text for _, text in _hits(workspace, OWNER, "Where do I live in Porto"))
