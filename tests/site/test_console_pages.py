"""The console's facts browser, fact inspector and recall playground (server-rendered, HTMX-enhanced)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from memory.models import Membership
from memory.services.recall.index import registry
from memory.tideline import Tideline
from tests.personas import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(workspace):
    registry.clear()
    user = make_user("olga", "owner", workspace=workspace)
    tl = Tideline(workspace)
    tl.add("I keep a strict vegetarian diet.", segment="preference")
    tl.add("The weather API reported rain in Porto.", segment="knowledge", source_type="tool_output")
    tl.add("This peer prefers short replies.", segment="preference", origin="channel:wa/c1/s1")
    return user


def _url(name, workspace, *args):
    return reverse(f"memory:{name}", args=[workspace.name, *args])


def test_the_facts_browser_lists_and_filters(client, owner, workspace):
    client.force_login(owner)
    page = client.get(_url("fact-list", workspace)).content.decode()
    assert "vegetarian" in page and "weather API" in page and "short replies" in page
    untrusted = client.get(_url("fact-list", workspace), {"trust": "untrusted"}).content.decode()
    assert "weather API" in untrusted and "vegetarian" not in untrusted
    peer = client.get(_url("fact-list", workspace), {"origin": "channel:wa/c1/s1"}).content.decode()
    assert "short replies" in peer and "vegetarian" not in peer


def test_an_htmx_filter_returns_only_the_table_fragment(client, owner, workspace):
    client.force_login(owner)
    response = client.get(_url("fact-list", workspace), {"segment": "knowledge"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert "<html" not in body and 'id="fact-table"' in body and "weather API" in body and "vegetarian" not in body
    assert "HX-Request" in response["Vary"]


def test_searching_ranks_through_recall_with_scores(client, owner, workspace):
    client.force_login(owner)
    body = client.get(_url("fact-list", workspace), {"q": "vegetarian diet"}).content.decode()
    assert "ranked by recall score" in body and "vegetarian" in body and "weather API" not in body


def test_a_bad_filter_is_explained_not_a_500(client, owner, workspace):
    client.force_login(owner)
    response = client.get(_url("fact-list", workspace), {"origin": "channel:broken"})
    assert response.status_code == 400 and "origin" in response.content.decode()


def test_an_unknown_filter_value_lists_nothing_and_names_the_accepted_values(client, owner, workspace, personas):
    client.force_login(owner)
    facts = client.get(_url("fact-list", workspace), {"segment": "preferences"})
    body = facts.content.decode()
    assert facts.status_code == 400 and "“preferences” is not a value this page knows" in body
    assert "it accepts identity, correction, relationship, preference," in body and "vegetarian" not in body
    events = client.get(_url("event-list", workspace), {"kind": "link"})
    body = events.content.decode()
    assert events.status_code == 400 and "“link” is not a value this page knows; it accepts created," in body
    assert list(events.context["page"].object_list) == []
    proposals = client.get(reverse("governance:proposals", args=[workspace.name]), {"status": "open"})
    body = proposals.content.decode()
    assert proposals.status_code == 400 and "it accepts pending, approved, applied, rejected, reverted" in body
    assert client.get(_url("fact-list", workspace), {"segment": "preference"}).status_code == 200


def test_the_inspector_shows_fields_links_events_decay_and_explain(client, owner, workspace):
    client.force_login(owner)
    tl = Tideline(workspace)
    old = tl.add("I live in Lisbon.", segment="identity", subject_key="home_city")
    new = tl.add("I live in Porto.", segment="identity", subject_key="home_city")
    body = client.get(_url("fact-detail", workspace, new.id), {"q": "where do I live"}).content.decode()
    assert "I live in Porto." in body and old.id in body and "transition" in body
    assert "created" in body and "<polyline" in body and "Relevance" in body and "rank score" in body
    assert client.get(_url("fact-detail", workspace, "mem_nope")).status_code == 404


def test_the_inspector_says_when_a_fact_falls_under_the_cut(client, owner, workspace):
    client.force_login(owner)
    tl = Tideline(workspace)
    tl.add("Tomas Reis's birthday is in June.", segment="relationship")
    other = tl.add("Ada Okafor's birthday is in May.", segment="relationship")
    body = client.get(_url("fact-detail", workspace, other.id), {"q": "When is Tomas Reis's birthday?"}).content.decode()
    assert 'id="below-cut"' in body and "below 65% of the best match" in body
    assert other.id not in [h.id for h in tl.recall("When is Tomas Reis's birthday?", reinforce=False)]


def test_the_playground_breaks_scores_down_and_packs_context(client, owner, workspace):
    client.force_login(owner)
    body = client.get(_url("recall-playground", workspace), {"q": "vegetarian diet", "origin": "owner", "k": 5,
                                                              "clearance": "PII", "max_chars": 800}).content.decode()  # fmt: skip
    assert "vegetarian" in body and "Context block" in body and "short replies" not in body
    peer = client.get(_url("recall-playground", workspace), {"q": "short replies", "origin": "channel:wa/c1/s1", "k": 5,
                                                              "clearance": "PII", "max_chars": 800}).content.decode()  # fmt: skip
    assert "short replies" in peer


def test_a_playground_link_with_only_a_query_uses_the_defaults(client, owner, workspace):
    client.force_login(owner)
    for params in ({"q": "vegetarian diet"}, {"q": "vegetarian diet", "k": "", "clearance": "", "max_chars": " "}):
        body = client.get(_url("recall-playground", workspace), params).content.decode()
        assert "This field is required" not in body
        assert "vegetarian" in body and "Context block" in body


def test_the_playground_names_its_fields_in_errors_and_a_low_clearance_in_nothing_relevant(client, owner, workspace):
    client.force_login(owner)
    body = client.get(_url("recall-playground", workspace), {"q": "vegetarian diet", "max_chars": "10"}).content.decode()
    assert "Context budget: Ensure this value is greater than or equal to 100." in body and "max_chars:" not in body
    body = client.get(_url("recall-playground", workspace), {"q": "zodiac sign", "clearance": "PUBLIC"}).content.decode()
    assert "Nothing relevant." in body and "a higher clearance than PUBLIC" in body
    body = client.get(_url("recall-playground", workspace), {"q": "zodiac sign", "clearance": "PII"}).content.decode()
    assert "Nothing relevant." in body and "higher clearance" not in body


@pytest.mark.parametrize("name,args", [("fact-list", ()), ("recall-playground", ()), ("fact-detail", ("mem_x",))])
def test_outsiders_get_404_and_anonymous_visitors_the_login_page(client, personas, workspace, name, args):
    assert client.get(_url(name, workspace, *args)).status_code == 302
    client.force_login(personas.outsider)
    assert client.get(_url(name, workspace, *args)).status_code == 404


def test_the_event_log_filters_paginates_and_downloads(client, owner, workspace, personas):
    client.force_login(owner)
    body = client.get(_url("event-list", workspace), {"kind": "created"}).content.decode()
    assert "created" in body and "workspace_created" not in body.split("<tbody>")[1]
    assert "event-download" not in body  # downloads are the admins'
    moved = client.get(_url("event-list", workspace), {"format": "jsonl", "kind": "created"})
    assert moved.status_code == 302 and moved["Location"] == f"/w/{workspace.name}/exports/events/?format=jsonl&kind=created"
    assert client.get(moved["Location"]).status_code == 403
    client.force_login(personas.admin)
    listed = client.get(_url("event-list", workspace), {"kind": "created"}).content.decode()
    assert f'/w/{workspace.name}/exports/events/?kind=created&amp;format=jsonl' in listed  # the filter on screen
    jsonl = b"".join(client.get(_url("event-list", workspace), {"format": "jsonl"}, follow=True).streaming_content).decode()
    kinds = [__import__("json").loads(line)["kind"] for line in jsonl.splitlines()]
    assert "workspace_created" in kinds and kinds.count("created") == 3
    csv_text = b"".join(client.get(_url("event-list", workspace), {"format": "csv", "kind": "created"},
                                   follow=True).streaming_content).decode()  # fmt: skip
    assert csv_text.splitlines()[0].startswith("revision,at,kind") and len(csv_text.splitlines()) == 4
    fact_id = __import__("json").loads(jsonl.splitlines()[-1])["fact_ids"]
    assert fact_id  # the newest event names a fact
    by_fact = client.get(_url("event-list", workspace), {"fact": fact_id[0]}).content.decode()
    assert fact_id[0] in by_fact


def test_the_memory_graph_page_and_its_downloads(client, owner, workspace, personas):
    from memory.models import Fact

    diet = Fact.objects.get(workspace=workspace, segment="preference", origin_key="owner").memory_id
    Tideline(workspace).add("I cook lentil soup on Sundays.", segment="preference", links=[("relates_to", diet)])
    client.force_login(owner)
    page = client.get(_url("memory-graph", workspace)).content.decode()
    assert 'id="graph-data"' in page and "communities" in page and "GraphML" not in page
    assert client.get(_url("memory-graph", workspace), {"format": "graphml"}, follow=True).status_code == 403
    client.force_login(personas.admin)
    assert "GraphML" in client.get(_url("memory-graph", workspace)).content.decode()
    graphml = client.get(_url("memory-graph", workspace), {"format": "graphml"}, follow=True)
    assert graphml["Content-Type"].startswith("application/graphml") and b"<graphml" in graphml.content
    data = client.get(_url("memory-graph", workspace), {"format": "json"}, follow=True).json()
    assert len(data["nodes"]) == 4  # the download holds every active fact, linked or not


def test_curators_vote_archive_restore_and_correct_from_the_inspector(client, owner, workspace):
    from memory.models import Fact

    client.force_login(owner)
    fact = Fact.objects.get(workspace=workspace, origin_key="owner", segment="preference")
    base = f"/w/{workspace.name}/facts/{fact.memory_id}/"
    assert client.post(base + "up/").status_code == 302
    fact.refresh_from_db()
    assert fact.importance == pytest.approx(0.75)
    client.post(base + "archive/")
    assert Fact.objects.get(pk=fact.pk).lifecycle == "archived"
    client.post(base + "restore/")
    assert Fact.objects.get(pk=fact.pk).lifecycle == "active"
    response = client.post(base + "correct/", {"content": "I keep a strict vegan diet."})
    new = Fact.objects.get(workspace=workspace, supersedes=[fact.memory_id])
    assert response["Location"].endswith(f"/facts/{new.memory_id}/") and new.content == "I keep a strict vegan diet."
    assert Fact.objects.get(pk=fact.pk).lifecycle == "archived"
    assert new.outbound_links.filter(kind="corrects", to_fact=fact).exists()
    page = client.get(base, {"at": "2000-01-01T00:00"}).content.decode()
    assert "had not been written yet" in page
    page = client.get(base, {"at": "2999-01-01T00:00"}).content.decode()  # replay names the correction
    assert f"it was superseded by {new.memory_id}" in page and f"by {owner.username}" in page


def test_a_refused_correction_is_explained_and_an_approver_cannot_curate(client, owner, personas, workspace):
    from memory.models import Fact

    client.force_login(owner)
    fact = Fact.objects.get(workspace=workspace, origin_key="owner", segment="preference")
    response = client.post(f"/w/{workspace.name}/facts/{fact.memory_id}/correct/", {"content": "   "}, follow=True)
    assert "content is empty" in response.content.decode()
    client.force_login(personas.approver)
    assert client.post(f"/w/{workspace.name}/facts/{fact.memory_id}/archive/").status_code == 403
    assert client.get(f"/w/{workspace.name}/facts/{fact.memory_id}/archive/").status_code == 405


def test_the_top_bar_switches_between_the_users_workspaces(client, owner, workspace, other_workspace):
    Membership.objects.create(user=owner, workspace=other_workspace, role="admin")
    client.force_login(owner)
    page = client.get(_url("fact-list", workspace)).content.decode()
    assert 'id="workspace-switcher"' in page and f'value="{other_workspace.name}"' in page
    assert f'value="{workspace.name}" selected' in page


@pytest.mark.parametrize("name,args,limit", [("workspace-overview", (), 20), ("fact-list", (), 12),
                                             ("event-list", (), 10)])  # fmt: skip
def test_page_query_counts_stay_flat_as_facts_grow(client, owner, workspace, django_assert_max_num_queries, name, args, limit):
    """Hot pages are pinned to a fixed number of queries: no query per fact or per row."""
    tl = Tideline(workspace)
    for n in range(30):
        tl.add(f"The depot {n} ships parcels to the north region every morning.", segment="knowledge")
    client.force_login(owner)
    client.get(_url(name, workspace, *args))  # warm caches (session, content types)
    with django_assert_max_num_queries(limit):
        assert client.get(_url(name, workspace, *args)).status_code == 200


def test_the_inspector_query_count_is_pinned(client, owner, workspace, django_assert_max_num_queries):
    fact = Tideline(workspace).add("I keep my passport in the blue folder.", segment="knowledge")
    client.force_login(owner)
    client.get(_url("fact-detail", workspace, fact.id))
    with django_assert_max_num_queries(16):
        assert client.get(_url("fact-detail", workspace, fact.id)).status_code == 200


def test_bulk_actions_need_a_confirmation_step(client, owner, workspace):
    from memory.models import Fact

    client.force_login(owner)
    ids = list(Fact.objects.filter(workspace=workspace, origin_key="owner").values_list("memory_id", flat=True))
    url = f"/w/{workspace.name}/facts/bulk/"
    page = client.post(url, {"action": "archive", "ids": ids}).content.decode()
    assert "Archive 2 facts?" in page and all(Fact.objects.get(memory_id=i).lifecycle == "active" for i in ids)
    response = client.post(url, {"action": "archive", "ids": ids, "confirm": "yes"})
    assert response.status_code == 302
    assert all(Fact.objects.get(memory_id=i).lifecycle == "archived" for i in ids)
    client.post(url, {"action": "restore", "ids": ids, "confirm": "yes"})
    assert all(Fact.objects.get(memory_id=i).lifecycle == "active" for i in ids)
    assert client.post(url, {"action": "explode", "ids": ids}).status_code == 302  # refused with a message


def _listed(client, workspace, **params) -> list[str]:
    return [f.content for f in client.get(_url("fact-list", workspace), params).context["page"].object_list]


def test_search_with_origin_any_finds_every_origins_facts(client, owner, workspace):
    client.force_login(owner)
    assert _listed(client, workspace, q="prefers short replies") == ["This peer prefers short replies."]
    assert _listed(client, workspace, q="prefers short replies", origin="owner") == []
    assert _listed(client, workspace, q="short replies", origin="channel:wa/c1/s1") == ["This peer prefers short replies."]


def test_search_finds_archived_facts_when_the_lifecycle_asks_for_them(client, owner, workspace):
    from memory.models import Fact
    from memory.services.lifecycle import curation

    client.force_login(owner)
    diet = Fact.objects.get(segment="preference", origin_key="owner")
    curation.set_lifecycle(workspace=workspace, memory_ids=[diet.memory_id], lifecycle="archived", actor="test")
    assert _listed(client, workspace, q="vegetarian diet", lifecycle="archived") == ["I keep a strict vegetarian diet."]
    assert _listed(client, workspace, q="vegetarian diet", lifecycle="active") == []
    assert _listed(client, workspace, q="vegetarian diet") == ["I keep a strict vegetarian diet."]  # any lifecycle
    # Finding a fact in the console is not a use of it.
    assert Fact.objects.get(segment="preference", origin_key="owner").access_count == 0


def test_a_sort_chosen_while_searching_orders_the_best_matches(client, owner, workspace):
    tl = Tideline(workspace)
    for word in ("first", "second", "third"):
        tl.add(f"My {word} bicycle is a red road bike.", segment="knowledge")
    client.force_login(owner)
    newest = _listed(client, workspace, q="red road bicycle", sort="-created")
    oldest = _listed(client, workspace, q="red road bicycle", sort="created")
    assert len(newest) == 3 and newest == list(reversed(oldest)) and "third" in newest[0]
    body = client.get(_url("fact-list", workspace), {"q": "red road bicycle", "sort": "created"}).content.decode()
    assert "the best matches, sorted oldest first" in body


def test_approvers_see_no_bulk_controls_and_bulk_actions_keep_the_filters(client, owner, personas, workspace):
    from memory.models import Fact

    client.force_login(personas.approver)
    page = client.get(_url("fact-list", workspace)).content.decode()
    assert "vegetarian" in page and 'id="bulk-form"' not in page and 'name="ids"' not in page
    client.force_login(owner)
    page = client.get(_url("fact-list", workspace), {"segment": "preference"}).content.decode()
    assert 'id="bulk-form"' in page and "data-select-all" in page
    fact = Fact.objects.get(segment="preference", origin_key="owner")
    response = client.post(f"/w/{workspace.name}/facts/bulk/", {"action": "archive", "ids": [fact.memory_id],
                           "confirm": "yes", "return_query": "segment=preference&lifecycle=active&evil=1"})  # fmt: skip
    assert response.status_code == 302
    assert response["Location"] == _url("fact-list", workspace) + "?segment=preference&lifecycle=active"


def test_the_dashboards_numbers_link_to_the_facts_they_count(client, owner, workspace):
    client.force_login(owner)
    body = client.get(reverse("memory:workspace-overview", args=[workspace.name])).content.decode()
    facts = _url("fact-list", workspace)
    for query in ("segment=preference", "tier=", "lifecycle=active", "trust=untrusted", "origin=owner",
                  "origin=channel%3Awa%2Fc1%2Fs1", "created_from=", "score_below=0.2"):  # fmt: skip
        assert f'href="{facts}?{query}' in body, query
    # Following a bar gives exactly the facts it counted.
    assert len(_listed(client, workspace, segment="preference")) == 2
    assert _listed(client, workspace, trust="untrusted") == ["The weather API reported rain in Porto."]


def test_score_below_lists_the_facts_the_decay_gc_takes_next_lowest_first(client, owner, workspace):
    from datetime import timedelta

    from django.utils import timezone

    from memory.models import Fact

    old = timezone.now() - timedelta(days=400)
    Fact.objects.filter(source_type="tool_output").update(last_accessed_at=old)  # long unused: decayed
    Fact.objects.exclude(origin_key="owner").update(last_accessed_at=old + timedelta(days=300))
    client.force_login(owner)
    shown = client.get(_url("fact-list", workspace), {"score_below": "0.2"})
    facts = list(shown.context["page"].object_list)
    assert [f.content for f in facts] == ["The weather API reported rain in Porto.", "This peer prefers short replies."]
    assert facts[0].score_now < facts[1].score_now < 0.2 and "Score now" in shown.content.decode()
    assert _listed(client, workspace, score_below="0.2", segment="knowledge") == ["The weather API reported rain in Porto."]
    assert client.get(_url("fact-list", workspace), {"score_below": "7"}).context["form"].errors


def test_the_maintenance_card_shows_every_kind_of_run_and_undone_runs_as_undone(client, owner, workspace):
    from memory.services.maintenance import passes as maintenance

    client.force_login(owner)
    overview = reverse("memory:workspace-overview", args=[workspace.name])
    assert "No maintenance run yet" in client.get(overview).content.decode()
    dream = maintenance.run_dream(workspace)
    maintenance.run_gc(workspace)
    body = client.get(overview).content.decode()
    assert "Dream" in body and "Decay GC" in body and "reflected" in body and "undone" not in body
    assert f"{reverse('memory:event-list', args=[workspace.name])}?kind=gc_run" in body
    maintenance.undo_dream(workspace, dream.counts["run"])
    body = client.get(overview).content.decode()
    assert 'class="badge undone">undone' in body and "undone at revision" in body


def test_an_undone_run_whose_id_is_all_decimal_digits_shows_as_undone(client, owner, workspace, monkeypatch):
    """One run id in 280 is twelve decimal digits; SQLite once read it back as a number and the card lost the undo."""
    import uuid

    from memory.services.maintenance import passes as maintenance

    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(hex="1234567890120000000000000000000f"))
    client.force_login(owner)
    dream = maintenance.run_dream(workspace)
    assert dream.counts["run"] == "123456789012"
    maintenance.undo_dream(workspace, dream.counts["run"])
    body = client.get(reverse("memory:workspace-overview", args=[workspace.name])).content.decode()
    assert 'class="badge undone">undone' in body and "undone at revision" in body
    assert maintenance.undo_dream(workspace, dream.counts["run"]) is None


def test_the_inspector_names_linked_facts_by_their_words(client, owner, workspace):
    from tests.factories import make_fact, make_link

    diet = make_fact(workspace, "I keep a strict vegetarian diet.")
    meal = make_fact(workspace, "I ordered a mushroom risotto for dinner yesterday evening at the small corner trattoria down by the river.")
    make_link(meal, diet)
    client.force_login(owner)
    inspector = client.get(_url("fact-detail", workspace, diet.memory_id)).content.decode()
    assert "I ordered a mushroom risotto" in inspector and "trattoria by the river." not in inspector  # truncated
    assert "I keep a strict vegetarian diet." in client.get(_url("fact-detail", workspace, meal.memory_id)).content.decode()


@pytest.mark.parametrize("name, args, current", [
    ("memory:workspace-overview", [], "Overview"), ("memory:fact-list", [], "Facts"),
    ("memory:event-list", [], "Event log"), ("governance:review-list", [], "Queue"),
    ("governance:review-settings", [], "What is held"),
])  # fmt: skip
def test_the_navigation_marks_the_current_page(client, owner, workspace, name, args, current):
    import re

    client.force_login(owner)
    body = client.get(reverse(name, args=[workspace.name, *args])).content.decode()
    marked = re.findall(r'<a href="[^"]*" aria-current="page">([^<]*)', body)
    assert [label.strip() for label in marked] == [current]


def test_a_search_that_finds_nothing_says_what_search_matches(client, owner, workspace):
    client.force_login(owner)
    body = client.get(_url("fact-list", workspace), {"q": "zebra xylophone"}).content.decode()
    assert "No fact matches these words" in body and "not meanings" in body


def test_the_search_boxs_own_example_finds_something_on_the_demo(client):
    from memory.models import Workspace
    from memory.services.demo import load_demo

    load_demo()
    client.force_login(get_user_model().objects.get(username="demo-owner"))
    demo = Workspace.objects.get(name="demo")
    page = client.get(_url("fact-list", demo)).content.decode()
    example = page.split('placeholder="')[1].split('"')[0]
    assert _listed(client, demo, q=example)[0] == "I live in Porto."


def test_a_disputed_fact_links_to_its_review_item(client, owner, workspace):
    from memory.models import Fact

    fact = Fact.objects.get(workspace=workspace, segment="preference", origin_key="owner")
    Fact.objects.filter(pk=fact.pk).update(status="disputed")
    client.force_login(owner)
    body = client.get(_url("fact-detail", workspace, fact.memory_id)).content.decode()
    link = reverse("governance:review-list", args=[workspace.name]) + f"?status=any&amp;q={fact.memory_id}"
    assert f'href="{link}"' in body and "disputed: see its review item" in body


def test_the_inspector_says_never_used_and_used_once_in_words(client, owner, workspace):
    fact = Tideline(workspace).add("I keep bees on the roof.", segment="preference")
    client.force_login(owner)
    page = client.get(_url("fact-detail", workspace, fact.id)).content.decode()
    assert "Never used" in page and "0 times" not in page
    client.post(_url("fact-action", workspace, fact.id, "up"))
    page = client.get(_url("fact-detail", workspace, fact.id)).content.decode()
    assert "Used once, on " in page and "1 time," not in page
