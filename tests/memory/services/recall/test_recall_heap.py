"""A large recall index is kept out of the garbage collector's passes (memory/services/recall/index.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_large_index_is_frozen_out_of_the_collectors_passes(tl, monkeypatch):
    """After building an index past FREEZE_AT_FACTS the process collects once and freezes its heap
    (memory/services/recall/index.py), and the collector is running again afterwards."""
    import gc

    from memory.services.recall import index as recall_index

    monkeypatch.setattr(recall_index, "FREEZE_AT_FACTS", 2)
    tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("My sister lives in Lisbon near the river.", segment="relationship")
    gc.unfreeze()
    recall_index.registry.clear()
    try:
        assert tl.recall("vegetarian diet")
        assert gc.get_freeze_count() > 0 and gc.isenabled()
    finally:
        gc.unfreeze()
