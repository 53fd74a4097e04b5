"""The console's recall-settings search runs as a task with its progress kept (governance.services.settings_searches)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from governance.models import GoldCase, GoldSet, SettingsSearch
from governance.services import proposals, settings_searches
from memory.services import tuning as tuning_service
from memory.services.errors import RequestError
from tests.governance.services.test_proposals import TYPOS, WORDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def typos(tl):
    ids = {w: tl.add(f"Maya keeps a {w} in the study.", segment="knowledge").id for w in WORDS}
    tuning_service.set_tuning(tl.workspace, {"ngram_floor": 0.95}, actor="olga")  # the typos miss at this floor
    gold = GoldSet.objects.create(workspace=tl.workspace, name="typos", kind="live", source="upload", created_by="olga",
                                  approved_at=timezone.now(), approved_by_name="abe")  # fmt: skip
    for position, (word, typo) in enumerate(zip(WORDS, TYPOS, strict=True)):
        GoldCase.objects.create(gold_set=gold, case_id=f"c{position}", query=f"where is the {typo}",
                                relevant_keys=[ids[word]], position=position)  # fmt: skip
    return tl.workspace


def test_a_search_runs_as_a_task_keeps_its_progress_and_ends_with_the_proposal(typos, personas):
    search = settings_searches.request(typos, user=personas.owner, actor="olga")  # runs inline: TIDELINE_Q_SYNC
    search.refresh_from_db()
    assert search.status == "done" and search.requested_by_name == "olga"
    assert search.total > 0 and search.done == search.total and search.percent == 100
    assert search.proposal is not None and search.proposal.tuning["ngram_floor"] < 0.95
    # the person who asked for the search is its proposal's author: a second person approves it
    assert search.proposal.author_name == "olga"
    assert proposals.is_author(search.proposal, personas.owner, "olga")
    assert not proposals.is_author(search.proposal, personas.approver, "abe")
    assert search.reason.startswith("expected MRR gain on unseen questions")
    assert settings_searches.latest(typos) == search


def test_a_search_that_finds_nothing_keeps_the_reason(typos, personas):
    tuning_service.set_tuning(typos, {"ngram_floor": 0.3}, actor="olga")  # the typos are found already
    search = settings_searches.request(typos, user=personas.admin, actor="ada")
    search.refresh_from_db()
    assert search.status == "done" and search.proposal is None and "already finds its fact first" in search.reason


def test_only_owners_and_admins_search_and_only_on_an_approved_gold_set(typos, personas, tl):
    with pytest.raises(RequestError, match="only") as refused:
        settings_searches.request(typos, user=personas.approver, actor="abe")
    assert refused.value.kind == "forbidden"
    GoldSet.objects.update(approved_at=None)
    with pytest.raises(RequestError, match="approve") as gate:
        settings_searches.request(typos, user=personas.owner, actor="olga")
    assert gate.value.kind == "unapproved" and not SettingsSearch.objects.exists()


def test_one_search_at_a_time_and_a_killed_one_is_failed_when_a_worker_starts(typos, personas):
    running = SettingsSearch.objects.create(workspace=typos, requested_by_name="olga", status="running", done=3, total=9)
    assert settings_searches.request(typos, user=personas.owner, actor="olga") == running
    assert settings_searches.fail_interrupted() == [running.pk]  # no live process holds its lock
    running.refresh_from_db()
    assert running.status == "failed" and "the worker stopped" in running.reason
    again = settings_searches.request(typos, user=personas.owner, actor="olga")
    assert again != running and SettingsSearch.objects.get(pk=again.pk).status == "done"
