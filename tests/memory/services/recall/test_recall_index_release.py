"""A large recall index is frozen after its build (memory/services/recall/index.py, `_building`), so
the collector skips it. Letting it go must still free it: every object of it, cycles included, and
so the plaintext it held."""

from __future__ import annotations

import gc

import pytest

from memory.engine.facts import records as R
from memory.services.recall import index as recall_index
from memory.services.recall.index import registry
from memory.services.writes.write_path import NewFact, write_fact

pytestmark = pytest.mark.django_db

def _strings_in(obj) -> list[str]:
    # By type(), never isinstance(): a lazy object an earlier test left in memory (a request's CSP
    # nonce) evaluates itself when asked its class, and raises once its response is gone.
    if issubclass(type(obj), tuple | list):
        return [item for item in obj if issubclass(type(item), str)]
    if issubclass(type(obj), dict):
        return [value for value in obj.values() if issubclass(type(value), str)]
    return []


def _alive_with(text: str) -> int:
    """Containers the collector can see (frozen ones included) that hold `text` directly."""
    gc.unfreeze()  # look at everything, then put back what was frozen (nothing of ours, we hope)
    try:
        return sum(1 for obj in gc.get_objects() if text in _strings_in(obj))
    finally:
        gc.freeze()


def test_clearing_the_registry_frees_a_frozen_index_and_its_plaintext(workspace, monkeypatch, settings):
    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0  # built from the database, no snapshot involved
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


def test_a_sync_that_would_reread_most_of_a_large_index_builds_it_afresh(workspace, monkeypatch):
    """After a change touching most facts (a dream over the whole workspace), the index is rebuilt
    from the database, not patched while the old one is held; it then answers as a fresh build."""
    from memory.services.recall import verbs as recall_service
    from memory.services.recall.index import IndexRegistry
    from memory.tideline import Tideline

    monkeypatch.setattr(recall_index, "REBUILD_MIN_FACTS", 4)
    tl = Tideline(workspace, actor="test")
    added = [tl.add(f"Fact number {i} about the rose garden and its keeper.", segment="knowledge") for i in range(6)]
    index = registry.get(workspace, R.Origin.owner())
    full_builds = []
    real_load_vectors = IndexRegistry._load_vectors
    monkeypatch.setattr(IndexRegistry, "_load_vectors",
                        lambda self, ix, touched: (full_builds.append(touched is None), real_load_vectors(self, ix, touched))[1])  # fmt: skip
    tl.purge([record.id for record in added[:4]], reason="test")  # four of six: most of the index
    synced = recall_service.recall(workspace=workspace, query="rose garden keeper", origin="owner", k=10, reinforce=False)
    assert full_builds == [True]  # one build from the database, no patch
    assert registry.get(workspace, R.Origin.owner()) is index  # the same index, rebuilt in place
    registry.clear()
    fresh = recall_service.recall(workspace=workspace, query="rose garden keeper", origin="owner", k=10, reinforce=False)
    assert [hit.id for hit in synced] == [hit.id for hit in fresh]
    assert sorted(hit.id for hit in synced) == sorted(record.id for record in added[4:])


@pytest.mark.parametrize("synced", [False, True])
def test_an_index_s_links_hold_the_rows_own_id_strings(workspace, synced):
    """Links read from the database come with new strings per row: the index keeps its rows' (a
    dream's 2.5 million links held their own copies, and its snapshot pickled every one)."""

    def write(text, links=()):
        return write_fact(workspace=workspace, new=NewFact(content=text, segment="knowledge", links=links),
                          actor="test").fact  # fmt: skip

    a = write("The rose garden has a keeper.")
    if synced:
        registry.get(workspace, R.Origin.owner())  # built first: the link then arrives through a sync
    b = write("The keeper waters the roses at dawn.", links=(("supports", a.memory_id, ""),))
    index = registry.get(workspace, R.Origin.owner())
    ((src, kind, dst),) = [link for link in index.links if link[1] == "supports"]
    assert (src, dst) == (b.memory_id, a.memory_id)
    assert src is index.rows[b.memory_id].memory_id and dst is index.rows[a.memory_id].memory_id
    assert index.link_state.stored.group(index.meta[b.memory_id].pk) == [(src, kind, dst)]
    assert index.link_state.into == {a.memory_id: index.meta[b.memory_id].pk}


