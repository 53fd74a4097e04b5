"""Loading and applying maintenance plans through the database, set-based (ENGINE-SPEC §4.2, Decision 1).

`maint_facts` reads columns and opens each origin's key once; `apply_changes` writes grouped
UPDATEs (and `UPDATE … FROM VALUES` on PostgreSQL), drops near-duplicate postings in one statement
and inserts links with one INSERT … SELECT. These tests hold each path to what the per-object code
it replaced did.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from memory import sealing
from memory.engine.maintenance.plans import FactChange, MaintFact
from memory.models import Fact, FactTerm, Link, MemoryEvent, TermStat
from memory.services.maintenance import passes as maintenance
from memory.services.maintenance.passes import apply_changes, maint_facts
from memory.tideline import Tideline
from memory.timestamps import to_ms

pytestmark = pytest.mark.django_db

PEER = "channel:wa/c1/s1"


def _reference_facts(workspace) -> list[MaintFact]:
    """The per-object loading `maint_facts` replaced: every row as a model, content decrypted."""
    out = []
    for fact in Fact.objects.filter(workspace=workspace).order_by("pk"):
        try:
            content = fact.content
        except sealing.KeyDestroyedError:
            continue
        out.append(MaintFact(
            memory_id=fact.memory_id, content=content, segment=fact.segment, tier=fact.tier,
            importance=fact.importance, decay_rate=fact.decay_rate, access_count=fact.access_count,
            last_accessed_at=int(to_ms(fact.last_accessed_at)), created_at=int(to_ms(fact.created_at)),
            lifecycle=fact.lifecycle, status=fact.status, confidence=fact.confidence, subject_key=fact.subject_key,
            source_type=fact.source_type, origin_key=fact.origin_key, valid_to=to_ms(fact.valid_to),
            source_turn=fact.source_turn, valid_from=to_ms(fact.valid_from),
        ))  # fmt: skip
    return out


def _add(workspace, count, *, prefix="fact", origin="owner"):
    tl = Tideline(workspace)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron".split()  # noqa: SIM905
    return [
        tl.add(f"{prefix} {k}: {words[k % 12]} {words[(k * 5) % 12]} {words[(k * 7 + 3) % 12]} number {k}",
               segment="project", origin=origin).id
        for k in range(count)
    ]  # fmt: skip


def test_maint_facts_reads_exactly_what_the_models_hold(workspace):
    ids = _add(workspace, 6)
    peer = _add(workspace, 2, prefix="peer", origin={"kind": "channel", "channelId": "wa", "conversationId": "c1",
                                                     "sessionKey": "s1"})  # fmt: skip
    moment = timezone.now().replace(microsecond=123456)  # a sub-millisecond remainder comes back as a float
    Fact.objects.filter(memory_id=ids[0]).update(valid_to=moment, valid_from=moment - timedelta(days=1))
    Fact.objects.filter(memory_id=ids[1]).update(valid_to=moment.replace(microsecond=5000), lifecycle="archived",
                                                 subject_key="slot", status="confirmed", confidence=0.9)  # fmt: skip
    loaded = maint_facts(workspace, lifecycles=None)
    assert loaded == _reference_facts(workspace) and len(loaded) == 8
    assert [f.content for f in loaded] == [f.content for f in _reference_facts(workspace)]
    first = next(f for f in loaded if f.memory_id == ids[0])
    assert isinstance(first.valid_to, float) and first.valid_to == to_ms(moment)
    assert [f.memory_id for f in maint_facts(workspace)] == [f.memory_id for f in loaded if f.is_active]
    # A shredded origin's facts cannot be read, so they are left out.
    sealing.keyring.destroy(workspace.pk, Fact.objects.get(memory_id=peer[0]).origin_key)
    assert {f.memory_id for f in maint_facts(workspace, lifecycles=None)} == set(ids)


def test_apply_changes_writes_each_facts_own_values_and_skips_stale_ones(workspace):
    """More distinct value sets than one UPDATE per group allows: the per-row path (VALUES on PostgreSQL)."""
    ids = _add(workspace, 14)
    rows = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace)}
    base = int(to_ms(timezone.now()))
    changes = []
    for k, memory_id in enumerate(ids[:12]):
        row = rows[memory_id]
        valid_to = base + k * 1000 + (0.5 if k == 3 else 0)
        changes.append(FactChange(
            memory_id,
            {"importance": row.importance, "subject_key": None, "valid_to": None, "access_count": 0},
            {"importance": round(0.05 * (k + 1), 2), "subject_key": f"key_{k}" if k % 2 else None,
             "valid_to": valid_to, "access_count": k},
        ))  # fmt: skip
    # A second change of the same fact sees the first one's values.
    changes.append(
        FactChange(ids[0], {"importance": 0.05, "status": None}, {"importance": 0.95, "status": "confirmed"})
    )
    stale = FactChange(ids[12], {"importance": 0.123}, {"importance": 0.5})  # the plan saw another value
    gone = FactChange("mem_missing", {"importance": 0.5}, {"importance": 0.6})
    skipped = apply_changes(workspace, changes=[*changes, stale, gone], links=[], actor="dream:t1")
    assert skipped == [ids[12], "mem_missing"]
    after = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace)}
    for change in changes[1:12]:
        row = after[change.memory_id]
        assert (
            row.importance == change.after["importance"] and row.access_count == change.after["access_count"]
        )
        assert (
            row.subject_key == change.after["subject_key"] and to_ms(row.valid_to) == change.after["valid_to"]
        )
    assert (after[ids[0]].importance, after[ids[0]].status, after[ids[0]].access_count) == (
        0.95,
        "confirmed",
        0,
    )
    assert after[ids[12]].importance == rows[ids[12]].importance
    events = list(MemoryEvent.objects.filter(workspace=workspace, actor="dream:t1").order_by("id"))
    assert len(events) == 13 and events[3].data["after"]["valid_to"] == base + 3000.5
    assert [e.fact_ids for e in events] == [[c.memory_id] for c in changes]


def test_facts_leaving_the_active_set_leave_the_near_duplicate_index(workspace):
    ids = _add(workspace, 8)
    leaving = [Fact.objects.get(memory_id=i) for i in ids[:3]]
    postings = FactTerm.objects.filter(fact__in=leaving)
    expected = Counter(
        {(r.origin_key, r.trusted, r.term): r.df for r in TermStat.objects.filter(workspace=workspace)}
    )
    expected.subtract(Counter(postings.values_list("origin_key", "trusted", "term")))
    assert postings.exists()
    changes = [FactChange(f.memory_id, {"lifecycle": "active"}, {"lifecycle": "archived" if k else "pruned"})
               for k, f in enumerate(leaving)]  # fmt: skip
    assert apply_changes(workspace, changes=changes, links=[], actor="gc") == []
    assert not FactTerm.objects.filter(fact__in=leaving).exists()
    assert FactTerm.objects.filter(workspace=workspace).count() > 0
    stats = {(r.origin_key, r.trusted, r.term): r.df for r in TermStat.objects.filter(workspace=workspace)}
    assert stats == dict(expected)
    stamped = Fact.objects.filter(memory_id__in=ids[:3])
    assert all(f.pruned_at if f.lifecycle == "pruned" else f.archived_at for f in stamped)


@pytest.mark.parametrize("resolved_by", ["ids", "whole workspace"])
def test_links_are_added_once_in_plan_order_and_skip_facts_that_are_gone(workspace, monkeypatch, resolved_by):
    if resolved_by == "whole workspace":  # as for a dream that links most of a large workspace
        monkeypatch.setattr(maintenance, "_WHOLE_WORKSPACE_AFTER", 0)
    a, b, c = _add(workspace, 3)
    Link.objects.create(workspace=workspace, from_fact=Fact.objects.get(memory_id=a),
                        to_fact=Fact.objects.get(memory_id=b), kind="relates")  # fmt: skip
    links = [(c, "supports", a), (a, "relates", b), (b, "relates", c), (b, "relates", c), (a, "relates", "mem_gone"),
             (a, "supports", b)]  # fmt: skip
    apply_changes(workspace, changes=[], links=links, actor="dream:t2")
    added = list(Link.objects.filter(workspace=workspace, created_by="dream:t2").order_by("id"))
    assert [(x.from_fact.memory_id, x.kind, x.to_fact.memory_id) for x in added] == [
        (c, "supports", a), (b, "relates", c), (a, "supports", b),
    ]  # fmt: skip
    assert all(
        (x.position, x.weight, x.reason, x.strength, x.dangling_target) == (0, 1.0, "", None, "")
        for x in added
    )
    [event] = MemoryEvent.objects.filter(workspace=workspace, actor="dream:t2", kind="linked")
    assert event.data["links"] == [list(link) for link in links] and event.fact_ids == sorted({a, b, c})


def test_a_link_to_a_fact_purged_after_its_id_was_resolved_is_left_out(workspace, monkeypatch):
    a, b, c = _add(workspace, 3)
    resolve = maintenance._link_endpoint_pks

    def resolve_then_purge(ws, links):
        pks = resolve(ws, links)
        Fact.objects.filter(memory_id=c).delete()  # purged between the lookup and the batch
        return pks

    monkeypatch.setattr(maintenance, "_link_endpoint_pks", resolve_then_purge)
    apply_changes(workspace, changes=[], links=[(a, "relates", b), (b, "relates", c)], actor="dream:t3")
    added = Link.objects.filter(workspace=workspace, created_by="dream:t3")
    assert [(x.from_fact.memory_id, x.kind, x.to_fact.memory_id) for x in added] == [(a, "relates", b)]
