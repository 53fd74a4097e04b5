"""Governance services: each runs inside memory's `mutate()` so its change has an event and a revision."""