def test_an_index_that_served_recalls_leaves_no_cycle_behind(workspace, monkeypatch, settings):
    """Letting an index go frees it by reference counting alone (`release_heap` no longer stops the
    process for a full collection): nothing of it may sit in a reference cycle, whatever it served
    (recall, explain, context, a sync after a write, links, the lexical caches)."""
    from memory.services.recall import verbs as recall_service

    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    monkeypatch.setattr(recall_index, "FREEZE_AT_FACTS", 2)
    secret = " ".join(["Quintessa hid the ledger", "behind the third loose brick."])

    def write(text, links=()):
        return write_fact(workspace=workspace, new=NewFact(content=text, segment="knowledge", links=links),
                          actor="test").fact  # fmt: skip

    first = write("The rose garden has a keeper.")
    write("The keeper waters the roses at dawn.", links=(("supports", first.memory_id, ""),))
    for query in ("rose garden keeper", "who waters the roses"):
        recall_service.recall(workspace=workspace, query=query, origin="owner", k=5, reinforce=False)
    write(secret)  # arrives through a sync of the index built above
    recall_service.recall(workspace=workspace, query="ledger brick", origin="owner", k=5, reinforce=False)
    recall_service.explain(workspace=workspace, query="loose brick ledger", origin="owner", embedder=None)
    recall_service.context(workspace=workspace, query="where is the ledger", origin="owner", embedder=None)
    assert gc.get_freeze_count() > 0  # large enough (here) to have been frozen
    gc.collect()  # whatever the calls themselves left
    registry.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = [obj for obj in gc.garbage
                if type(obj).__module__.startswith(("memory.engine.recall", "memory.services.recall"))
                or secret in _strings_in(obj)]  # fmt: skip
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
    assert _alive_with(secret) == 0


def test_a_large_index_built_or_let_go_stops_the_process_for_a_full_collection_only_when_one_is_due(
        workspace, monkeypatch, settings):  # fmt: skip
    """A full collection stops every request of the process for as long as the heap is large (about
    200 ms with the index budget held): after a large build only the young generation is collected,
    letting an index go collects nothing, and the whole heap is collected at most every
    SETTLE_SECONDS."""
    import time

    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    monkeypatch.setattr(recall_index, "FREEZE_AT_FACTS", 2)
    for i in range(3):
        write_fact(workspace=workspace, new=NewFact(content=f"Fact number {i} about the orchard.", segment="knowledge"),
                   actor="test")  # fmt: skip
    generations: list[int] = []

    def count(phase, info):
        if phase == "start":
            generations.append(info["generation"])

    registry.clear()
    monkeypatch.setattr(recall_index, "_settled_at", time.monotonic())  # the heap was just collected
    gc.callbacks.append(count)
    try:
        registry.get(workspace, R.Origin.owner())
        assert generations and max(generations) < 2 and gc.get_freeze_count() > 0  # young only, then frozen
        generations.clear()
        registry.clear()
        assert 2 not in generations  # letting it go collects nothing

        monkeypatch.setattr(recall_index, "_settled_at", time.monotonic() - recall_index.SETTLE_SECONDS - 1)
        registry.get(workspace, R.Origin.owner())
        assert 2 in generations  # due: the whole heap once
        generations.clear()
        monkeypatch.setattr(recall_index, "_settled_at", time.monotonic() - recall_index.SETTLE_SECONDS - 1)
        registry.clear()
        assert 2 in generations and gc.get_freeze_count() > 0  # due again on letting it go, and frozen after
    finally:
        gc.callbacks.remove(count)


def test_small_builds_freeze_the_heap_at_most_once_a_second(workspace, monkeypatch, settings):
    """Small indexes are kept out of the collector's full passes too, but a freeze also keeps other
    requests' objects in flight from it until the next full collection: at most one a second."""
    import time

    settings.TIDELINE_RECALL_SNAPSHOT_MIN_FACTS = 0
    write_fact(workspace=workspace, new=NewFact(content="The pear tree is by the gate.", segment="knowledge"),
               actor="test")  # fmt: skip
    freezes: list[float] = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(time.monotonic()), real_freeze())[1])
    monkeypatch.setattr(recall_index, "_settled_at", time.monotonic())  # no full collection due
    monkeypatch.setattr(recall_index, "_frozen_at", time.monotonic())  # just frozen
    registry.clear()
    registry.get(workspace, R.Origin.owner())
    assert freezes == []
    before = time.monotonic()
    monkeypatch.setattr(recall_index, "_frozen_at", before - recall_index.FREEZE_EVERY_SECONDS)
    registry.clear()
    registry.get(workspace, R.Origin.owner())
    assert len(freezes) == 1 and recall_index._frozen_at >= before


def test_a_new_process_collects_its_whole_heap_only_once_it_has_run_a_while():
    """Counted from the start (when the web process froze its heap), not from never: otherwise the
    second build of a new process collected everything, inside a cold recall."""
    import os
    import subprocess
    import sys

    code = ("import django, time; django.setup(); from memory.services.recall import index as I; "
            "I._frozen_at = time.monotonic(); print(I._settle_if_due(time.monotonic()))")  # fmt: skip
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tideline_site.settings"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
