"""Replay (memory.engine.recall.visibility): why recall could or could not return a fact at a moment."""

from __future__ import annotations

from memory.engine.recall.visibility import Change, FactTimes, why

DAY = 86_400_000
T0 = 1_790_000_000_000  # 2026-09-21


def test_an_active_fact_is_visible_from_its_writing_on():
    fact = FactTimes(created_ms=T0)
    assert why(fact, [], T0 + DAY).visible
    early = why(fact, [], T0 - DAY)
    assert not early.visible and early.reasons[0].startswith("it had not been written yet")


def test_superseded_names_the_successor_and_who_archived_it():
    fact = FactTimes(created_ms=T0, archived_ms=T0 + DAY, valid_to_ms=T0 + DAY, lifecycle="archived")
    changes = [Change(T0 + DAY, "superseded", "user:olga", "replaced by a newer value")]
    answer = why(fact, changes, T0 + 2 * DAY, successor=("mem_new", T0 + DAY))
    assert not answer.visible and answer.reasons == ("it was superseded by mem_new (2026-09-22 14:13 UTC) by olga",)
    assert why(fact, changes, T0 + DAY / 2, successor=("mem_new", T0 + DAY)).visible  # before the change


def test_the_maintenance_passes_are_named():
    gc = why(FactTimes(created_ms=T0, archived_ms=T0 + DAY, lifecycle="archived"),
             [Change(T0 + DAY, "archived", "task:gc", "score 0.1 < 0.15")], T0 + 2 * DAY)  # fmt: skip
    assert gc.reasons == ("it was archived (2026-09-22 14:13 UTC) by the decay GC: score 0.1 < 0.15",)
    pruned = why(FactTimes(created_ms=T0, pruned_ms=T0 + DAY, lifecycle="pruned"), [Change(T0 + DAY, "pruned", "gc")],
                 T0 + 2 * DAY)  # fmt: skip
    assert pruned.reasons == ("it was pruned (2026-09-22 14:13 UTC) by the decay GC",)


def test_held_blocked_admitted_and_shredded():
    waiting = why(FactTimes(created_ms=T0, held_ms=T0, lifecycle="held"), [], T0 + DAY)
    assert waiting.reasons == ("it was held for review and still waits for a verdict",)
    admitted = FactTimes(created_ms=T0, held_ms=T0, admitted_ms=T0 + DAY)
    assert not why(admitted, [], T0 + DAY / 2).visible and why(admitted, [], T0 + 2 * DAY).visible
    blocked = FactTimes(created_ms=T0, held_ms=T0, archived_ms=T0 + DAY, lifecycle="archived", status="retracted")
    reasons = why(blocked, [Change(T0 + DAY, "archived", "user:olga")], T0 + 2 * DAY).reasons
    assert reasons == ("it was held for review, then blocked by a reviewer", "it was retracted (2026-09-22 14:13 UTC) by olga")
    shredded = why(FactTimes(created_ms=T0, readable=False), [], T0 + DAY)
    assert not shredded.visible and "crypto-shredded" in shredded.reasons[0]


def test_validity_that_ended_without_an_archive():
    answer = why(FactTimes(created_ms=T0, valid_to_ms=T0 + DAY), [], T0 + 2 * DAY)
    assert answer.reasons == ("its validity had ended (2026-09-22 14:13 UTC)",)


def test_an_imported_slot_value_closed_by_its_successor_names_it():
    fact = FactTimes(created_ms=T0, valid_to_ms=T0 + DAY, lifecycle="archived")
    answer = why(fact, [], T0 + 2 * DAY, successor=("mem_next", T0 + DAY))
    assert answer.reasons == ("it was superseded by mem_next: its validity ended 2026-09-22 14:13 UTC",)


def test_an_expired_fact_names_the_policy():
    answer = why(FactTimes(created_ms=T0), [], T0 + 40 * DAY, expired="retention policy 'chat' (v2): older than 30 days")
    assert answer.reasons == ("it had expired under retention policy 'chat' (v2): older than 30 days",)


def test_a_caller_outside_the_origin_clearance_or_intent_is_told_so():
    from memory.engine.recall.visibility import Caller, outside

    facts = dict(origin_key="channel:slack/C1", origin_label="slack/C1", classification="PII", intent_scope="billing")
    reasons = outside(Caller("owner", clearance="INTERNAL"), **facts)
    assert [r.split(":")[0].split(",")[0] for r in reasons] == [
        "it belongs to origin slack/C1", "it is classified PII", "it is scoped to the intent 'billing'"]
    assert outside(Caller("channel:slack/C1", "PII", "billing"), **facts) == []
    answer = why(FactTimes(created_ms=T0), [], T0 + DAY, scope=reasons)
    assert not answer.visible and len(answer.reasons) == 3


def test_a_purged_fact_answers_from_its_receipt():
    from memory.engine.recall.visibility import purged

    receipt = Change(T0 + DAY, "purged", "user:ada", "GDPR request 7")
    after = purged(receipt, T0 + 2 * DAY)
    assert after.reasons == ("it was purged (2026-09-22 14:13 UTC by ada: GDPR request 7); only the content-free receipt remains",)
    before = purged(receipt, T0 + DAY / 2, written_ms=T0)
    assert not before.visible and "can no longer be replayed" in before.reasons[0]
    assert purged(receipt, T0 - DAY, written_ms=T0).reasons[0].startswith("it had not been written yet")
