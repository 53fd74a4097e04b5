"""Sealed content's keys: the key store binding, master-key rotation, and the crypto-shred primitive."""
