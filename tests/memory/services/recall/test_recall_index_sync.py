"""A recall index kept up to date through writes equals one built from scratch (recall_index.py).

New facts are appended to the live index's columns, text indexes, learned matrices and links
instead of rebuilding them; whatever the sequence of writes, the live index must hold exactly what
a fresh index holds and rank exactly as it does (ids, scores, every component).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from memory.engine.facts import records as R
from memory.engine.recall.graph_recall import recall_with_graph
from memory.models import Fact, FactVector, Link
from memory.services.lifecycle.curation import set_lifecycle
from memory.services.maintenance import passes as maintenance
from memory.services.mutation import mutate
from memory.services.recall import index_links
from memory.services.recall import verbs as recall_service
from memory.services.recall.embedding import reembed
from memory.services.recall.index import IndexRegistry, ScopeIndex, registry
from memory.services.writes.interchange import import_facts
from memory.services.writes.policy import TidelineError
from memory.services.writes.write_path import NewFact, write_fact
from memory.timestamps import to_ms

pytestmark = pytest.mark.django_db
OWNER = R.Origin.owner()
PEER = R.parse_origin("channel:wa/c1/s1")
WORDS = ("tea", "coffee", "garden", "Lisbon", "Porto", "Maria", "Joao", "piano", "guitar", "deadline", "invoice",
         "project", "falcon", "river", "grandmother", "puppy", "festival", "running", "runs", "marathon", "budget",
         "doctor", "Monday", "Friday", "sister")  # fmt: skip
QUERIES = ("tea garden", "what happened before the festival", "Maria piano", "project falcon deadline",
           "grandma pup", "river running Monday", "budget invoice after")  # fmt: skip


class FakeEmbedder:
    """A deterministic stand-in for a learned embedder (vectors from a hash of the text)."""

    dims = 8
    min_sim = 0.0

    def __init__(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint

    def embed(self, texts):
        out = [np.random.default_rng(int(hashlib.sha256((self.fingerprint + t).encode()).hexdigest()[:12], 16))
               .standard_normal(self.dims) for t in texts]  # fmt: skip
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dims)

    def embed_one(self, text, dtype=np.float64):
        return self.embed([text])[0].astype(dtype)


EMBEDDERS = (FakeEmbedder("fake-a"), FakeEmbedder("fake-b"))


@pytest.fixture(autouse=True)
def _fresh_indexes():
    registry.clear()
    yield
    registry.clear()


def _same_array(a, b, name):
    assert a.dtype == b.dtype, name
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name


def _same_matrix(a, b, name):
    assert a.shape == b.shape, name
    for part in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(a, part), getattr(b, part)), (name, part)


def assert_same_index(live: ScopeIndex, fresh: ScopeIndex) -> None:
    assert live.links == fresh.links
    assert set(live.learned) == set(fresh.learned)
    if fresh.cols is None:
        assert live.cols is None or not len(live.cols)
        return
    a, b = live.cols, fresh.cols
    for name in ("memory_ids", "contents", "segments", "source_types"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("importance", "decay_rate", "access_count", "last_accessed_at", "created_at", "permanent", "lifecycle",
                 "valid_to", "confidence", "confirmed", "origin_keys", "source_weight", "origin_codes"):  # fmt: skip
        _same_array(getattr(a, name), getattr(b, name), name)
    assert a.row_index == b.row_index and a.origin_code_of == b.origin_code_of
    assert a.embeddings is None and b.embeddings is None
    _same_matrix(a.text.stems.matrix, b.text.stems.matrix, "stems")
    _same_array(a.text.stems.doc_len, b.text.stems.doc_len, "doc_len")
    assert a.text.stems.vocabulary == b.text.stems.vocabulary
    _same_matrix(a.text.ngrams.weights, b.text.ngrams.weights, "ngrams")
    assert a.text.ngrams.vocabulary == b.text.ngrams.vocabulary
    if a.bm25.built:  # the live one, once built, is extended; the fresh one is built to compare
        _same_matrix(a.bm25.matrix, b.bm25.matrix, "bm25")
        assert a.bm25.vocabulary == b.bm25.vocabulary
    for name in ("pk", "clearance", "intent_scope", "unscoped", "archived_at", "pruned_at"):
        _same_array(getattr(live.extra, name), getattr(fresh.extra, name), name)
    assert (
        live.extra.modality == fresh.extra.modality and live.extra.media_pointer == fresh.extra.media_pointer
    )
    for fingerprint, learned in fresh.learned.items():
        other = live.learned[fingerprint]
        for name in ("embeddings", "embedded", "norms"):
            _same_array(getattr(other, name), getattr(learned, name), f"{fingerprint}.{name}")


def _ranked(registry_: IndexRegistry, index: ScopeIndex, scope: R.Origin, now) -> list:
    """Every recall path over this index: the hits in order with every field (compare with `_same_hits`)."""
    out, now_ms = [], to_ms(now)
    filters = (recall_service.RecallFilters(), recall_service.RecallFilters(clearance="INTERNAL", intent="travel"),
               recall_service.RecallFilters(as_of=now - timedelta(milliseconds=40)))  # fmt: skip
    for query in QUERIES:
        for filt in filters:
            at = to_ms(filt.as_of) if filt.as_of else now_ms
            view = recall_service._view(index, at, filt)
            if view is None:
                out.append("none")
                continue
            for embedder in (None, *EMBEDDERS):
                hits = recall_service._hits(
                    index, recall_service._rank(index, view, query, at, scope, 8, embedder).hits
                )
                out.append([h.to_dict() for h in hits])
        cols = registry_.with_vectors(index)
        if cols is not None:
            walked = recall_with_graph(cols, index.links, query, now_ms, scope, limit=8, force_walk=True,
                                       embedder=registry_.embedder)  # fmt: skip
            out.append([(h.memory_id, h.score, sorted(h.components.items())) for h in walked])
    return out


def _same_hits(live, fresh, path=""):
    """Equal results: the same hits in the same order with the same fields, and every score equal up
    to float rounding (a relative 1e-12). The n-gram lane's candidate sums of a synced index are
    updated, not recomputed, so they may differ from a fresh build's in their last bits."""
    if isinstance(fresh, float) and isinstance(live, float):
        assert math.isclose(live, fresh, rel_tol=1e-12, abs_tol=1e-15), (path, live, fresh)
    elif isinstance(fresh, dict):
        assert isinstance(live, dict) and live.keys() == fresh.keys(), path
        for key in fresh:
            _same_hits(live[key], fresh[key], f"{path}.{key}")
    elif isinstance(fresh, (list, tuple)):
        assert type(live) is type(fresh) and len(live) == len(fresh), (path, live, fresh)
        for i, (a, b) in enumerate(zip(live, fresh, strict=True)):
            _same_hits(a, b, f"{path}[{i}]")
    else:
        assert live == fresh, (path, live, fresh)


