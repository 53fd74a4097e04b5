"""Encryption at rest, one data key per (workspace, origin).

Fact content and metadata are sealed with AES-256-GCM under the data key of the origin that wrote
them; `content_hash` is an HMAC under a key derived from the same data key, so even the dedup hash
reveals nothing once the key is gone. Data keys are wrapped by the master key
(`TIDELINE_MASTER_KEY`) and kept in a key store OUTSIDE the database (`TIDELINE_KEYSTORE_DIR`): a
database backup holds only ciphertext, so destroying an origin's key (crypto-shred) makes that
origin's facts unreadable in the live database and in every backup alike.

The key store is one small file per origin key, created atomically (link-if-absent) so concurrent
processes agree on a single key. Unwrapped keys are cached per process and re-validated against the
key file every few seconds, so a shred in one process reaches every other one quickly.

The database is bound to one key store and master key (`memory.services.keys.binding`): a missing key
file is only reported as destroyed once the key store is known to be the right one, and a key is
never made for an origin that already has sealed facts, so a wrong `TIDELINE_KEYSTORE_DIR` or master
key is refused instead of quietly hiding facts or minting a second key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from memory.services.errors import RequestError

SEAL_VERSION = b"\x01"
NONCE_BYTES = 12
CACHE_TTL_SECONDS = 2.0


class KeyStoreMismatchError(RequestError):
    """The key store or the master key is not the one this database's sealed data belongs to.

    A configuration error, never a property of the data: nothing is written while it stands, and
    pointing the settings back at the right key store and master key makes everything readable."""

    kind = "key_store_mismatch"


class KeyMissingError(KeyStoreMismatchError):
    """An origin has sealed data but its data key is not in the key store: a new key would orphan it."""

    kind = "key_missing"


class KeyDestroyedError(Exception):
    """The origin's data key was destroyed (crypto-shred): its sealed data can no longer be read."""

    kind = "shredded"


@dataclass(frozen=True)
class DataKey:
    aead: AESGCM
    mac_key: bytes


def _master_key() -> bytes:
    raw = base64.b64decode(settings.TIDELINE_MASTER_KEY)
    if len(raw) != 32:
        raise ValueError("TIDELINE_MASTER_KEY must be base64 of exactly 32 bytes")
    return raw


SHREDDED_SUFFIX = ".shredded"  # a destroyed key's tombstone: `w{workspace}-{digest}.shredded`


def key_file_name(workspace_id: int, origin_key: str) -> str:
    digest = hashlib.sha256(origin_key.encode()).hexdigest()[:40]
    return f"w{workspace_id}-{digest}.key"


