"""Plain facts for the maintenance-pass tests (no database)."""

from __future__ import annotations

from memory.engine.facts.records import SEGMENT_DEFAULTS, Origin
from memory.engine.maintenance.plans import MaintFact

NOW = 1_750_000_000_000
DAY = 86_400_000
OWNER = Origin.owner().key
PEER = Origin("channel", "wa", "c1", "s1").key


def fact(memory_id: str, content: str, segment: str = "knowledge", **fields) -> MaintFact:
    """A fact with its segment's defaults, written and last used at NOW, owned by the owner."""
    defaults = SEGMENT_DEFAULTS[segment]
    base = {
        "memory_id": memory_id,
        "content": content,
        "segment": segment,
        "tier": defaults.tier,
        "importance": defaults.importance,
        "decay_rate": defaults.decay_rate,
        "access_count": 0,
        "last_accessed_at": NOW,
        "created_at": NOW,
        "origin_key": OWNER,
    }
    base.update(fields)
    return MaintFact(**base)
