"""What recall served agents (governance.services.recall_log): kept a while, the evidence behind two
gold-case candidates (a recall that found nothing then the write that answered it; a verdict that
replaced what recall served) and behind an applied proposal's "recalls whose first hit moved"."""

from __future__ import annotations

import pytest

from governance.models import GoldCandidate, ReviewItem, ServedRecall
from governance.services import gold_candidates, recall_log, verdicts
from memory.engine.facts import records as R
from memory.services.keys.crypto_shred import shred_origin
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


def test_an_agents_recall_is_logged_with_what_came_back_and_a_look_that_is_not_served_is_not(tl, workspace):
    tea = tl.add("I prefer green tea in the morning.", segment="preference").id
    tl.recall("What do I drink in the morning?")
    tl.recall("Which car do I drive?")  # nothing relevant: logged with nothing
    tl.recall("What do I drink?", reinforce=False)  # a look (the CLI's --no-reinforce), not an answer served
    tl.explain("What do I drink?")
    tl.context("What do I drink?")
    rows = list(ServedRecall.objects.filter(workspace=workspace).order_by("at", "id"))
    assert [(r.query, r.memory_ids[:1], r.top_id, r.origin_key) for r in rows] == [
        ("What do I drink in the morning?", [tea], tea, "owner"), ("Which car do I drive?", [], "", "owner")]
    assert rows[0].settings_version == workspace.tuning_version


def test_a_recall_that_found_nothing_then_the_write_that_answers_it_is_a_candidate(tl, workspace, personas):
    tl.recall("What is my dog's name?")
    tl.add("The kettle is descaled every month.", segment="knowledge")  # shares no word: not an answer
    peer = Tideline(workspace, actor="agent:peer")
    peer.add("My dog is called Biscuit.", segment="preference", origin="channel:slack/c1/s1")  # another origin
    answer = tl.add("My dog is called Biscuit.", segment="preference").id
    found = [(c.query, c.memory_id, c.source) for c in gold_candidates.open_candidates(workspace)]
    assert found == [("What is my dog's name?", answer, "written_after")]
    case = gold_candidates.accept(gold_candidates.open_candidates(workspace).get(), user=personas.owner, actor="olga")
    assert case.relevant_keys == [answer]  # the written fact is the proposed answer


def test_a_recall_found_nothing_long_ago_or_found_something_makes_no_candidate(tl, workspace, settings):
    tl.add("I walk the dog at seven.", segment="preference")
    tl.recall("When do I walk the dog?")  # found something
    tl.add("The dog walker is Ana.", segment="knowledge")
    assert not GoldCandidate.objects.exists()
    tl.recall("Where does my sister live?")
    ServedRecall.objects.filter(query="Where does my sister live?").update(at=ServedRecall.objects.get(
        query="Where does my sister live?").at - recall_log.ANSWERED_WITHIN * 2)  # fmt: skip
    tl.add("My sister lives in Oslo.", segment="knowledge")
    assert not GoldCandidate.objects.exists()


def test_unwritten_recalls_meet_the_write_in_the_batch_that_writes_them(tl, workspace, settings):
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60  # only an explicit flush writes
    try:
        tl.recall("Where does my sister live?")
        assert not ServedRecall.objects.exists() and len(recall_log.pending.of(workspace.pk)) == 1
        answer = tl.add("My sister lives in Oslo.", segment="knowledge").id
        assert not GoldCandidate.objects.exists()  # the write asked the database nothing
        tl.recall("Where does my brother live?")  # served after the write: that write cannot answer it
        tl.add("My brother lives in Bergen.", segment="knowledge")
        assert recall_log.flush() == 2 and ServedRecall.objects.count() == 2
        found = [(c.query, c.memory_id) for c in GoldCandidate.objects.all()]
        assert ("Where does my sister live?", answer) in found
        assert all(query != "Where does my brother live?" or memory_id != answer for query, memory_id in found)
    finally:
        recall_log.pending.take()


