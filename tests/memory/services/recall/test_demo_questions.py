"""What an agent is handed for the demo's questions, through the facade (`Tideline.recall`/`context`).

A question with a clear answer gets that answer first and only facts nearly as relevant; a fact the
link walk reached is judged by its own words and never rides on its neighbour's; a question about
something the memory never heard of gets nothing; two facts that say nearly the same thing get
nearly the same relevance; the list is ordered by the relevance it shows."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from memory.services.recall import verbs as recall_service
from memory.services.recall.index import registry
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    registry.clear()
    load_demo()
    return Tideline.for_workspace("demo", actor="test")


def _contents(hits):
    return [h.content for h in hits]


def test_the_birthday_comes_first_and_nothing_only_walked_to_comes_back(demo):
    hits = demo.recall("When is Tomas Reis's birthday?", reinforce=False)
    assert hits[0].content == "Tomas Reis's birthday is in June." and hits[0].relevance == 1.0
    assert all("Tomas Reis" in content for content in _contents(hits))
    assert not any("Kafka" in c or "staging database" in c for c in _contents(hits))
    assert "Ada Okafor's birthday is in May." not in _contents(hits)  # shares one word of three
    assert len(hits) < 8  # k is a maximum, not a quota


def test_a_fact_reached_along_links_keeps_its_own_relevance(demo):
    # Floor and cut 0: every candidate, the walk's included, with how it was judged.
    found = recall_service.explain_selection(workspace=demo.workspace, query="When is Tomas Reis's birthday?",
                                             origin="owner", k=50, floor=0.0, cut=0.0)  # fmt: skip
    walked = [h for h in found.hits if h.components.get("via_graph")]
    assert walked, "the query's marker word ('when') makes recall walk the links"
    kafka = next(h for h in walked if "Kafka" in h.content)
    assert kafka.relevance == 0.0 and "judged by its own words" in kafka.why
    for hit in found.hits:
        assert hit.relevance == pytest.approx(hit.components["evidence"] * hit.components["relevance_trust"], abs=1e-6)


def test_a_dog_the_memory_never_heard_of_gets_nothing(demo):
    assert demo.recall("What is my dog's name?", reinforce=False) == []
    assert demo.context("What is my dog's name?") is None
    # Naming the owner, or asking the other way round, does not make the owner's name an answer about a dog.
    for asked in ("What is Maya's dog's name?", "What is the name of Maya's dog?", "What is the name of my dog?",
                  "What is my favourite colour?"):  # "My favourite editor is Neovim." is not about a colour
        assert demo.recall(asked, reinforce=False) == [], asked
    # The question about the name itself still finds it.
    assert "My name is Maya Okafor." in _contents(demo.recall("What is my name?", reinforce=False))


def test_facts_that_say_nearly_the_same_thing_get_near_relevances(demo):
    hits = {h.content: h.relevance for h in demo.recall("What am I allergic to?", reinforce=False)}
    correction = hits["Correction: I am allergic to peanuts, not tree nuts."]
    allergy = hits["I have a mild peanut allergy."]
    assert correction == 1.0 and allergy >= 0.75


@pytest.mark.parametrize("query", ["When is Tomas Reis's birthday?", "What am I allergic to?", "where do I live",
                                   "who is on the routing team"])  # fmt: skip
def test_the_list_is_ordered_by_the_relevance_it_shows(demo, query):
    relevances = [h.relevance for h in demo.recall(query, reinforce=False)]
    assert relevances and relevances == sorted(relevances, reverse=True)


def test_the_context_block_packs_what_recall_returns_and_says_what_it_left_out(demo):
    hits = demo.recall("When is Tomas Reis's birthday?", reinforce=False)
    block = demo.context("When is Tomas Reis's birthday?")
    lines = block.splitlines()
    assert [line.split("] ", 1)[1] for line in lines[:-1]] == _contents(hits)
    assert lines[-1].startswith("(") and "left out" in lines[-1] and "answering much less well" in lines[-1]