class Keyring:
    """Creates, unwraps, caches and destroys per-origin data keys."""

    def __init__(self) -> None:
        # (workspace, origin) → {key store directory: (key, when read)}. Keyed by origin so that forgetting
        # one (every full build of a recall index does) is one pop, not a pass over every origin this
        # process has met (2 ms each with 10,000 workspaces). The directory is part of the key because
        # settings may point elsewhere (the tests, a restore).
        self._cache: dict[tuple[int, str], dict[str, tuple[DataKey, float]]] = {}
        self._lock = threading.Lock()

    def _path(self, workspace_id: int, origin_key: str) -> Path:
        return Path(settings.TIDELINE_KEYSTORE_DIR) / key_file_name(workspace_id, origin_key)

    def data_key(self, workspace_id: int, origin_key: str, *, create: bool = True) -> DataKey:
        """The origin's data key. `create=True` (writes) may make it, after checking that the key
        store and master key are this database's and that the origin has no sealed data yet."""
        if create:
            _binding().verify(bind=True)  # a dict lookup while a recent verification stands
        # Hot path (unsealing a whole index): two dict lookups, no hashing or path building.
        store = str(settings.TIDELINE_KEYSTORE_DIR)
        now = time.monotonic()
        cached = self._cache.get((workspace_id, origin_key), {}).get(store)
        if cached and now - cached[1] < CACHE_TTL_SECONDS:
            return cached[0]
        path = self._path(workspace_id, origin_key)
        if not path.exists():
            self._refuse_missing(workspace_id, origin_key, create=create)
        with self._lock:
            if not path.exists():
                if not create:  # destroyed since the check above
                    self._cache.pop((workspace_id, origin_key), None)
                    raise KeyDestroyedError(f"no data key for origin {origin_key!r} in workspace {workspace_id}")
                self._create(path, workspace_id, origin_key)
            key = self._unwrap(path, workspace_id, origin_key)
            self._cache.setdefault((workspace_id, origin_key), {})[store] = (key, now)
            return key

    def _refuse_missing(self, workspace_id: int, origin_key: str, *, create: bool) -> None:
        """No key file: raise unless a new key may be made. A key that is merely absent from a wrong
        key store must not read as destroyed (recall would quietly return nothing), and a new key
        for an origin with sealed data would leave that data unreadable for good."""
        binding = _binding()
        binding.verify(bind=create)
        if not create:
            with self._lock:
                self._cache.pop((workspace_id, origin_key), None)
            raise KeyDestroyedError(f"no data key for origin {origin_key!r} in workspace {workspace_id}")
        if binding.has_sealed_data(workspace_id, origin_key):
            raise KeyMissingError(
                f"origin {origin_key!r} of workspace {workspace_id} has sealed facts but its data key is not in "
                f"{settings.TIDELINE_KEYSTORE_DIR} (destroyed, or the key file was lost); Tideline will not make a "
                "second key for it: restore the key file from the key store's backup, or purge the origin's facts",
            )

    def destroy(self, workspace_id: int, origin_key: str) -> bool:
        """Overwrite and delete the origin's key file, leaving a tombstone. Returns False when there was none."""
        path = self._path(workspace_id, origin_key)
        with self._lock:
            self._cache.pop((workspace_id, origin_key), None)
            if not path.exists():
                return False
            self._mark_shredded(path)  # first: a crash after it leaves a key a retried shred destroys
            size = path.stat().st_size
            with open(path, "r+b") as handle:
                handle.write(os.urandom(size))
                handle.flush()
                os.fsync(handle.fileno())
            path.unlink()
            return True

    @staticmethod
    def _mark_shredded(key_path: Path) -> None:
        """Leave a tombstone beside the destroyed key (no secret in it), so that copying keys back from an
        older copy of the key store (`tideline restore --keystore-from`) never revives this one."""
        tombstone = key_path.with_suffix(SHREDDED_SUFFIX)
        fd = os.open(tombstone, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(f"destroyed {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n")
            handle.flush()
            os.fsync(handle.fileno())

    def was_shredded(self, workspace_id: int, origin_key: str) -> bool:
        return self._path(workspace_id, origin_key).with_suffix(SHREDDED_SUFFIX).exists()

    def forget(self, workspace_id: int, origin_key: str) -> None:
        """Drop this process's cached key of one origin: the next lookup reads the key file again
        (a `shredded` event seen in the log must not wait out the cache's few seconds)."""
        with self._lock:
            self._cache.pop((workspace_id, origin_key), None)

    def exists(self, workspace_id: int, origin_key: str) -> bool:
        return self._path(workspace_id, origin_key).exists()

    def opens(self, workspace_id: int, origin_key: str) -> bool:
        """Whether the origin's key file is here and unwraps (KeyStoreMismatchError when the master
        key is not the one it was wrapped with). Reads the file; never creates or caches a key."""
        path = self._path(workspace_id, origin_key)
        try:
            self._unwrap(path, workspace_id, origin_key)
        except KeyDestroyedError:
            return False
        return True

    def forget_cache(self) -> None:
        with self._lock:
            self._cache.clear()
        _binding().forget()

    def _create(self, path: Path, workspace_id: int, origin_key: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        body = wrapped_key_file(_master_key(), os.urandom(32), workspace_id, origin_key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)  # atomic create-if-absent: another process may have won the race
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
        # A key is only made for an origin with nothing sealed, so a tombstone here is of an origin whose
        # rows are gone (purged, or rolled back): the new key is not the one it mourns.
        path.with_suffix(SHREDDED_SUFFIX).unlink(missing_ok=True)

    def _unwrap(self, path: Path, workspace_id: int, origin_key: str) -> DataKey:
        try:
            raw = unwrap_key_file(_master_key(), path, workspace_id, origin_key)
        except FileNotFoundError as exc:
            raise KeyDestroyedError(f"data key for origin {origin_key!r} was destroyed") from exc
        except InvalidTag as exc:
            raise KeyStoreMismatchError(
                f"the key file {path.name} in {path.parent} was not wrapped with this TIDELINE_MASTER_KEY: "
                "point TIDELINE_KEYSTORE_DIR at this database's key store, or restore the matching master key"
            ) from exc
        mac_key = hmac.new(raw, b"tideline content hash", hashlib.sha256).digest()
        return DataKey(AESGCM(raw), mac_key)


keyring = Keyring()


def _wrapping_aad(workspace_id: int, origin_key: str) -> bytes:
    # A wrapped key opens only as the key of the origin it was made for.
    return f"tideline-key|{workspace_id}|{origin_key}".encode()


def wrapped_key_file(master: bytes, raw_key: bytes, workspace_id: int, origin_key: str) -> str:
    """The key file's body: `raw_key` wrapped with AES-256-GCM under the master key `master`."""
    nonce = os.urandom(NONCE_BYTES)
    wrapped = AESGCM(master).encrypt(nonce, raw_key, _wrapping_aad(workspace_id, origin_key))
    return json.dumps({"v": 1, "wrapped": base64.b64encode(nonce + wrapped).decode()})


def unwrap_key_file(master: bytes, path: Path, workspace_id: int, origin_key: str) -> bytes:
    """The raw data key in the key file at `path` (FileNotFoundError; InvalidTag under another master key)."""
    blob = base64.b64decode(json.loads(path.read_text())["wrapped"])
    return AESGCM(master).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], _wrapping_aad(workspace_id, origin_key))


