"""On the demo workspace the detector opens the planted contradictions and almost nothing else.

Builds the demo's records in memory (no database) and runs the pure detector over its active facts.
"""

from bench.governance.contradictions import demo_records
from governance.engine.contradiction_rules import find_candidates
from memory.services.demo import CONTRADICTIONS


def test_the_demo_planted_contradictions_are_opened_and_at_most_one_in_five_opened_pairs_is_false():
    records = demo_records()
    content = {record.id: record.content for record in records}
    opened = {frozenset((content[c.a], content[c.b])) for c in find_candidates(records).candidates}
    planted = {frozenset(pair) for pair in CONTRADICTIONS}
    assert planted <= opened
    false = opened - planted
    assert len(false) * 5 <= len(opened)
