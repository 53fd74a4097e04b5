"""Re-wrapping every data key under a new master key, and a report on the key store's health.

Rotation changes only the wrapping: each key file is opened with the running master key and
written again under the new one (a temporary file, fsync, atomic rename), then read back under the
new key before the next file. Sealed data is untouched, so a rotation takes seconds even for a
large database. It is resumable: a file that already opens under the new key is skipped, so a
rotation cut short is finished by running it again with the same two keys. Only when every file
opens under the new key does the database's binding take the new key's fingerprint.

A key file whose origin has no facts (its facts were purged, or only blocked writes ever touched
it) cannot be re-wrapped: the wrapping is bound to the origin's name, which only the facts record.
Nothing needs such a key, so it is moved into `retired/` in the key store and listed in the report;
a later write to that origin makes a fresh key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidTag
from django.db import transaction

from memory import sealing
from memory.models import Fact, KeyStoreBinding
from memory.services.errors import RequestError
from memory.services.keys import binding as key_binding

RETIRED_DIR = "retired"


@dataclass
class RotationReport:
    rewrapped: int = 0
    already_rotated: int = 0
    retired: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class KeyStoreStatus:
    keystore_dir: str
    bound: bool
    problem: str | None
    key_files: int
    origins_with_facts: int
    origins_without_key: int  # crypto-shredded (or lost) while facts remain
    unused_key_files: int

    def to_dict(self) -> dict:
        return asdict(self)


def parse_master_key(value: str) -> bytes:
    """The 32 raw bytes of a base64 master key, or a validation error that never repeats the value."""
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise RequestError("the new master key must be base64 of exactly 32 random bytes "
                           "(make one with: openssl rand -base64 32)", kind="validation")  # fmt: skip
    return raw


def _origins_by_file() -> dict[str, tuple[int, str]]:
    origins = Fact.objects.order_by().values_list("workspace_id", "origin_key").distinct()
    return {sealing.key_file_name(ws, origin): (ws, origin) for ws, origin in origins.iterator()}


def _key_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.key") if p.is_file())


def status() -> KeyStoreStatus:
    directory = key_binding.keystore_dir()
    files = {p.name for p in _key_files(directory)} if directory.is_dir() else set()
    known = _origins_by_file()
    return KeyStoreStatus(
        keystore_dir=str(directory),
        bound=KeyStoreBinding.objects.filter(pk=1).exists(),
        problem=key_binding.problem(),
        key_files=len(files),
        origins_with_facts=len(known),
        origins_without_key=len(set(known) - files),
        unused_key_files=len(files - set(known)),
    )


def _write_atomically(path: Path, body: str) -> None:
    tmp = path.with_name(f".{path.name}.rotate.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(body)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def rotate_master(new_master: bytes, *, progress: Callable[[int], None] | None = None) -> RotationReport:
    """Re-wrap every data key under `new_master` and bind the database to it (see the module doc).

    The running configuration must be this database's key store and master key; other processes
    must be stopped (they would fail closed on a re-wrapped file, never read wrong data)."""
    old_master = sealing._master_key()
    if hmac.compare_digest(old_master, new_master):
        raise RequestError("the new master key is the one in use; nothing to rotate", kind="validation")
    fingerprint = hmac.new(new_master, key_binding.FINGERPRINT_LABEL, hashlib.sha256).hexdigest()
    record = KeyStoreBinding.objects.filter(pk=1).first()
    if record and record.master_fingerprint == fingerprint:
        return RotationReport()  # finished before, up to the new key being put in place
    problem = key_binding.problem()
    if problem:
        raise sealing.KeyStoreMismatchError(f"{problem}: {key_binding.RECOVERY}")
    directory = key_binding.keystore_dir()
    known = _origins_by_file()
    report = RotationReport()
    for path in _key_files(directory) if directory.is_dir() else []:
        origin = known.get(path.name)
        if origin is None:
            retired = directory / RETIRED_DIR
            retired.mkdir(mode=0o700, exist_ok=True)
            os.replace(path, retired / path.name)
            report.retired.append(path.name)
        else:
            _rotate_one(path, origin, old_master, new_master, report)
        if progress:
            progress(1)
    if directory.is_dir():
        _fsync_dir(directory)
    with transaction.atomic():
        KeyStoreBinding.objects.filter(pk=1).update(master_fingerprint=fingerprint)
    sealing.keyring.forget_cache()
    return report


def _rotate_one(path: Path, origin: tuple[int, str], old: bytes, new: bytes, report: RotationReport) -> None:
    workspace_id, origin_key = origin
    try:
        sealing.unwrap_key_file(new, path, workspace_id, origin_key)
        report.already_rotated += 1  # a rotation cut short got this far
        return
    except InvalidTag:
        pass
    try:
        raw = sealing.unwrap_key_file(old, path, workspace_id, origin_key)
    except InvalidTag as exc:
        raise RequestError(f"the key file {path.name} opens under neither master key; nothing more was changed "
                           "(finish with the master key it was wrapped with)", kind="key_store_mismatch") from exc  # fmt: skip
    _write_atomically(path, sealing.wrapped_key_file(new, raw, workspace_id, origin_key))
    if sealing.unwrap_key_file(new, path, workspace_id, origin_key) != raw:  # read back before moving on
        raise RequestError(f"the key file {path.name} did not read back after re-wrapping", kind="io")
    report.rewrapped += 1


def replace_master_file(path: Path, new_master: bytes) -> None:
    """Write the new master key where the embedded default reads it (atomic, 0600)."""
    _write_atomically(path, base64.b64encode(new_master).decode())
    _fsync_dir(path.parent)
