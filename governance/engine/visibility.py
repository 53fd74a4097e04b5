"""What an API token may read: the rules behind `governance.api.visibility.readable_facts`. Pure: no Django.

A token reads facts of its own scope (`tokens.Scope`), classified at or below its clearance, in a
lifecycle an agent may see, that no retention rule has expired and whose origin was not shredded.
Held writes wait for a person: an agent never reads them, not even its own.
"""

from __future__ import annotations

from governance.engine.tokens import CLEARANCES

# Active memory, and what left it (archived: retracted, superseded, decayed; pruned) — never `held`.
READABLE_LIFECYCLES = ("active", "archived", "pruned")


def readable_classifications(clearance: str) -> tuple[str, ...]:
    """The classifications a token of `clearance` reads: its own and every lower one."""
    level = CLEARANCES.index(clearance) if clearance in CLEARANCES else 0
    return CLEARANCES[: level + 1]
