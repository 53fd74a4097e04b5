"""A large recall index is frozen after its build (memory/services/recall_index.py, `_building`), so
the collector skips it. Letting it go must still free it: every object of it, cycles included, and
so the plaintext it held."""

from __future__ import annotations

import gc

import pytest

from memory.engine import records as R
from memory.services import recall_index
from memory.services.recall_index import registry
from memory.services.writes import NewFact, write_fact

pytestmark = pytest.mark.django_db

def _strings_in(obj) -> list[str]:
    if isinstance(obj, tuple | list):
        return [item for item in obj if isinstance(item, str)]
    if isinstance(obj, dict):
        return [value for value in obj.values() if isinstance(value, str)]
    return []


def _alive_with(text: str) -> int:
    """Containers the collector can see (frozen ones included) that hold `text` directly."""
    gc.unfreeze()  # look at everything, then put back what was frozen (nothing of ours, we hope)
    try:
        return sum(1 for obj in gc.get_objects() if text in _strings_in(obj))
    finally:
        gc.freeze()


def test_clearing_the_registry_frees_a_frozen_index_and_its_plaintext(workspace, monkeypatch):
    monkeypatch.setattr(recall_index, "FREEZE_AT_FACTS", 2)
    for i in range(3):
        write_fact(workspace=workspace, new=NewFact(content=f"Fact number {i} about the garden.", segment="knowledge"),
                   actor="test")  # fmt: skip
    secret = " ".join(["Quintessa keeps the spare key", "under the blue heron statue."])  # no constant holds it
    write_fact(workspace=workspace, new=NewFact(content=secret, segment="knowledge"), actor="test")
    registry.clear()
    index = registry.get(workspace, R.Origin.owner())
    assert len(index.cols) == 4 and gc.get_freeze_count() > 0  # built large enough to be frozen
    del index
    registry.clear()
    assert _alive_with(secret) == 0
