"""Which key store and master key this database's sealed data belongs to (`KeyStoreBinding`).

Sealed facts can only be read with the data keys in one key store, unwrapped by one master key.
Pointed at an empty or foreign key store, a write would mint a second key for an origin that already
has facts and leave them unreadable for good; under another master key it would wrap new keys that
the real one cannot open. So the key store carries a random id (`keystore.id`, written the first time
it is bound), the database records that id and a keyed fingerprint of the master key the first time a
data key is made, and every write, `tideline serve` and `manage.py check` compare the running
configuration with the record before anything is sealed.

A database from before the binding (facts, no record) is bound on its first write only if one of
its origins' key files opens with the running master key; otherwise it is refused like a mismatch.
Verifications are cached per process for a few seconds, keyed on the key store and master key in
use, so the write path pays a dict lookup, not a query.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

from memory import sealing
from memory.models import Fact, KeyStoreBinding

ID_FILE = "keystore.id"
FINGERPRINT_LABEL = b"tideline key store binding: master key fingerprint v1"
RECOVERY = (
    "point TIDELINE_KEYSTORE_DIR at this database's key store and set TIDELINE_MASTER_KEY to the key it was "
    "made with (restore them from backup if need be)"
)

_verified: dict[tuple[str, str], tuple[bool, float]] = {}  # (key store, master key) -> (bound, when)
_lock = threading.Lock()


def master_fingerprint() -> str:
    """A keyed digest of the master key: equal for the same key, and reveals nothing about it."""
    return hmac.new(sealing._master_key(), FINGERPRINT_LABEL, hashlib.sha256).hexdigest()


def keystore_dir() -> Path:
    return Path(settings.TIDELINE_KEYSTORE_DIR)


def read_keystore_id(directory: Path) -> str | None:
    try:
        return (directory / ID_FILE).read_text().strip() or None
    except FileNotFoundError:
        return None


def ensure_keystore_id(directory: Path) -> str:
    """The key store's id, written (atomically, 0600) if it has none; concurrent callers agree on one."""
    existing = read_keystore_id(directory)
    if existing:
        return existing
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = directory / f".{ID_FILE}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_hex(16) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(tmp, directory / ID_FILE)  # create-if-absent: another process may have written one first
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return read_keystore_id(directory) or ""


def forget() -> None:
    with _lock:
        _verified.clear()


def verify(*, bind: bool) -> None:
    """Raise `KeyStoreMismatchError` unless the running key store and master key are this database's.

    `bind=True` (writes, `serve`) records the binding when there is none yet; `bind=False` (reads,
    `check`) never writes."""
    cache_key = (str(settings.TIDELINE_KEYSTORE_DIR), settings.TIDELINE_MASTER_KEY)
    seen = _verified.get(cache_key)
    if seen and (seen[0] or not bind) and time.monotonic() - seen[1] < sealing.CACHE_TTL_SECONDS:
        return
    refusal, bound = _check(bind=bind)
    if refusal:
        raise sealing.KeyStoreMismatchError(f"{refusal}: {RECOVERY}; nothing was written")
    with _lock:
        _verified[cache_key] = (bound, time.monotonic())


def problem() -> str | None:
    """Why the running key store / master key must not be used with this database, or None (never writes)."""
    return _check(bind=False)[0]


def _check(*, bind: bool) -> tuple[str | None, bool]:
    """(the problem or None, whether the database is bound to the running configuration)."""
    directory, fingerprint = keystore_dir(), master_fingerprint()
    record = KeyStoreBinding.objects.filter(pk=1).first()
    if record is None:
        refusal = _unbound_problem(directory)
        if refusal or not bind:
            return refusal, False
        record, _ = KeyStoreBinding.objects.get_or_create(
            pk=1, defaults={"keystore_id": ensure_keystore_id(directory), "master_fingerprint": fingerprint}
        )  # a concurrent binder may have won: then its record is compared like any other
    if read_keystore_id(directory) != record.keystore_id:
        return f"TIDELINE_KEYSTORE_DIR={directory} is not the key store this database's data keys are in", True
    if record.master_fingerprint != fingerprint:
        return "TIDELINE_MASTER_KEY is not the master key this database's data keys were wrapped with", True
    return None, True


def _unbound_problem(directory: Path) -> str | None:
    """For a database with no binding: None when it has no sealed facts, or when one of its origins'
    key files is in this key store and opens with the running master key (then it may be bound)."""
    origins = Fact.objects.order_by().values_list("workspace_id", "origin_key").distinct()
    any_facts = False
    for workspace_id, origin_key in origins.iterator():
        any_facts = True
        try:
            if sealing.keyring.opens(workspace_id, origin_key):
                return None
        except sealing.KeyStoreMismatchError:
            return f"TIDELINE_MASTER_KEY does not open the data keys in TIDELINE_KEYSTORE_DIR={directory}"
    if any_facts:
        return f"this database holds sealed facts but none of their data keys is in TIDELINE_KEYSTORE_DIR={directory}"
    return None


def has_sealed_data(workspace_id: int, origin_key: str) -> bool:
    """Whether anything is sealed under the origin's key (link reasons and vectors belong to its facts)."""
    return Fact.objects.filter(workspace_id=workspace_id, origin_key=origin_key).exists()


def binding_table_ready() -> bool:
    """False before `migrate` has made the binding table (checks then have nothing to compare)."""
    with connection.cursor() as cursor:
        return KeyStoreBinding._meta.db_table in connection.introspection.table_names(cursor)