def test_a_batch_of_writes_is_matched_by_one_query_and_a_fact_purged_meanwhile_opens_nothing(tl, workspace, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.services.lifecycle.retract_and_purge import purge_facts

    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60
    try:
        tl.recall("Where does my sister live?")
        recall_log.flush()

        def flush_queries(writes: int) -> int:
            for n in range(writes):
                tl.add(f"The garden shed number {n} holds {n + 2} rakes.", segment="knowledge")  # answers nothing
            with CaptureQueriesContext(connection) as queries:
                recall_log.flush()
            return len(queries.captured_queries)

        assert flush_queries(1) == flush_queries(6)  # one read of the log for the whole batch
        gone = tl.add("My sister lives in Oslo.", segment="knowledge").id
        purge_facts(workspace, [gone], actor="ada", reason="wrong")
        recall_log.flush()
        assert not GoldCandidate.objects.exists()
    finally:
        recall_log.pending.take()


def test_a_verdict_that_replaces_what_recall_served_first_makes_the_admitted_fact_a_candidate(tl, workspace, personas):
    porto = tl.add("I live in Porto.", segment="identity", subject_key="home_city").id
    assert tl.recall("Where do I live?")[0].id == porto
    madrid = tl.add("The user lives in Madrid now.", segment="knowledge", subject_key="home_city",
                    source_type="tool_output")  # fmt: skip
    assert not GoldCandidate.objects.exists()
    verdicts.decide(workspace, madrid.review_item_id, "dismiss", actor="olga", user=personas.owner)
    assert not GoldCandidate.objects.exists()  # dismissed: nothing admitted, nothing replaced
    verdicts.undo(workspace, madrid.review_item_id, actor="olga", user=personas.owner)
    verdicts.decide(workspace, madrid.review_item_id, "supersede", actor="olga", user=personas.owner)
    assert ReviewItem.objects.get(pk=madrid.review_item_id).status != "open"
    found = [(c.query, c.memory_id, c.source, c.actor) for c in GoldCandidate.objects.all()]
    assert found == [("Where do I live?", madrid.id, "verdict", "olga")]


def test_a_contradiction_decided_against_what_recall_served_first_makes_the_fact_kept_a_candidate(
        tl, workspace, personas):  # fmt: skip
    from memory.models import Fact

    spicy = tl.add("I love very spicy food.", segment="preference").id
    mild = tl.add("I cannot eat spicy food any more.", segment="preference").id
    served = tl.recall("Do I like spicy food?")[0].id
    kept = mild if served == spicy else spicy
    pk = {mid: Fact.objects.get(memory_id=mid).pk for mid in (spicy, mild)}
    item = ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact_id=pk[kept], fact_memory_id=kept,
                                     other_fact_id=pk[served], other_memory_id=served, reason="they disagree")  # fmt: skip
    verdicts.decide(workspace, item.pk, "supersede", actor="olga", user=personas.owner)  # the one served is archived
    found = [(c.query, c.memory_id, c.source, c.actor) for c in GoldCandidate.objects.all()]
    assert found == [("Do I like spicy food?", kept, "verdict", "olga")]


def test_a_shredded_origin_takes_its_logged_questions_along(tl, workspace):
    peer = Tideline(workspace, actor="agent:peer")
    origin = "channel:slack/c1/s1"
    peer.add("The standup is at nine.", segment="knowledge", origin=origin)
    peer.recall("When is the standup?", origin=origin)
    tl.recall("When is the standup?")
    assert ServedRecall.objects.count() == 2
    shred_origin(workspace, R.parse_origin(origin).key, actor="ada", reason="asked to forget")
    assert list(ServedRecall.objects.values_list("origin_key", flat=True)) == ["owner"]


def test_a_shredded_origins_writes_waiting_for_the_batch_open_no_candidate(tl, workspace, settings):
    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60
    try:
        peer = Tideline(workspace, actor="agent:peer")
        origin = "channel:slack/c1/s1"
        peer.recall("When is the standup?", origin=origin)
        peer.add("The standup is at nine.", segment="knowledge", origin=origin)
        shred_origin(workspace, R.parse_origin(origin).key, actor="ada", reason="asked to forget")
        recall_log.flush()
        assert not GoldCandidate.objects.exists() and not ServedRecall.objects.exists()
    finally:
        recall_log.pending.take()


def test_the_log_keeps_its_days_and_no_more(tl, workspace, settings):
    tl.recall("When is the standup?")
    row = ServedRecall.objects.get()
    assert recall_log.prune(now=row.at) == 0
    settings.TIDELINE_RECALL_LOG_DAYS = 14
    assert recall_log.prune(now=row.at + recall_log.timedelta(days=15)) == 1


def test_a_query_no_database_would_store_is_logged_without_what_it_refuses_and_breaks_nothing(tl, workspace):
    tea = tl.add("I prefer green tea in the morning.", segment="preference").id
    tl.recall("green\x00 tea \ud800 morning")  # PostgreSQL refuses NUL and unpaired surrogates in text
    assert ServedRecall.objects.get().query == "green tea morning"
    assert tl.recall("green tea")[0].id == tea  # the test's transaction is still usable


def test_recalls_the_database_refuses_are_kept_in_order_and_written_later(tl, workspace, settings, monkeypatch):
    """A locked or restarting database loses no logged recall: the batch stays pending, ahead of the
    recalls that follow, and is written on the next flush."""
    from django.db import OperationalError

    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60  # only an explicit flush writes
    real_write = recall_log._write

    def locked(rows):
        raise OperationalError("database table is locked")

    try:
        tl.recall("Where does my sister live?")
        monkeypatch.setattr(recall_log, "_write", locked)
        with pytest.raises(OperationalError):
            recall_log.flush()
        assert not ServedRecall.objects.exists() and len(recall_log.pending.of(workspace.pk)) == 1
        tl.recall("Which car do I drive?")  # another recall meanwhile: kept after the refused one
        monkeypatch.setattr(recall_log, "_write", real_write)
        assert recall_log.flush() == 2
        assert list(ServedRecall.objects.order_by("id").values_list("query", flat=True)) == [
            "Where does my sister live?", "Which car do I drive?"]
    finally:
        recall_log.pending.take()


def test_a_database_away_for_long_costs_the_log_its_oldest_recalls_not_the_process_its_memory(
        tl, workspace, settings, monkeypatch):  # fmt: skip
    from django.db import OperationalError

    settings.TIDELINE_REINFORCE_FLUSH_SECONDS = 60
    monkeypatch.setattr(recall_log, "HELD_AT_MOST", 2)

    def away(rows):
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr(recall_log, "_write", away)
    try:
        for question in ("first question?", "second question?", "third question?"):
            tl.recall(question)
            with pytest.raises(OperationalError):
                recall_log.flush()
        assert [row.query for row in recall_log.pending.of(workspace.pk)] == ["second question?", "third question?"]
    finally:
        recall_log.pending.take()
