"""Every response carries a Content-Security-Policy that forbids inline script, and no console page
needs inline script or inline styles to work."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from memory.tideline import Tideline

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


class _InlineCode(HTMLParser):
    """Collects what a script-src/style-src 'self' policy would block: inline scripts, on…= handlers,
    javascript: URLs and style attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and not attrs.get("src") and attrs.get("type") != "application/json":
            self.found.append(f"inline <script> at line {self.getpos()[0]}")
        for name, value in attrs.items():
            if name.startswith("on"):
                self.found.append(f"{name}= on <{tag}>")
            if name == "style":
                self.found.append(f"style= on <{tag}>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"javascript: URL on <{tag}>")
        if tag == "style":
            self.found.append("inline <style>")


def inline_code(html: str) -> list[str]:
    parser = _InlineCode()
    parser.feed(html)
    return parser.found


@pytest.fixture
def console(client, workspace, owner):
    tl = Tideline(workspace)
    fact = tl.add("I live in Porto.", segment="identity")
    other = tl.add("I take the metro to work in Porto every day.", segment="context")
    tl.add("I never take the metro in Porto.", segment="context", supersedes=[other.id])
    client.force_login(owner)
    return [f"/w/{workspace.name}/{path}" for path in (
        "", "facts/", f"facts/{fact.id}/", f"facts/{fact.id}/panel/", "graph/", "recall/?q=porto", "events/",
    )] + ["/"]  # fmt: skip


def test_every_console_page_sends_a_policy_without_inline_script(client, console):
    for url in console + ["/login/", "/no-such-page/"]:
        response = client.get(url)
        policy = _policy(response)
        assert policy["default-src"] == ["'self'"], url
        assert policy["script-src"] == ["'self'"], url
        assert "'unsafe-inline'" not in policy.get("style-src", []) and "'unsafe-eval'" not in policy["script-src"]
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]


def test_the_anonymous_login_page_and_the_admin_carry_the_policy_too(client):
    assert "script-src 'self'" in client.get("/login/")["Content-Security-Policy"]
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    for url in ("/admin/", "/admin/memory/fact/", "/admin/django_q/schedule/add/"):
        response = client.get(url)
        assert response.status_code == 200 and "script-src 'self'" in response["Content-Security-Policy"], url
        assert inline_code(response.content.decode()) == [], url


def test_console_pages_carry_no_inline_script_handlers_or_styles(client, console):
    for url in console + ["/login/"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert inline_code(response.content.decode()) == [], url


def test_no_template_carries_inline_script_handlers_or_styles():
    templates = [p for folder in ("templates", "memory/templates", "governance/templates") for p in (ROOT / folder).rglob("*.html")]
    assert templates
    offenders = {str(p.relative_to(ROOT)): found for p in templates if (found := inline_code(p.read_text()))}
    assert offenders == {}
