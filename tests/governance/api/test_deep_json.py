"""JSON nested far deeper than anything Tideline takes (50,000 brackets, well under the size limit)
is refused with a clear 4xx, never a 500 (RecursionError): the API's body, the console's JSON fields."""

from __future__ import annotations

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from governance.models import ReviewItem
from governance.services import tokens
from governance.services.contradictions import find_contradictions
from memory.engine.facts import jsonbody
from memory.models import Fact
from memory.tideline import Tideline

DEEP = "[" * 50_000 + "]" * 50_000


def test_depth_counts_nesting_without_recursing():
    assert [jsonbody.depth(v) for v in (1, [], {}, [[]], {"a": [1, {"b": []}]})] == [0, 1, 1, 2, 4]
    assert jsonbody.depth(jsonbody.loads("[" * 64 + "]" * 64)) == 64
    for text, says in ((DEEP, "nested too deeply"), ("[" * 65 + "]" * 65, "nests 65 levels")):
        with pytest.raises(jsonbody.JsonTooDeep, match=says):
            jsonbody.loads(text)


@given(st.recursive(st.integers() | st.text(max_size=3), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=20))  # fmt: skip
def test_depth_agrees_with_a_recursive_count(value):
    def recursive(v):
        children = list(v.values()) if isinstance(v, dict) else v if isinstance(v, list) else None
        return 0 if children is None else 1 + max(map(recursive, children), default=0)

    assert jsonbody.depth(value) == recursive(value)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["memories", "recall", "manage", "feedback"])
def test_a_deeply_nested_api_body_is_a_422(workspace, path):
    secret = tokens.create_token(workspace, name="t", origin="owner", verbs="read,write,manage", actor="t")[1]
    for body in ('{"content": ' + DEEP + "}", '{"query": "x", "ids": ' + "[" * 200 + "]" * 200 + "}"):
        response = Client().post(f"/api/v1/{path}", data=body, content_type="application/json",
                                 HTTP_AUTHORIZATION=f"Bearer {secret}")  # fmt: skip
        assert response.status_code == 422, response.content[:300]
        error = response.json()["error"]
        assert error["kind"] == "validation" and "nest" in error["message"]
    assert not Fact.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_a_deeply_nested_seen_field_on_the_review_page_is_a_message_not_a_500(client, workspace, owner):
    tl = Tideline(workspace)
    tl.add("I live in Hyderabad", segment="identity")
    tl.add("I live in Bangalore now", segment="identity")
    find_contradictions(workspace)
    item = ReviewItem.objects.get(workspace=workspace, kind="contradiction")
    client.force_login(owner)
    decide = client.post(f"/w/{workspace.name}/review/{item.pk}/decide/", {"verdict": "supersede", "seen": DEEP},
                         follow=True)  # fmt: skip
    assert decide.status_code == 200 and "the form was incomplete" in decide.content.decode()
    bulk = client.post(f"/w/{workspace.name}/review/bulk/", {"verdict": "keep_both", "seen": DEEP, "confirm": "yes",
                                                                 "ids": [str(item.pk)]})
    assert bulk.status_code < 500
    item.refresh_from_db()
    assert item.status == "open"


@pytest.mark.django_db
def test_an_import_line_whose_metadata_nests_hundreds_deep_is_refused_with_its_line(workspace):
    from memory.services.writes.interchange import import_facts

    record = '{"memoryId": "mem_a", "content": "The office closes at six", "segment": "knowledge", "metadata": {"x": '
    report = import_facts(workspace=workspace, lines=[record + "[" * 900 + "]" * 900 + "}}"], actor="t")
    assert report.imported == 0 and "nests 902 levels" in report.refused[0].reason
