"""Recall index snapshots: a process that does not hold an origin's index loads it from disk instead
of rebuilding it from the database (a minute at a million facts, most of it decrypting and re-cutting
every fact; 90 ms of a 1,000-fact workspace's first recall, against 25 ms from its snapshot).

After a full build of an index of at least `TIDELINE_RECALL_SNAPSHOT_MIN_FACTS` facts, the index is
written to `TIDELINE_RECALL_SNAPSHOT_DIR` as of its revision; after a bulk import of at least that many
facts, the worker writes the workspace's (`index.write_snapshots`). A later full build first tries the
snapshot: it is used only if it opens with the origin's data key, names this very workspace row
(id, origin and creation time) and a revision no later than the workspace's; the index then takes
the events since that revision through the ordinary sync, as any index does. Anything else (a
missing, stale-format, foreign, damaged or tampered file) is deleted and the index is built from the
database, as without snapshots.

Nothing in a snapshot is readable without the origin's data key: the file is a plaintext header line
followed by frames sealed with AES-GCM under that key, each bound to the header, its position and
whether it is the last (so no frame can be dropped, reordered or moved to another file). A shredded
origin's key is gone, so its snapshot can never be opened again; the shred and a purge also delete
the workspace's snapshots at once, so no plaintext of removed facts stays on disk. Only a file that
authenticates is unpickled, so the pickle stream was written by this server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import struct
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings

from memory import sealing

logger = logging.getLogger(__name__)

FORMAT = 3  # 2: rows and their metadata as plain tuples; 3: links as columns (memory.engine.maintenance.link_table)
FRAME_BYTES = 8 << 20  # plaintext per sealed frame
_NONCE = 12
_FRAME_HEAD = struct.Struct(">I?")  # sealed length, last frame


def directory() -> Path:
    return Path(settings.TIDELINE_RECALL_SNAPSHOT_DIR)


def path_of(workspace_id: int, origin_key: str) -> Path:
    digest = hashlib.sha256(origin_key.encode()).hexdigest()[:40]
    return directory() / f"w{workspace_id}-{digest}.index"


def minimum_facts() -> int:
    """The fewest facts an index holds to be snapshotted; 0 turns snapshots off."""
    return int(getattr(settings, "TIDELINE_RECALL_SNAPSHOT_MIN_FACTS", 200))


def enabled_for(facts: int) -> bool:
    minimum = minimum_facts()
    return minimum > 0 and facts >= minimum


def save(workspace_id: int, origin_key: str, born, revision: int, state: dict[str, Any]) -> bool:
    """Write `state` (an index's fields) as the snapshot of this origin at `revision`; False (and a
    log line) if it could not be written. Atomic: a reader sees the old file or the new one."""
    try:
        aead = sealing.keyring.data_key(workspace_id, origin_key, create=False).aead
    except sealing.KeyDestroyedError:
        return False
    header = _header(workspace_id, origin_key, born, revision, len(state.get("rows", ())))
    target = path_of(workspace_id, origin_key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header)
                writer = _SealedWriter(out, aead, _bound(header))
                pickle.dump(state, writer, protocol=5)
                writer.close()
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except (OSError, pickle.PicklingError) as error:
        # The message as text: a log record that keeps the exception keeps its frames, and with them
        # the index being saved or restored (a kept record then held a whole index in memory).
        logger.warning("recall index snapshot of workspace %s not written: %s", workspace_id, str(error))
        return False
    return True


def load(workspace_id: int, origin_key: str, born, revision: int) -> tuple[int, dict[str, Any]] | None:
    """(its revision, the index's fields) from this origin's snapshot, or None (and no file left
    behind) when there is none usable: see the module docstring."""
    path = path_of(workspace_id, origin_key)
    if not path.exists():
        return None
    try:
        aead = sealing.keyring.data_key(workspace_id, origin_key, create=False).aead
    except sealing.KeyDestroyedError:
        discard(workspace_id, origin_key)
        return None
    try:
        with path.open("rb") as source:
            header = source.readline(4096)
            facts = json.loads(header)
            expected = json.loads(_header(workspace_id, origin_key, born, facts.get("revision", -1), facts.get("facts", 0)))
            if facts != expected or not 0 <= facts["revision"] <= revision:
                raise ValueError("the snapshot is of another workspace, origin or format, or ahead of the log")
            reader = _SealedReader(source, aead, _bound(header))
            state = pickle.load(reader)
            reader.finish()
    except Exception as error:  # noqa: BLE001 - any unusable file: drop it, build from the database
        logger.warning("recall index snapshot %s not used (%s: %s); building from the database", path.name,
                       type(error).__name__, str(error))  # fmt: skip
        path.unlink(missing_ok=True)
        return None
    return facts["revision"], state


def _plain_header(workspace_id: int, origin_key: str) -> dict:
    """The plaintext header of this origin's snapshot, without opening the sealed frames; raises
    OSError (no file) or ValueError (not a header)."""
    with path_of(workspace_id, origin_key).open("rb") as source:
        header = json.loads(source.readline(4096))
    if not isinstance(header, dict):
        raise ValueError("not a snapshot header")
    return header


def peek(workspace_id: int, origin_key: str) -> tuple[int, int] | None:
    """(revision, facts) from the plaintext header of this origin's snapshot, without opening it; None
    when there is no file or its header does not parse. Only a hint for choosing whether to restore:
    `load` checks everything again."""
    try:
        header = _plain_header(workspace_id, origin_key)
        return int(header["revision"]), int(header["facts"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_current(workspace_id: int, origin_key: str, born, revision: int) -> bool:
    """Does this origin's snapshot (by its plaintext header) name this very workspace row and origin
    at `revision`, in this format? A hint, as `peek`: `load` checks everything again."""
    try:
        header = _plain_header(workspace_id, origin_key)
        return header == json.loads(_header(workspace_id, origin_key, born, revision, int(header["facts"])))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def discard(workspace_id: int, origin_key: str | None = None) -> int:
    """Delete the snapshots of one origin, or of every origin of the workspace; how many went."""
    if origin_key is not None:
        paths = [path_of(workspace_id, origin_key)]
    else:
        paths = list(directory().glob(f"w{workspace_id}-*.index")) if directory().exists() else []
    removed = 0
    for path in paths:
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
    return removed


def _header(workspace_id: int, origin_key: str, born, revision: int, facts: int) -> bytes:
    born_text = born.isoformat() if hasattr(born, "isoformat") else str(born)
    record = {"format": FORMAT, "workspace": workspace_id, "origin": origin_key, "born": born_text,
              "revision": revision, "facts": facts}  # fmt: skip
    return (json.dumps(record, sort_keys=True) + "\n").encode()


def _bound(header: bytes) -> bytes:
    return b"tideline-recall-snapshot|" + hashlib.sha256(header).digest()


def _aad(bound: bytes, index: int, last: bool) -> bytes:
    return bound + struct.pack(">Q?", index, last)


class _SealedWriter:
    """A write-only file for `pickle.dump` that seals what it is given, frame by frame."""

    def __init__(self, out, aead, bound: bytes) -> None:
        self.out, self.aead, self.bound = out, aead, bound
        self.buffer = bytearray()
        self.frames = 0

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        size = len(view)
        while len(view):
            room = FRAME_BYTES - len(self.buffer)
            self.buffer += view[:room]
            view = view[room:]
            if len(self.buffer) >= FRAME_BYTES:
                self._seal(last=False)
        return size

    def close(self) -> None:
        self._seal(last=True)

    def _seal(self, last: bool) -> None:
        nonce = os.urandom(_NONCE)
        sealed = self.aead.encrypt(nonce, bytes(self.buffer), _aad(self.bound, self.frames, last))
        self.out.write(_FRAME_HEAD.pack(len(sealed), last) + nonce + sealed)
        self.frames += 1
        self.buffer.clear()


class _SealedReader:
    """A read-only file for `pickle.load` that opens the frames `_SealedWriter` wrote, in order, and
    fails on any frame that does not authenticate or on a stream that ends before its last frame."""

    def __init__(self, source, aead, bound: bytes) -> None:
        self.source, self.aead, self.bound = source, aead, bound
        self.frame, self.at, self.index, self.done = b"", 0, 0, False

    def _next(self) -> bool:
        if self.done:
            return False
        head = self.source.read(_FRAME_HEAD.size)
        if len(head) != _FRAME_HEAD.size:
            raise ValueError("the snapshot ends before its last frame")
        length, last = _FRAME_HEAD.unpack(head)
        nonce = self.source.read(_NONCE)
        sealed = self.source.read(length)
        if len(nonce) != _NONCE or len(sealed) != length:
            raise ValueError("the snapshot ends inside a frame")
        self.frame = self.aead.decrypt(nonce, sealed, _aad(self.bound, self.index, last))
        self.at, self.index, self.done = 0, self.index + 1, last
        return True

    def finish(self) -> None:
        """Check the stream ended where the writer closed it: through its last frame, nothing after
        (a pickle can end before a dropped final frame would have been read)."""
        while True:
            if self.at < len(self.frame):
                raise ValueError("the snapshot holds data after its end")
            if not self._next():
                break
        if self.source.read(1):
            raise ValueError("the snapshot holds data after its end")

    def read(self, size: int = -1) -> bytes:
        parts = []
        while size < 0 or size > 0:
            if self.at >= len(self.frame) and not self._next():
                break
            take = len(self.frame) - self.at if size < 0 else min(size, len(self.frame) - self.at)
            parts.append(self.frame[self.at : self.at + take])
            self.at += take
            if size > 0:
                size -= take
        return b"".join(parts)

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view):
            if self.at >= len(self.frame) and not self._next():
                break
            take = min(len(view) - filled, len(self.frame) - self.at)
            view[filled : filled + take] = self.frame[self.at : self.at + take]
            self.at += take
            filled += take
        return filled

    def readline(self) -> bytes:
        parts = []
        while True:
            if self.at >= len(self.frame) and not self._next():
                break
            end = self.frame.find(b"\n", self.at)
            stop = len(self.frame) if end < 0 else end + 1
            parts.append(self.frame[self.at : stop])
            self.at = stop
            if end >= 0:
                break
        return b"".join(parts)
