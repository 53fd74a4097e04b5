"""Many new facts at once (memory.services.writes.bulk_copy): COPY on PostgreSQL, bulk_create elsewhere.
Either way the facts come back with their keys, sealed content reads back, and a broken constraint
is Django's IntegrityError, so an import can find the offending line."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.engine.facts import records as R
from memory.models import Fact, FactTerm, TermStat
from memory.services.writes import bulk_copy
from memory.services.writes.near_duplicates import find_near_duplicates, index_facts

pytestmark = pytest.mark.django_db


def _fact(workspace, memory_id, text):
    defaults = R.SEGMENT_DEFAULTS["knowledge"]
    return Fact(workspace=workspace, memory_id=memory_id, origin=R.Origin.owner(), content=text, segment="knowledge",
                tier=defaults.tier, importance=defaults.importance, decay_rate=defaults.decay_rate,
                created_at=timezone.now(), last_accessed_at=timezone.now(), source_type="owner_message")  # fmt: skip


def _facts(workspace, texts, prefix="mem_bulk"):
    return [_fact(workspace, f"{prefix}_{i}", text) for i, text in enumerate(texts)]


def test_created_facts_have_keys_and_read_back_as_written(workspace):
    texts = ["Dana drinks oat milk in her coffee.", "The cat is called Miso.", "Flights leave from Lisbon."]
    created = bulk_copy.create_all(Fact, _facts(workspace, texts))
    assert all(fact.pk and not fact._state.adding for fact in created)
    stored = {fact.pk: fact for fact in Fact.objects.filter(workspace=workspace)}
    assert sorted(stored) == sorted(fact.pk for fact in created)
    assert [stored[fact.pk].content for fact in created] == texts
    assert [stored[fact.pk].memory_id for fact in created] == ["mem_bulk_0", "mem_bulk_1", "mem_bulk_2"]
    assert all(stored[fact.pk].content_hash == fact.content_hash != "" for fact in created)
    # The sequence moved past them: an ordinary save after a bulk one gets a fresh key.
    later = _fact(workspace, "mem_after", "Later.")
    later.save()
    assert later.pk > max(fact.pk for fact in created)


def test_a_broken_constraint_is_an_integrity_error_and_nothing_of_the_batch_stays(workspace):
    bulk_copy.create_all(Fact, _facts(workspace, ["First."]))
    with pytest.raises(IntegrityError), transaction.atomic():
        bulk_copy.create_all(Fact, _facts(workspace, ["Second.", "Again first."], prefix="mem_bulk"))
    assert list(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True)) == ["mem_bulk_0"]


def test_postings_of_new_facts_match_those_the_write_path_adds(workspace):
    texts = ["Dana drinks oat milk in her coffee every morning.", "Dana drinks oat milk in her tea."]
    streamed = bulk_copy.create_all(Fact, _facts(workspace, texts, prefix="mem_new"))
    index_facts(streamed, new=True)
    inserted = bulk_copy.create_all(Fact, _facts(workspace, texts, prefix="mem_old"))
    index_facts(inserted)
    by_fact = {}
    for fact_id, term, count in FactTerm.objects.filter(workspace=workspace).values_list("fact_id", "term", "token_count"):
        by_fact.setdefault(fact_id, set()).add((term, count))
    assert by_fact[streamed[0].pk] == by_fact[inserted[0].pk] and by_fact[streamed[1].pk] == by_fact[inserted[1].pk]
    # Every term counted twice: once per copy of each fact that holds it.
    assert set(TermStat.objects.filter(workspace=workspace).values_list("df", flat=True)) <= {2, 4}
    found = find_near_duplicates(workspace_id=workspace.pk, origin_key="owner", trusted=True, content=texts[0])
    assert {hit.fact_id for hit in found} >= {streamed[0].pk, inserted[0].pk}


def test_document_frequencies_of_a_large_batch_equal_the_postings(workspace):
    # Enough distinct words that the batch's frequencies go in as one statement (over 500 terms).
    texts = [f"Note {i} mentions word{i}a, word{i}b and the shared topic." for i in range(300)]
    created = bulk_copy.create_all(Fact, _facts(workspace, texts))
    index_facts(created[:250], new=True)
    index_facts(created[250:])
    index_facts(created[:10])  # again: nothing added, nothing counted twice
    postings = {}
    for term in FactTerm.objects.filter(workspace=workspace).values_list("term", flat=True):
        postings[term] = postings.get(term, 0) + 1
    assert len(postings) > 500
    assert dict(TermStat.objects.filter(workspace=workspace).values_list("term", "df")) == postings


def test_many_facts_indexed_again_at_once_count_each_posting_once(workspace):
    """Facts an undone dream brings back are indexed thousands at a time (one JSON document per chunk
    on PostgreSQL): the postings must equal the write path's, and a repeat must add nothing."""
    texts = [f"Entry {i} records item{i}x, item{i}y and the common theme." for i in range(300)]
    created = bulk_copy.create_all(Fact, _facts(workspace, texts))
    index_facts(created[:3])  # a few already there: skipped, never counted twice
    index_facts(created)
    index_facts(created[100:])
    postings = {}
    for term in FactTerm.objects.filter(workspace=workspace).values_list("term", flat=True):
        postings[term] = postings.get(term, 0) + 1
    assert len(postings) > 500
    assert dict(TermStat.objects.filter(workspace=workspace).values_list("term", "df")) == postings
    reference = bulk_copy.create_all(Fact, _facts(workspace, texts[:5], prefix="mem_ref"))
    index_facts(reference, new=True)
    terms = {}
    for fact_id, term, count in FactTerm.objects.filter(workspace=workspace).values_list("fact_id", "term", "token_count"):
        terms.setdefault(fact_id, set()).add((term, count))
    assert all(terms[created[k].pk] == terms[reference[k].pk] for k in range(5))
