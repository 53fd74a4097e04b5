"""No query string, path segment or form value makes the console answer 500.

The page list is read from the URLconf, so a page added later is swept too (the test fails until
its path arguments are known here). Every parameter any page reads, and a few none does, gets every
hostile value: numbers beyond 64 bits, garbage keyset cursors, NUL bytes (PostgreSQL refuses them
in text), malformed dates, unknown choices, huge k, invalid UTF-8 and very long strings.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from governance.models import ReviewItem
from memory.models import Fact
from memory.tideline import Tideline

pytestmark = pytest.mark.django_db

# Raw (already URL-encoded) values, so invalid percent-encodings and bytes reach the server as sent.
HOSTILE = [
    "", "%00", "a%00b", "99999999999999999999999", "-99999999999999999999999", "-1", "0", "1e309", "NaN",
    "0x10", "1.5", "%FF%FE", "%ED%A0%80", "'%3B--", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "x" * 5000,
    "2026-13-45", "2026-02-30T25:61", "10000-01-01", "0001-01-01", "9999-12-31", "9999-12-31T23:59",
    "0001-01-01T00:00", "_", "1_", "abc_def", "1e400_1", "99999999999999999999999_99999999999999999999999",
    "nan_1", "-0.5_3", "channel:", "channel:a/b", "channel:%00/b/c", "owner%00", "%E2%80%AE", "%F0%9F%92%A9",
    "json", "graphml", "csv", "jsonl", "[]", "..%2F..%2Fetc%2Fpasswd",
]  # fmt: skip
# The one-verb views: they take a POST, so a GET answers 405 before reading anything.
POST_ONLY = (
    "shred-apply", "shred-finish", "purge-apply", "member-add", "member-create",
    "member-roles", "member-remove", "token-create", "token-revoke", "import-confirm",
    "import-cancel", "import-resume", "proposal-bar", "propose-telemetry", "propose-misses", "propose-tuning",
    "propose-retraction", "proposal-evaluate", "proposal-approve", "proposal-reject",
    "proposal-apply", "proposal-revert", "gold-upload", "gold-scaffold", "gold-candidate-accept", "gold-candidate-reject", "gold-case-edit",
    "gold-case-add", "gold-case-delete", "gold-approve", "gold-delete", "retention-save",
    "retention-ladder", "retention-enable", "retention-disable", "retention-remove",
    "retention-apply", "review-undo", "webhook-add", "webhook-change", "webhook-ping",
)  # fmt: skip
# What each page reads from its query string (its form's fields and the parameters the view reads
# itself); every page also gets a few parameters no page reads. A page missing here fails the test.
FACT_FILTERS = ["q", "segment", "tier", "lifecycle", "origin", "source_type", "trust", "classification",
                "subject_key", "created_from", "created_to", "score_below", "sort"]  # fmt: skip
EXPORT_FILTERS = ["origin", "classification", "lifecycle", "segment", "created_from", "created_to"]
EVENT_FILTERS = ["kind", "actor", "fact", "date_from", "date_to"]
READS = {
    "home": [], "workspace-overview": [], "fact-bulk": [], "fact-action": [], "fact-panel": [],
    "fact-list": [*FACT_FILTERS, "page", "after", "before"],
    "fact-detail": ["q", "at"],
    "memory-graph": ["format"],
    "recall-playground": ["q", "origin", "k", "as_of", "clearance", "max_chars"],
    "event-list": ["kind", "actor", "fact", "date_from", "date_to", "format", "page"],
    "review-list": ["kind", "status", "origin", "age", "q", "sort", "page"], "review-detail": ["kind", "status", "origin", "age", "q", "sort"],
    "review-decide": ["kind", "status", "origin", "age", "q", "sort"], "review-settings": [], "review-bulk": [],
    "shred": ["origin"],
    "purge": ["facts", "origin", "query", "max", "after", "before", "segment", "mode", "page", "link_page", "item_page"],
    "retention": ["preview", "page", "edit"],
    "members": [], "workspace-create": [],
    "exports": [*EXPORT_FILTERS, *EVENT_FILTERS], "export-facts": ["format", *EXPORT_FILTERS],
    "export-events": ["format", *EVENT_FILTERS], "export-graph": ["format"],
    "import": [], "import-job": [], "import-decide": ["decision", "gated"],
    "login": ["next"], "logout": ["next"], "healthz": [], "readyz": [], "metrics": [], "account-notifications": [], "webhooks": [], "inbox-count": [],
    "password_change": [], "password_change_done": [], "password_reset": [], "password_reset_done": [],
    "password_reset_confirm": [], "password_reset_complete": [],
    "proposals": ["status", "page"], "proposal-detail": [], "proposal-search": [], "gold": ["page"], "gold-detail": ["page"],
    "gold-from-playground": [], "gold-score": ["set", "k", "only"], "tokens": [],
    # One view per verb: POST only, so a GET is a 405 whatever it carries (swept lightly below).
    **{name: [] for name in POST_ONLY},
    # The agent API (its own tests fuzz it with a token; here every value meets a 401, never a 500).
    "whoami": [], "memories": ["origin", "lifecycle", "segment", "cursor"], "memory": ["reason"], "recall": [],
    "search": [], "context": [], "explain": [], "feedback": [], "auto-recall": [], "manage": [], "openapi": [],
    "docs": [], "api-not-found": [],
}  # fmt: skip
UNREAD = ["zz", "page", "id[]"]
# A parameter a page never reads can only trip what reads every parameter (middleware, a form bound to
# the whole query string), so it gets the values that stress decoding and size, not every value.
UNREAD_HOSTILE = ["", "%00", "a%00b", "99999999999999999999999", "%FF%FE", "%ED%A0%80", "x" * 5000, "[]"]
# Hostile path segments for each kind of path argument, besides the real value.
PATH_VALUES = {
    "workspace": ["nope", "a" * 300],
    "memory_id": ["mem_nope", "a%00b", "%00", "x" * 5000, "%ED%A0%80", "%E2%80%AE", "mem_1%20OR%201=1"],
    "action": ["up", "nope", "%00"],
    "item_id": ["0", "-1", "nope", "%00", "9" * 40],
    "job_id": ["0", "999999999", "9" * 40],
    "proposal_id": ["0", "999999999", "9" * 40],
    "gold_id": ["0", "999999999", "9" * 40],
    "search_id": ["0", "999999999", "9" * 40],
    "rest": ["nothing", "%00", "x" * 5000],
    "uidb64": ["MQ", "%00", "x" * 5000, "%ED%A0%80"],
    "token": ["set-password", "abc-def", "%00", "x" * 5000],
}


def console_patterns() -> list[tuple[str, str]]:
    """(name, route) of every console URL: the whole URLconf except Django's admin."""
    found = []

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                if entry.app_name == "admin":
                    continue
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                namespace = ""
                found.append((f"{namespace}{entry.name}", prefix + str(entry.pattern)))

    walk(get_resolver().url_patterns)
    return found