class Scenario:
    """Random writes of every kind into one workspace, through the services."""

    def __init__(self, workspace, seed: int) -> None:
        self.ws, self.rng, self.count = workspace, random.Random(seed), 0

    def _text(self) -> str:
        self.count += 1
        words = self.rng.sample(WORDS, self.rng.randint(3, 6))
        return f"{' '.join(words).capitalize()} note {self.count}."

    def _ids(self, origin=OWNER, lifecycle=None) -> list[str]:
        facts = Fact.objects.filter(workspace=self.ws, origin_key=origin.key)
        if lifecycle:
            facts = facts.filter(lifecycle=lifecycle)
        return list(facts.order_by("pk").values_list("memory_id", flat=True))

    def _write(self, **fields):
        fields.setdefault("segment", self.rng.choice(["knowledge", "preference", "project", "relationship"]))
        fields.setdefault(
            "source_type", self.rng.choice(["owner_message", "owner_message", "user_instruction"])
        )
        try:
            return write_fact(workspace=self.ws, new=NewFact(**fields), actor="test")
        except TidelineError:
            return None

    def step(self) -> str:
        rng, ids = self.rng, self._ids()
        choice = rng.choice(["add", "add", "add", "slot", "supersede", "link", "dup", "feedback", "recall",
                             "archive", "restore", "peer", "classified", "maint_link", "purge", "import",
                             "reembed", "dangling", "undo_link", "bulk_link", "link_by_target", "unlink_by_target",
                             "resupersede"])  # fmt: skip
        if not ids and choice not in ("add", "peer", "import"):
            choice = "add"
        if choice == "add":
            self._write(content=self._text())
        elif choice == "slot":
            self._write(content=self._text(), subject_key=rng.choice(["home city", "employer"]))
        elif choice == "supersede":
            active = self._ids(lifecycle="active") or ids
            self._write(content=self._text(), supersedes=(rng.choice(active),))
        elif choice == "link":
            targets = rng.sample(ids, min(len(ids), rng.randint(1, 3)))
            self._write(content=self._text(), links=tuple((rng.choice(["relates", "causes", "follows"]), t, "")
                                                          for t in targets))  # fmt: skip
        elif choice == "dup":
            fact = Fact.objects.get(workspace=self.ws, memory_id=rng.choice(ids))
            self._write(content=fact.content, segment=fact.segment)
        elif choice == "feedback":
            recall_service.feedback(workspace=self.ws, fact_id=rng.choice(ids), signal=rng.choice(["up", "down"]),
                                    actor="test")  # fmt: skip
        elif choice == "recall":  # reinforces through this process's live index (no revision)
            recall_service.recall(workspace=self.ws, query=rng.choice(QUERIES), origin=OWNER, embedder=None)
        elif choice == "archive":
            set_lifecycle(workspace=self.ws, memory_ids=rng.sample(ids, min(2, len(ids))), lifecycle="archived",
                          actor="test")  # fmt: skip
        elif choice == "restore":
            archived = self._ids(lifecycle="archived")
            if archived:
                set_lifecycle(
                    workspace=self.ws, memory_ids=[rng.choice(archived)], lifecycle="active", actor="test"
                )
        elif choice == "peer":
            peer_ids = self._ids(PEER)
            links = (("relates", rng.choice(peer_ids), ""),) if peer_ids and rng.random() < 0.5 else ()
            self._write(content=self._text(), origin=PEER, source_type="owner_message", links=links)
        elif choice == "classified":
            self._write(content=self._text(), classification=rng.choice(["PII", "PUBLIC", "INTERNAL"]),
                        intent_scope=rng.choice(["", "travel", "work"]))  # fmt: skip
        elif choice == "maint_link":  # links between existing facts, named by their sources
            pairs = [(rng.choice(ids), rng.choice(["relates", "follows"]), rng.choice(ids)) for _ in range(2)]
            maintenance.apply_changes(
                self.ws, changes=[], links=[p for p in pairs if p[0] != p[2]], actor="test"
            )
        elif choice == "undo_link":  # links removed while their source is named (as undoing a dream does)
            link = Link.objects.filter(workspace=self.ws, to_fact__isnull=False).order_by("?").first()
            if link is not None:
                with mutate(self.ws, actor="test") as m:
                    source = link.from_fact.memory_id
                    link.delete()
                    m.record("restored", fact_ids=[source], reason="unlink")
        elif choice == "purge":
            victim = rng.choice(ids)
            with mutate(self.ws, actor="test") as m:
                Fact.objects.filter(workspace=self.ws, memory_id=victim).delete()
                m.record("purged", fact_ids=[victim])
        elif choice == "import":  # bulk: facts in one event, their links in another that names no fact
            base = f"mem_imp_{self.count}_{rng.randint(0, 10**6)}"
            now = to_ms(timezone.now())
            lines = []
            for i in range(rng.randint(1, 3)):
                targets = [f"{base}_{j}" for j in range(i)] + rng.sample(ids, min(1, len(ids)))
                lines.append(json.dumps({
                    "memoryId": f"{base}_{i}", "content": self._text(), "segment": "knowledge", "createdAt": now,
                    "lastAccessedAt": now, "createdBy": {"kind": "owner"}, "sourceType": "owner_message",
                    "links": [{"kind": "relates", "target": t} for t in targets],
                    "supersedes": rng.sample(ids, min(1, len(ids))),
                }))  # fmt: skip
            import_facts(workspace=self.ws, lines=lines, actor="test")
        elif choice == "reembed":
            reembed(self.ws, actor="test", embedder=rng.choice(EMBEDDERS), batch_size=rng.choice([2, 50]))
        elif choice == "dangling":  # supersedes an id that is not there yet; an import may bring it later
            future = f"mem_future_{rng.randint(0, 3)}"
            if rng.random() < 0.5:
                self._write(content=self._text(), supersedes=(future,))
            elif not Fact.objects.filter(workspace=self.ws, memory_id=future).exists():
                now = to_ms(timezone.now())
                import_facts(workspace=self.ws, actor="test", lines=[json.dumps({
                    "memoryId": future, "content": self._text(), "segment": "knowledge", "createdAt": now,
                    "lastAccessedAt": now, "createdBy": {"kind": "owner"}, "sourceType": "owner_message",
                })])  # fmt: skip
        # Writers the services do not have today, which the index must follow all the same.
        elif choice == "bulk_link":  # links between known facts in an event that names none (as an import's)
            pks = list(Fact.objects.filter(workspace=self.ws).values_list("pk", flat=True))
            pairs = [rng.sample(pks, 2) for _ in range(3)] if len(pks) > 1 else []
            rows = [Link(workspace=self.ws, from_fact_id=a, to_fact_id=b, kind="relates", position=rng.randint(0, 3))
                    for a, b in pairs]  # fmt: skip
            with mutate(self.ws, actor="test") as m:
                Link.objects.bulk_create(rows, ignore_conflicts=True)
                m.record("linked", count=len(rows))
        elif choice in ("link_by_target", "unlink_by_target"):  # an event naming only the linked-to fact
            link = Link.objects.filter(workspace=self.ws, to_fact__isnull=False).order_by("?").first()
            with mutate(self.ws, actor="test") as m:
                if choice == "unlink_by_target" and link is not None:
                    link.delete()
                    m.record("restored", fact_ids=[link.to_fact.memory_id])
                elif choice == "link_by_target" and len(ids) > 1:
                    source, target = (
                        Fact.objects.get(workspace=self.ws, memory_id=i) for i in rng.sample(ids, 2)
                    )
                    Link.objects.get_or_create(
                        workspace=self.ws, from_fact=source, to_fact=target, kind="follows"
                    )
                    m.record("linked", fact_ids=[target.memory_id])
        elif choice == "resupersede":  # an existing fact's `supersedes` list changes
            victim = rng.choice(ids)
            with mutate(self.ws, actor="test") as m:
                targets = rng.sample(ids, min(2, len(ids))) + [f"mem_future_{rng.randint(0, 3)}"]
                Fact.objects.filter(workspace=self.ws, memory_id=victim).update(supersedes=targets)
                m.record("reinforced", fact_ids=[victim])
        return choice


