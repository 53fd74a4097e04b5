"""The dream as a deterministic, reversible plan (ENGINE-SPEC §4.2)."""

import dataclasses
import math
import random

import numpy as np
import pytest

from memory.engine.maintenance.dream import merge_metadata, plan_dream, synonymy_edges
from memory.engine.maintenance.plans import apply_plan, undo_plan
from memory.engine.recall.hrr import HrrEmbedder
from tests.memory.engine.maintenance.maint_factory import DAY, NOW, OWNER, PEER, fact

NO_EVICT = {"evict_min_age_ms": math.inf}


def active(facts):
    return [f.memory_id for f in facts if f.is_active]


# ------------------------------------------------------------------ confirm


def test_a_belief_asserted_three_times_is_confirmed_with_confidence_exactly_0_9():
    """H72: restated twice (access_count 2) ⇒ assertions 3 ⇒ confirmed, confidence 0.9, importance ≥ 0.8."""
    belief = fact("indent", "I prefer spaces over tabs", "preference", subject_key="indent", access_count=2)
    plan = plan_dream([belief], [], NOW, **NO_EVICT)
    assert [c.memory_id for c in plan.confirmations] == ["indent"]
    change = plan.confirmations[0].change
    assert change.before == {"status": None, "confidence": None, "importance": 0.7}
    assert change.after == {"status": "confirmed", "confidence": 0.9, "importance": 0.8}
    [after], _ = apply_plan([belief], [], plan)
    assert after.status == "confirmed" and after.confidence == 0.9


def test_a_belief_asserted_once_or_without_a_subject_key_is_not_confirmed():
    """H72: one assertion is not enough, and a fact without a slot is never confirmed."""
    once = fact("vim", "I am trying out vim", "preference", subject_key="editor")
    slotless = fact("tea", "I like tea", "preference", access_count=5)
    assert plan_dream([once, slotless], [], NOW, **NO_EVICT).confirmations == ()


def correction_chain(values=("Monday", "Tuesday", "Wednesday", "Thursday")):
    facts, links = [], []
    for k, day in enumerate(values):
        latest = k == len(values) - 1
        facts.append(
            fact(
                f"day{k}", f"deploy day is {day}", "preference", subject_key="day",
                lifecycle="active" if latest else "archived", valid_to=None if latest else NOW - (3 - k) * DAY,
                created_at=NOW - (4 - k) * DAY, last_accessed_at=NOW - (4 - k) * DAY,
            )
        )  # fmt: skip
        if k:
            links += [(f"day{k}", "contradicts", f"day{k - 1}"), (f"day{k}", "transition", f"day{k - 1}")]
    return facts, links


def test_a_slot_corrected_three_times_confirms_the_latest_value():
    """H73: four values in one slot leave three archived predecessors; Thursday is confirmed."""
    facts, links = correction_chain()
    plan = plan_dream(facts, links, NOW, **NO_EVICT)
    [confirmation] = plan.confirmations
    assert confirmation.memory_id == "day3"
    assert confirmation.corrections == 3 and confirmation.assertions == 1
    assert "Thursday" in next(f.content for f in facts if f.memory_id == confirmation.memory_id)


def test_supersede_links_across_slots_do_not_count_as_corrections():
    """H73: only same-slot supersedes are user corrections (a consolidation merge is not)."""
    facts, links = correction_chain()
    facts = [
        dataclasses.replace(f, subject_key=f"day_{f.memory_id}") if f.memory_id != "day3" else f
        for f in facts
    ]
    assert plan_dream(facts, links, NOW, **NO_EVICT).confirmations == ()


def test_a_peers_archived_values_do_not_count_for_the_owners_slot():
    facts, links = correction_chain()
    facts = [dataclasses.replace(f, origin_key=PEER) if f.memory_id != "day3" else f for f in facts]
    assert plan_dream(facts, links, NOW, **NO_EVICT).confirmations == ()


# ------------------------------------------------------------------ consolidate


def test_identical_facts_under_two_subject_keys_are_merged_into_one():
    """H74: "I love jazz" stored under music_a and music_b consolidates to one active fact."""
    facts = [
        fact("a", "I love jazz", "preference", subject_key="music_a"),
        fact("b", "I love jazz", "preference", subject_key="music_b"),
    ]
    plan = plan_dream(facts, [], NOW, confirm_count=99, **NO_EVICT)
    [merge] = plan.merges
    assert (merge.kept, merge.merged) == ("a", "b")  # a full tie keeps the smaller id
    assert merge.similarity >= 0.95
    after, links = apply_plan(facts, [], plan)
    assert active(after) == ["a"]
    archived = next(f for f in after if f.memory_id == "b")
    assert archived.lifecycle == "archived" and archived.valid_to == NOW
    assert ("a", "contradicts", "b") in links and ("a", "transition", "b") in links


