"""Gold sets: upload (strict), scaffold, edit, approve by a second person (ENGINE-SPEC §8.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.models import GoldSet
from governance.services import gold, proposal_eval
from memory.models import MemoryEvent
from memory.services.errors import RequestError
from memory.services.recall.evaluation import PLACEHOLDER

pytestmark = pytest.mark.django_db
GOLD_DIR = Path(__file__).resolve().parents[2] / "data" / "tideline-gold"


def test_an_upload_in_the_original_format_is_kept_unapproved_and_the_gate_refuses_it(workspace, personas):
    raw = (GOLD_DIR / "hard.json").read_bytes()
    made = gold.upload(workspace, raw, filename="hard.json", user=personas.owner, actor="olga")
    assert made.kind == "standalone" and made.cases.count() == len(json.loads(raw)["cases"]) and not made.approved
    assert proposal_eval.usable_sets(workspace) == []
    assert "approve" in proposal_eval.gate_refusal(workspace)
    assert MemoryEvent.objects.filter(workspace=workspace, kind="gold_set", data__action="uploaded").exists()


@pytest.mark.parametrize("raw, says", [
    (b"this is not json", "is not JSON"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (json.dumps({"facts": [], "cases": [], "colour": "red"}).encode(), "unknown key(s) ['colour']"),
    (json.dumps({"facts": [{"key": "a", "content": "x", "segment": "knowledge"}],
                 "cases": [{"id": "1", "query": "q", "relevent_keys": ["a"]}]}).encode(), "unknown key(s) ['relevent_keys']"),
    (json.dumps([1, 2]).encode(), "JSON object"),
    (json.dumps({"facts": [], "cases": [{"id": "1", "query": "q", "relevant_keys": ["nope"]}]}).encode(), "unknown fact key"),
])
def test_a_bad_upload_says_what_is_wrong_and_adds_nothing(workspace, personas, raw, says):
    events = MemoryEvent.objects.count()
    with pytest.raises(RequestError, match=None) as caught:
        gold.upload(workspace, raw, filename="bad.json", user=personas.owner, actor="olga")
    assert says in caught.value.message and caught.value.kind == "invalid_input"
    assert GoldSet.objects.count() == 0 and MemoryEvent.objects.count() == events


def test_a_scaffold_needs_rewriting_then_a_second_person_approves_it_and_an_edit_takes_that_back(tl, personas):
    ws = tl.workspace
    for i in range(5):
        tl.add(f"Maya visited museum number {i} in Porto.", segment="context")
    scaffold = gold.scaffold(ws, size=3, user=personas.admin, actor="ada")
    cases = list(scaffold.cases.all())
    assert len(cases) == 3 and all(c.query == PLACEHOLDER and c.hint for c in cases)
    assert "placeholder" in proposal_eval.gate_refusal(ws)
    with pytest.raises(RequestError, match="placeholder query"):
        gold.approve(scaffold, user=personas.approver, actor="abe")
    for case in cases:
        gold.edit_case(scaffold, case.pk, query=f"which museum did Maya see ({case.case_id})", user=personas.owner,
                       actor="olga")
    with pytest.raises(RequestError, match="only approvers or admins"):
        gold.approve(scaffold, user=personas.owner, actor="olga")
    with pytest.raises(RequestError, match="cannot approve it") as caught:
        gold.approve(scaffold, user=personas.admin, actor="ada")  # its maker
    assert caught.value.kind == "forbidden"
    gold.approve(scaffold, user=personas.approver, actor="abe")
    scaffold.refresh_from_db()
    assert scaffold.approved and proposal_eval.usable_sets(ws) == [scaffold]
    with pytest.raises(RequestError, match="approved already"):
        gold.approve(scaffold, user=personas.approver, actor="abe")
    gold.edit_case(scaffold, cases[0].pk, query="a better question", user=personas.owner, actor="olga")
    scaffold.refresh_from_db()
    assert not scaffold.approved and proposal_eval.usable_sets(ws) == []


def test_the_playground_adds_a_case_once_and_approvers_cannot_edit(tl, personas):
    ws = tl.workspace
    fact = tl.add("Maya's locker code is kept in the blue notebook.", segment="knowledge")
    case = gold.add_from_playground(ws, query="where is the locker code", memory_id=fact.id, user=personas.owner,
                                    actor="olga")
    assert case.gold_set.name == "playground" and case.relevant_keys == [fact.id]
    with pytest.raises(RequestError, match="has this case already"):
        gold.add_from_playground(ws, query="where is the  locker code", memory_id=fact.id, user=personas.owner,
                                 actor="olga")
    with pytest.raises(RequestError, match="only owners or admins") as caught:
        gold.add_from_playground(ws, query="locker", memory_id=fact.id, user=personas.approver, actor="abe")
    assert caught.value.kind == "forbidden"
    with pytest.raises(RequestError, match="no fact"):
        gold.add_from_playground(ws, query="anything", memory_id="m-nope", user=personas.owner, actor="olga")


def test_whoever_rewrote_a_case_cannot_approve_the_set_alone(workspace, personas):
    raw = (GOLD_DIR / "hard.json").read_bytes()
    made = gold.upload(workspace, raw, filename="hard.json", user=personas.owner, actor="olga")
    cases = list(made.cases.all())
    for case in cases:  # an admin who did not make the set rewrites every answer key's question
        gold.edit_case(made, case.pk, query=f"rewritten {case.case_id}", user=personas.admin, actor="ada")
    assert "cannot approve" in gold.approval_blocker(made, personas.admin, "ada")
    with pytest.raises(RequestError, match=f"edited {len(cases)} of its cases") as caught:
        gold.approve(made, user=personas.admin, actor="ada")
    assert caught.value.kind == "forbidden" and not GoldSet.objects.get(pk=made.pk).approved
    gold.approve(made, user=personas.approver, actor="abe")  # edited none of them
    assert GoldSet.objects.get(pk=made.pk).approved


def test_gold_set_events_name_people_as_every_other_event_does(workspace, personas):
    from memory.selectors import filtered_events
    from memory.services.mutation import mutate

    with mutate(workspace, actor="olga") as m:  # an event as older releases wrote gold-set actors
        m.record("gold_set", gold_set=0, name="old", action="uploaded")
    made = gold.upload(workspace, (GOLD_DIR / "hard.json").read_bytes(), filename="hard.json",
                       user=personas.owner, actor="olga")  # fmt: skip
    gold.approve(made, user=personas.approver, actor="abe")
    actors = set(MemoryEvent.objects.filter(workspace=workspace, kind="gold_set").values_list("actor", flat=True))
    assert actors == {"olga", "user:olga", "user:abe"}
    found = filtered_events(workspace, {"actor": "user:olga"})
    assert sorted(found.values_list("actor", flat=True)) == ["olga", "user:olga"]
    assert list(filtered_events(workspace, {"actor": "user:abe"}).values_list("actor", flat=True)) == ["user:abe"]