@pytest.mark.parametrize("seed", range(6))
def test_an_index_synced_through_writes_equals_a_fresh_one(workspace, seed):
    scenario = Scenario(workspace, seed)
    rng = random.Random(1000 + seed)
    done = []
    for step in range(45):
        for _ in range(rng.choice([1, 1, 1, 2, 3])):  # several changes between two syncs, sometimes
            done.append(scenario.step())
        for scope in (OWNER, PEER):
            live = registry.get(workspace, scope)
            if rng.random() < 0.3 and live.cols is not None:
                live.cols.bm25.n_docs  # noqa: B018 - the lazy spec-lane index, built now, is extended later
            fresh_registry = IndexRegistry()
            fresh = fresh_registry.get(workspace, scope)
            assert_same_index(live, fresh)
            if step % 3 == 2 or step == 44:
                now = timezone.now()
                _same_hits(_ranked(registry, live, scope, now), _ranked(fresh_registry, fresh, scope, now), str(done))
    assert FactVector.objects.filter(workspace=workspace).exists() or "reembed" not in done


def test_new_facts_are_appended_not_rebuilt(workspace, monkeypatch):
    """The common case (an agent writes, then recalls) never re-indexes the facts already there."""
    for i in range(5):
        write_fact(workspace=workspace, new=NewFact(content=f"I met Maria at the garden party {i}.", segment="knowledge"),
                   actor="test")  # fmt: skip
    index = registry.get(workspace, OWNER)
    stems = index.cols.text.stems

    def no_rebuild(_registry, _index):
        raise AssertionError("rebuilt the columns for an append")

    # On the class: patching the shared registry object would leave its own `_rebuild` behind, which
    # hides the class's from every later test (undo puts the bound method back on the instance).
    monkeypatch.setattr(IndexRegistry, "_rebuild", no_rebuild)
    monkeypatch.setattr(index_links, "load", lambda _index: (_ for _ in ()).throw(AssertionError("all links")))
    first = write_fact(workspace=workspace, new=NewFact(content="Maria plays the piano on Fridays.", segment="knowledge"),
                       actor="test").fact  # fmt: skip
    write_fact(workspace=workspace, new=NewFact(content="The piano teacher is Joao.", segment="knowledge",
                                                links=(("relates", first.memory_id, ""),)), actor="test")  # fmt: skip
    hits = recall_service.recall(
        workspace=workspace, query="piano", origin=OWNER, reinforce=False, embedder=None
    )
    assert {h.id for h in hits} >= {first.memory_id}
    assert index.cols.text.stems is stems and len(index.cols) == 7
    monkeypatch.undo()
    assert_same_index(index, IndexRegistry().get(workspace, OWNER))