class KeyStoreGuard(Protocol):
    """What the keyring asks of the database's key store binding before it makes or misses a key."""

    def verify(self, *, bind: bool) -> None: ...

    def forget(self) -> None: ...

    def has_sealed_data(self, workspace_id: int, origin_key: str) -> bool: ...


_guard: KeyStoreGuard | None = None


def guard_with(guard: KeyStoreGuard) -> None:
    """Install the key store binding's checks (`memory.services.keys.binding`, installed by memory's
    AppConfig.ready): the binding reads the models, which seal and unseal with this module."""
    global _guard
    _guard = guard


def _binding() -> KeyStoreGuard:
    if _guard is None:
        raise ImproperlyConfigured("the key store binding is not installed: memory's AppConfig.ready installs it")
    return _guard


def _aad(workspace_id: int, origin_key: str, field: str) -> bytes:
    # Binding the ciphertext to its origin and field: a sealed value copied into another
    # origin's row (or from content into metadata) fails to open instead of leaking.
    return f"{workspace_id}|{origin_key}|{field}".encode()


def seal(workspace_id: int, origin_key: str, field: str, plaintext: bytes) -> bytes:
    key = keyring.data_key(workspace_id, origin_key)
    nonce = os.urandom(NONCE_BYTES)
    return SEAL_VERSION + nonce + key.aead.encrypt(nonce, plaintext, _aad(workspace_id, origin_key, field))


def unseal(workspace_id: int, origin_key: str, field: str, sealed: bytes) -> bytes:
    sealed = bytes(sealed)
    if sealed[:1] != SEAL_VERSION:
        raise ValueError("unknown sealed-value version")
    key = keyring.data_key(workspace_id, origin_key, create=False)
    nonce = sealed[1 : 1 + NONCE_BYTES]
    return key.aead.decrypt(nonce, sealed[1 + NONCE_BYTES :], _aad(workspace_id, origin_key, field))


def unsealer(workspace_id: int, origin_key: str, field: str):
    """`unseal` for many values of one origin and field: the key is fetched once (KeyDestroyedError
    now if it is gone), so loading a whole index costs one AES-GCM open per value and nothing else."""
    aead = keyring.data_key(workspace_id, origin_key, create=False).aead
    aad = _aad(workspace_id, origin_key, field)
    start = 1 + NONCE_BYTES

    def open_one(sealed: bytes) -> bytes:
        sealed = bytes(sealed)
        if sealed[:1] != SEAL_VERSION:
            raise ValueError("unknown sealed-value version")
        return aead.decrypt(sealed[1:start], sealed[start:], aad)

    return open_one


def content_hash(workspace_id: int, origin_key: str, normalized_content: str) -> str:
    """HMAC-SHA256 of the normalised content under the origin's key: dedup without plaintext."""
    key = keyring.data_key(workspace_id, origin_key)
    return hmac.new(key.mac_key, normalized_content.encode(), hashlib.sha256).hexdigest()


def term_hashes(workspace_id: int, origin_key: str, tokens) -> list[int]:
    """Keyed 63-bit hashes of tokens for the near-duplicate index (no words stored in the clear)."""
    key = keyring.data_key(workspace_id, origin_key).mac_key
    out = []
    for token in tokens:
        digest = hmac.new(key, b"term|" + token.encode(), hashlib.sha256).digest()
        out.append(int.from_bytes(digest[:8], "big") >> 1)
    return out
