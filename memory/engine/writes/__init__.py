"""Rules of the write path: the provenance gate, worthiness, and which writes wait for review."""