def test_a_trusted_fact_is_kept_over_a_richer_untrusted_copy():
    trusted = fact("z", "The release train leaves on Fridays", "knowledge", source_type="owner_message")
    untrusted = fact("a", "The release train leaves on Fridays", "knowledge", source_type="tool_output",
                     subject_key="release_day", importance=0.9)  # fmt: skip
    [merge] = plan_dream([trusted, untrusted], [], NOW, **NO_EVICT).merges
    assert (merge.kept, merge.merged, merge.reason) == ("z", "a", "trusted source")
    # The keeper still inherits what the duplicate knew.
    assert merge.keeper_change.after == {"importance": 0.9, "subject_key": "release_day"}


def test_the_richer_fact_is_kept_and_the_copy_cannot_archive_it():
    original = fact("z", "I am a nurse in Porto", "identity", subject_key="job")
    reworded = fact("a", "I am a nurse in Porto", "knowledge", source_type="extraction")
    plan = plan_dream([original, reworded], [], NOW, **NO_EVICT)
    [merge] = plan.merges
    assert (merge.kept, merge.merged) == ("z", "a")


def test_two_confirmed_near_duplicates_are_neither_merged_nor_related():
    facts = [
        fact("a", "I love jazz", "preference", subject_key="music_a", status="confirmed", confidence=0.9),
        fact("b", "I love jazz", "preference", subject_key="music_b", status="confirmed", confidence=0.9),
    ]
    plan = plan_dream(facts, [], NOW, **NO_EVICT)
    assert plan.merges == () and plan.relations == ()
    assert [(d.a, d.b) for d in plan.declined] == [("a", "b")]


def test_the_keeper_inherits_richer_metadata_with_the_segment_rebased():
    keeper = fact("k", "x", "knowledge", importance=0.5, access_count=1)
    loser = fact("l", "x", "preference", subject_key="tea", confidence=0.7, access_count=4, source_turn="t9")
    merged = merge_metadata(keeper, loser)
    assert (merged.segment, merged.tier, merged.decay_rate) == ("preference", "long", 0.02)
    assert (merged.subject_key, merged.importance, merged.confidence, merged.access_count) == (
        "tea",
        0.7,
        0.7,
        4,
    )
    assert merged.source_turn == "t9" and merged.content == "x" and merged.status is None


def test_the_keeper_inherits_the_duplicates_links():
    facts = [
        fact("a", "I love jazz", "preference"),
        fact("b", "I love jazz", "preference", importance=0.2),
        fact("c", "Miles Davis is my favourite", "preference"),
    ]
    links = [("b", "supports", "c"), ("b", "relates", "a")]
    [merge] = plan_dream(facts, links, NOW, relates_threshold=1.0, **NO_EVICT).merges
    assert merge.kept == "a"
    # b → a is not copied (it would point at the keeper itself).
    assert merge.added == (("a", "supports", "c"), ("a", "contradicts", "b"), ("a", "transition", "b"))


# ------------------------------------------------------------------ relate and evict


def test_related_facts_get_bidirectional_relates_links_and_stay_active():
    """H76: relatesThreshold 0.2 and consolidateThreshold 0.99 link the two Rex facts both ways."""
    facts = [
        fact("rex1", "My dog Rex loves running at the park", "relationship"),
        fact("rex2", "My dog Rex enjoys swimming at the lake", "relationship"),
        fact("rev", "Quarterly revenue grew in the spreadsheet", "knowledge"),
    ]
    plan = plan_dream(facts, [], NOW, relates_threshold=0.2, consolidate_threshold=0.99)
    assert plan.related == 2
    assert plan.links_added() == [("rex1", "relates", "rex2"), ("rex2", "relates", "rex1")]
    assert plan.merges == () and plan.evictions == ()


def test_a_rewording_below_the_relates_bar_is_left_alone():
    """H76: "I deploy on Friday." vs "... afternoons." at the defaults: reflected 2, related 0."""
    facts = [
        fact("a", "I deploy on Friday.", "preference"),
        fact("b", "I deploy on Friday afternoons.", "preference"),
    ]
    plan = plan_dream(facts, [], NOW)
    assert plan.summary() == {"reflected": 2, "confirmed": 0, "consolidated": 0, "related": 0, "evicted": 0}