def fill(route: str, values: dict[str, str]) -> str:
    """The route with its `<converter:name>` parts replaced by (URL-encoded) values."""
    import re

    def replace(match):
        name = match.group(2)
        if name not in values:
            raise AssertionError(f"the sweep does not know the path argument {name!r} of {route!r}: add it")
        return values[name]

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", replace, route)


@pytest.fixture
def world(workspace, personas):
    memory = Tideline(workspace)
    fact = memory.add("I live in Porto and walk by the river.", segment="identity")
    memory.add("Lisbon trains leave every hour.", segment="knowledge",
               origin="channel:slack/general/s1", source_type="tool_output")  # fmt: skip
    memory.recall("Porto")
    other = memory.add("I live in Lisbon.", segment="identity")
    ReviewItem.objects.create(workspace=workspace, kind="contradiction", fact=Fact.objects.get(memory_id=fact.id),
                              other_fact=Fact.objects.get(memory_id=other.id), reason="two cities", details={"score": 0.8})
    return workspace, fact, personas


def urls_for(workspace, fact) -> list[tuple[str, str, bool]]:
    """(page name, URL, whether the path holds the real values) for every console page."""
    item = ReviewItem.objects.filter(workspace=workspace).first()
    real = {"workspace": workspace.name, "memory_id": quote(fact.id), "action": "up", "item_id": str(item.pk),
            "job_id": "1", "proposal_id": "1", "gold_id": "1", "search_id": "1", "rest": "nothing", "uidb64": "MQ", "token": "set-password"}
    urls = []
    for name, route in console_patterns():
        urls.append((name, fill(route, real), True))
        for argument, values in PATH_VALUES.items():
            if f":{argument}>" in route or f"<{argument}>" in route:
                urls += [(name, fill(route, real | {argument: value}), False) for value in values]
    return urls


