"""The Memory Graph page's data: compact columns, kept per revision in this process only, and dropped
when an origin it drew from is crypto-shredded."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from memory import views
from memory.sealing import keyring
from memory.tideline import Tideline
from tests.personas import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(workspace):
    user = make_user("olga", "owner", workspace=workspace)
    tl = Tideline(workspace)
    first = tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("I cook lentil soup on Sundays.", segment="preference", links=[("relates_to", first.id)])
    tl.add("The weather API reported rain in Porto.", segment="knowledge", source_type="tool_output")
    peer = tl.add("This peer prefers short replies.", segment="preference", origin="channel:wa/c1/s1")
    tl.add("This peer writes in the evening.", segment="preference", origin="channel:wa/c1/s1",
           links=[("relates_to", peer.id)])
    return user


def _graph(client, workspace):
    body = client.get(reverse("memory:memory-graph", args=[workspace.name])).content.decode()
    found = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', body, re.DOTALL)
    return json.loads(found.group(1)) if found else None, body


def test_the_graph_is_sent_as_columns_with_index_triples_for_edges(client, owner, workspace):
    client.force_login(owner)
    data, body = _graph(client, workspace)
    nodes = data["nodes"]
    count = len(nodes["id"])
    assert count == 4 and all(len(column) == count for column in nodes.values())
    labels = dict(zip(nodes["id"], nodes["label"], strict=True))
    assert "I keep a strict vegetarian diet." in labels.values()
    assert {data["segments"][i] for i in nodes["segment"]} == {"preference"}
    assert all(0 <= i < len(data["clusters"]) for i in nodes["cluster"])
    assert all(c["color"].startswith("#") for c in data["clusters"])
    edges = data["edges"]
    assert len(edges) % 3 == 0 and len(edges) >= 3
    source, target, kind = edges[:3]
    assert data["kinds"][kind] == "relates_to" and data["kind_strength"][kind] in data["strength_colors"]
    assert {labels[nodes["id"][source]], labels[nodes["id"][target]]} == {"I keep a strict vegetarian diet.",
                                                                          "I cook lentil soup on Sundays."}  # fmt: skip
    assert "5 active facts" in body and "2 connections" in body
    # The fact without links is counted, not drawn as a community of one.
    assert "The weather API reported rain in Porto." not in labels.values() and "1 without links are not drawn" in body
    assert "Communities updated" in body
    assert '<option>relates_to</option>' in body and '<option>preference</option>' in body


def test_the_page_is_kept_per_revision_and_rebuilt_after_a_write(client, owner, workspace, django_assert_max_num_queries):
    client.force_login(owner)
    _graph(client, workspace)
    with django_assert_max_num_queries(11):  # session, user, workspace, role, switcher, count, links?, partition: no export
        data, _ = _graph(client, workspace)
    assert len(data["nodes"]["id"]) == 4
    diet = next(i for i, label in zip(data["nodes"]["id"], data["nodes"]["label"], strict=True) if "vegetarian" in label)
    Tideline(workspace).add("I bike to work when it is dry.", segment="preference", links=[("relates_to", diet)])
    data, _ = _graph(client, workspace)
    assert "I bike to work when it is dry." in data["nodes"]["label"]


def test_a_shredded_origin_leaves_the_kept_page_at_once(client, owner, workspace):
    client.force_login(owner)
    data, _ = _graph(client, workspace)
    assert "This peer prefers short replies." in data["nodes"]["label"]
    origin_key = next(k for k in views.selectors.distinct_origin_keys(workspace) if k != "owner")
    keyring.destroy(workspace.pk, origin_key)  # no write, no new revision: only the key is gone
    data, _ = _graph(client, workspace)
    assert "This peer prefers short replies." not in data["nodes"]["label"] and len(data["nodes"]["id"]) == 2


def test_an_empty_workspace_draws_nothing(client, other_workspace):
    user = make_user("gus", "owner", workspace=other_workspace)
    client.force_login(user)
    data, body = _graph(client, other_workspace)
    assert data is None and "No active facts to draw yet" in body


def test_a_workspace_without_links_says_so_instead_of_drawing(client, owner, workspace):
    from memory.models import Link

    Link.objects.filter(workspace=workspace).delete()
    client.force_login(owner)
    data, body = _graph(client, workspace)
    assert data is None and "No links yet" in body and "tideline dream --workspace" in body


def test_a_large_workspace_draws_with_its_kept_partition_while_the_worker_recomputes(client, owner, workspace, monkeypatch):
    from memory.services.maintenance import graph

    client.force_login(owner)
    data, _ = _graph(client, workspace)  # small: computed in the request, and kept
    kept = graph.kept(workspace)
    assert kept.revision == workspace.revision and set(kept.communities) >= set(data["nodes"]["id"])
    monkeypatch.setattr(graph, "IN_REQUEST_LIMIT", 0)  # now "large": never computed in the request
    queued = []
    monkeypatch.setattr(graph, "recompute_later", lambda ws: queued.append(ws.revision) or True)
    diet = next(i for i, label in zip(data["nodes"]["id"], data["nodes"]["label"], strict=True) if "vegetarian" in label)
    Tideline(workspace).add("I bike to work when it is dry.", segment="preference", links=[("relates_to", diet)])
    workspace.refresh_from_db()
    data, body = _graph(client, workspace)
    assert "I bike to work when it is dry." in data["nodes"]["label"] and "recomputing" in body
    assert queued == [workspace.revision] and graph.kept(workspace).revision == kept.revision
    graph.recompute(workspace.pk)  # what the worker runs
    data, body = _graph(client, workspace)
    assert "recomputing" not in body and graph.kept(workspace).revision == workspace.revision


def test_an_unlinked_workspace_says_so_at_once_whatever_its_size(client, owner, workspace, monkeypatch, django_assert_max_num_queries):
    from memory.models import GraphPartition, Link
    from memory.services.maintenance import graph

    Link.objects.filter(workspace=workspace).delete()
    monkeypatch.setattr(graph, "IN_REQUEST_LIMIT", 0)  # "large": it would otherwise wait for the worker
    client.force_login(owner)
    with django_assert_max_num_queries(10):  # no export: the facts are not even read
        data, body = _graph(client, workspace)
    assert data is None and "No links yet" in body and "5 active facts · no links" in body
    assert not GraphPartition.objects.filter(workspace=workspace).exists()


def test_each_community_has_a_number_and_a_colour_its_number_reads_on(client, owner, workspace):
    from memory.selectors import PALETTE, _contrast, ink_on

    client.force_login(owner)
    data, body = _graph(client, workspace)
    clusters = data["clusters"]
    assert [c["number"] for c in clusters] == list(range(1, len(clusters) + 1))
    assert len({c["color"] for c in clusters}) == len(clusters)
    for c in clusters:
        assert c["ink"] == ink_on(c["color"]) and _contrast(c["color"], c["ink"]) >= 4.5
        assert f'<text x="10" y="10" fill="{c["ink"]}">{c["number"]}</text>' in body  # drawn in its swatch
        assert f'<option value="{c["id"]}">{c["number"]} · ' in body
    # Twenty colours, all distinct, each at least 3:1 against the white canvas, its number 4.5:1 on it.
    assert len(set(PALETTE)) == len(PALETTE) == 20 and all(_contrast(color, "#ffffff") >= 3 for color in PALETTE)
    assert all(_contrast(color, ink_on(color)) >= 4.5 for color in PALETTE)