def test_relates_links_respect_the_per_record_cap():
    hub = fact("hub", "alpha beta gamma delta epsilon", "knowledge")
    copies = [fact(f"n{k}", "alpha beta gamma delta epsilon", "knowledge") for k in range(4)]
    existing = [("hub", "relates", f"x{k}") for k in range(11)]
    plan = plan_dream([hub, *copies], existing, NOW, consolidate_threshold=1.0, relates_threshold=0.9,
                      confirm_count=99, **NO_EVICT)  # fmt: skip
    # Everything is identical, so everything merges into "hub" and nothing is left to relate.
    assert plan.related == 0
    facts = [fact(f"f{k}", f"alpha beta gamma delta epsilon {k}", "knowledge") for k in range(5)]
    plan = plan_dream(facts, [], NOW, relates_threshold=0.5, max_related_per_record=2, **NO_EVICT)
    counts = {}
    for source, _, _ in plan.links_added():
        counts[source] = counts.get(source, 0) + 1
    assert max(counts.values()) == 2


def test_eviction_archives_decayed_facts_but_never_a_confirmed_belief():
    """H75: threshold 1.0 and age 0 evict the context fact and spare the thrice-asserted belief."""
    facts = [
        fact("belief", "my deploy day is Tuesday", "preference", subject_key="deploy_day", access_count=2),
        fact("note", "the build ran at 3pm today", "context"),
    ]
    plan = plan_dream(facts, [], NOW + 1000, evict_below_score=1.0, evict_min_age_ms=0)
    assert len(plan.confirmations) == 1
    assert [e.memory_id for e in plan.evictions] == ["note"]
    after, _ = apply_plan(facts, [], plan)
    [survivor] = [f for f in after if f.is_active]
    assert (survivor.memory_id, survivor.status, survivor.segment) == ("belief", "confirmed", "preference")
    assert next(f for f in after if f.memory_id == "note").valid_to == NOW + 1000


def test_eviction_waits_for_the_minimum_age_and_keeps_an_existing_valid_to():
    young = fact("young", "scratch", "context", last_accessed_at=NOW - 400 * DAY, created_at=NOW - 10 * DAY)
    old = fact("old", "scratch two", "context", last_accessed_at=NOW - 400 * DAY, created_at=NOW - 400 * DAY,
               valid_to=NOW + DAY)  # fmt: skip
    plan = plan_dream([young, old], [], NOW)
    assert [e.memory_id for e in plan.evictions] == ["old"]
    assert plan.evictions[0].change.after == {"lifecycle": "archived", "valid_to": NOW + DAY}


# ------------------------------------------------------------------ origins


def test_identical_beliefs_of_two_principals_are_confirmed_separately_and_never_merged():
    """H84: owner and peer each confirm their own belief; both stay active."""
    facts = [
        fact("o", "I prefer spaces over tabs", "preference", subject_key="indent", access_count=2),
        fact(
            "p",
            "I prefer spaces over tabs",
            "preference",
            subject_key="indent",
            access_count=2,
            origin_key=PEER,
        ),
    ]
    plan = plan_dream(facts, [], NOW, **NO_EVICT)
    assert plan.origins == (OWNER, PEER)
    assert sorted(c.memory_id for c in plan.confirmations) == ["o", "p"]
    assert plan.merges == () and plan.relations == ()
    after, _ = apply_plan(facts, [], plan)
    assert active(after) == ["o", "p"]


def test_an_origin_filter_reflects_over_that_principal_only():
    """H84: one owner origin with a thrice-asserted belief ⇒ 1 confirmed, 1 active after."""
    facts = [
        fact("o", "I prefer spaces over tabs", "preference", subject_key="indent", access_count=2),
        fact("p", "I prefer tabs", "preference", subject_key="indent", access_count=5, origin_key=PEER),
    ]
    plan = plan_dream(facts, [], NOW, origin=OWNER, **NO_EVICT)
    assert plan.origins == (OWNER,) and plan.reflected == 1
    assert [c.memory_id for c in plan.confirmations] == ["o"]


# ------------------------------------------------------------------ determinism and reversibility


def busy_memory():
    """Confirmations, a chain of merges, relations and evictions in one origin, plus a peer."""
    facts, links = correction_chain()
    facts += [
        fact("j1", "I love jazz", "preference", subject_key="music_a", importance=0.75),
        fact("j2", "I love jazz", "knowledge", source_turn="t1"),
        fact("j3", "I love jazz", "knowledge", access_count=7, confidence=0.6),
        fact("r1", "My dog Rex loves running at the park", "relationship"),
        fact("r2", "My dog Rex enjoys swimming at the lake", "relationship", valid_from=NOW - DAY),
        fact("old", "I owe Sam an answer about the lease", "context", last_accessed_at=NOW - 90 * DAY,
             created_at=NOW - 90 * DAY),
        fact("p1", "I love jazz", "preference", origin_key=PEER),
        fact("p2", "I love jazz", "preference", origin_key=PEER, subject_key="music"),
    ]  # fmt: skip
    links += [("j2", "supports", "r1"), ("j3", "derived_from", "j2")]
    return facts, links