def assert_no_server_error(client, url: str) -> None:
    response = client.get(url)
    if hasattr(response, "streaming_content"):
        b"".join(response.streaming_content)  # a streamed body fails while it is read
    assert response.status_code < 500, f"{url[:300]} answered {response.status_code}"


def test_the_sweep_knows_every_console_page():
    names = {name for name, _ in console_patterns()}
    assert names == set(READS), "a console page was added or renamed: list what it reads in READS"


def test_no_parameter_value_makes_a_page_fail(client, world):
    workspace, fact, users = world
    client.force_login(users["owner"])
    for name, url, real_path in urls_for(workspace, fact):
        if not real_path or name in POST_ONLY:  # the hostile part is in the path itself, or a GET is refused
            for query in ("", "?q=%00&page=99999999999999999999999", "?format=graphml&at=%00"):
                assert_no_server_error(client, url + query)
            continue
        for param in READS[name]:
            for value in HOSTILE:
                assert_no_server_error(client, f"{url}?{param}={value}")
        for param in (p for p in UNREAD if p not in READS[name]):
            for value in UNREAD_HOSTILE:
                assert_no_server_error(client, f"{url}?{param}={value}")


@pytest.mark.parametrize("role", ["approver", "admin"])
def test_no_combination_of_values_makes_a_page_fail_for_any_role(client, world, role):
    workspace, fact, users = world
    client.force_login(users[role])
    for name, url, real_path in urls_for(workspace, fact):
        if not real_path or name in POST_ONLY:
            continue
        for value in HOSTILE:
            assert_no_server_error(client, url + "?" + "&".join(f"{p}={value}" for p in READS[name] + UNREAD))
    # Valid filters mixed with one hostile paging parameter each.
    base = f"/w/{workspace.name}/facts/?sort=importance&origin=owner"
    for param in ("page", "after", "before"):
        for value in HOSTILE:
            assert_no_server_error(client, f"{base}&{param}={value}")
            assert_no_server_error(client, f"{base}&q=porto&{param}={value}")


def test_a_one_verb_view_refuses_a_get_whatever_it_carries(client, world):
    workspace, fact, users = world
    client.force_login(users["admin"])
    urls = [(name, url) for name, url, real in urls_for(workspace, fact) if real and name in POST_ONLY]
    assert {name for name, _ in urls} == set(POST_ONLY)
    for _name, url in urls:
        for query in ("", "?q=%00", "?page=99999999999999999999999&zz=" + "x" * 5000):
            assert client.get(url + query).status_code == 405, url


def test_anonymous_visitors_never_see_a_server_error(client, world):
    workspace, fact, _ = world
    for _name, url, _real in urls_for(workspace, fact):
        for value in ("%00", "99999999999999999999999", "%ED%A0%80"):
            assert_no_server_error(client, f"{url}?next={value}&page={value}")


def test_a_page_number_beyond_64_bits_shows_the_first_page(client, world):
    workspace, _, users = world
    client.force_login(users["owner"])
    response = client.get(f"/w/{workspace.name}/facts/?page=99999999999999999999999")
    assert response.status_code == 200 and "Porto" in response.content.decode()


def test_an_id_with_a_nul_byte_is_not_found(client, world):
    workspace, fact, users = world
    client.force_login(users["owner"])
    for path in (f"/w/{workspace.name}/facts/{quote(fact.id)}%00/", f"/w/{workspace.name}/facts/%00/panel/"):
        assert client.get(path).status_code == 404
