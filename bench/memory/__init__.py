"""Benchmarks: a deterministic synthetic corpus and the measurements `tideline bench` reports."""