def test_the_same_memory_always_gives_the_same_plan_whatever_the_input_order():
    facts, links = busy_memory()
    plan = plan_dream(facts, links, NOW, relates_threshold=0.3)
    assert plan == plan_dream(facts, links, NOW, relates_threshold=0.3)
    shuffled = facts[:]
    random.Random(3).shuffle(shuffled)
    assert plan == plan_dream(shuffled, list(reversed(links)), NOW, relates_threshold=0.3)
    assert plan.summary()["consolidated"] == 3 and plan.related > 0 and plan.evictions and plan.confirmations


def test_applying_then_undoing_a_dream_restores_every_fact_and_removes_every_added_link():
    facts, links = busy_memory()
    plan = plan_dream(facts, links, NOW, relates_threshold=0.3)
    after, after_links = apply_plan(facts, links, plan)
    assert after != facts and len(after_links) > len(links)
    restored, restored_links = undo_plan(after, after_links, plan)
    assert restored == facts
    assert restored_links == links


def test_a_merge_chain_records_each_step_so_it_undoes_in_reverse():
    facts = [
        fact("a", "I love jazz", "knowledge", importance=0.3, source_turn="t1"),
        fact("b", "I love jazz", "knowledge", importance=0.4),
        fact("c", "I love jazz", "preference", subject_key="music"),
    ]
    plan = plan_dream(facts, [("b", "supports", "a")], NOW, **NO_EVICT)
    # Equal similarities fall to the ids: (a, b) first, where b is richer; then (b, c), where c is.
    assert [(m.kept, m.merged) for m in plan.merges] == [("b", "a"), ("c", "b")]
    # c inherits what b had just inherited from a, but not b's own merge history: c → b → a is the chain.
    assert plan.merges[1].keeper_change.after == {"source_turn": "t1"}
    assert plan.merges[0].added == (("b", "contradicts", "a"), ("b", "transition", "a"))
    assert plan.merges[1].added == (("c", "supports", "a"), ("c", "contradicts", "b"), ("c", "transition", "b"))
    after, links = apply_plan(facts, [("b", "supports", "a")], plan)
    assert active(after) == ["c"]
    assert undo_plan(after, links, plan) == (facts, [("b", "supports", "a")])


def test_applying_a_plan_to_changed_data_is_refused():
    facts = [fact("a", "I love jazz", "preference"), fact("b", "I love jazz", "preference")]
    plan = plan_dream(facts, [], NOW, **NO_EVICT)
    moved = [dataclasses.replace(facts[1], lifecycle="archived"), facts[0]]
    with pytest.raises(ValueError):
        apply_plan(moved, [], plan)


def test_the_lsh_path_finds_the_same_pairs_as_the_exact_path_on_a_few_hundred_facts():
    rng = random.Random(1)
    words = "jazz tea river lamp orbit cedar piano violet maple ember quartz harbor".split()  # noqa: SIM905
    facts = []
    for k in range(300):
        picked = rng.sample(words, 4)
        facts.append(fact(f"f{k:03d}", " ".join(picked), "knowledge"))
        if k % 10 == 0:  # a near-copy every now and then
            facts.append(fact(f"g{k:03d}", " ".join(picked) + " " + rng.choice(words), "knowledge"))
    exact = plan_dream(facts, [], NOW, **NO_EVICT)
    lsh = plan_dream(facts, [], NOW, exact_limit=0, **NO_EVICT)
    assert lsh.buckets[0].method == "lsh" and exact.buckets[0].method == "exact"
    assert lsh.merges == exact.merges and lsh.relations == exact.relations


def test_stored_embeddings_are_used_and_missing_ones_embedded():
    vectors = HrrEmbedder().embed(["I love jazz", "I love jazz"], dtype=np.float64)
    facts = [
        fact("a", "I love jazz", "preference", embedding=vectors[0]),
        fact("b", "completely different words", "preference", embedding=vectors[1]),  # stored vector wins
        fact("c", "I love jazz", "preference"),
    ]
    edges = synonymy_edges(facts, 0.95)
    assert {(e.source, e.target) for e in edges} == {("a", "b"), ("a", "c"), ("b", "c")}


def test_synonymy_edges_link_two_identical_texts_and_nothing_else():
    """I89: at 0.8 only the identical pair is linked."""
    facts = [
        fact("a", "I live in Hyderabad and love it"),
        fact("b", "I live in Hyderabad and love it"),
        fact("c", "completely unrelated text about quantum mechanics"),
    ]
    [edge] = synonymy_edges(facts, 0.8)
    assert (edge.source, edge.target) == ("a", "b") and edge.similarity == pytest.approx(1.0)