def test_a_purge_falls_back_to_a_rebuild(workspace):
    facts = [write_fact(workspace=workspace, new=NewFact(content=f"Lisbon trip number {i} was fun.", segment="knowledge"),
                        actor="test").fact for i in range(3)]  # fmt: skip
    registry.get(workspace, OWNER)
    with mutate(workspace, actor="test") as m:
        Fact.objects.filter(pk=facts[1].pk).delete()
        m.record("purged", fact_ids=[facts[1].memory_id])
    write_fact(
        workspace=workspace, new=NewFact(content="Porto trip was fun too.", segment="knowledge"), actor="test"
    )
    live = registry.get(workspace, OWNER)
    assert facts[1].memory_id not in live.cols.row_index
    assert_same_index(live, IndexRegistry().get(workspace, OWNER))


def test_vectors_of_many_facts_are_read_in_bounded_queries(workspace, monkeypatch):
    """A sync after a pass that touched a million facts asks for their vectors: never one query with
    more ids than a database binds (it failed on PostgreSQL past 65,535)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.services.recall import embedding

    ids = [write_fact(workspace=workspace, new=NewFact(content=f"The {w} note number {i} is kept in the blue folder.", segment="knowledge"),
                      actor="test").fact.memory_id for i, w in enumerate(WORDS[:7])]  # fmt: skip
    reembed(workspace, actor="test", embedder=EMBEDDERS[0])
    every = sorted((m, f) for m, f, _ in embedding.vectors_of(workspace.pk, OWNER.key, ids))
    monkeypatch.setattr(embedding, "IDS_PER_QUERY", 2)
    with CaptureQueriesContext(connection) as queries:
        assert sorted((m, f) for m, f, _ in embedding.vectors_of(workspace.pk, OWNER.key, ids)) == every
    assert len([q for q in queries if "memory_factvector" in q["sql"]]) == 4  # 7 ids, 2 per query
    assert [m for m, _ in every] == sorted(ids)
