"""Pointing the running configuration at another key store or master key, as a restarted process would."""

from __future__ import annotations

from memory import sealing
from memory.services.recall.index import registry


def use_key_store(settings, *, keystore=None, master_key=None) -> None:
    if keystore is not None:
        settings.TIDELINE_KEYSTORE_DIR = keystore
    if master_key is not None:
        settings.TIDELINE_MASTER_KEY = master_key
    sealing.keyring.forget_cache()  # also forgets the binding's verification
    registry.clear()  # warm recall indexes hold unsealed content
