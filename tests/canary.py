"""Checks that what leaves the server for monitoring or integrations (metrics, spans, webhooks) holds no
memory content: no fact, and no distinctive word of one."""

from __future__ import annotations

import re

CANARY = "Quorvith"  # a word no code, metric, route or payload of Tideline holds
OWN_WORDS = {"database", "snapshot"}  # Tideline's own words for what happened (index build sources)


def assert_no_content(text: str, contents: list[str], *, values: str | None = None) -> None:
    """No fact appears in `text`, and no distinctive word of any fact (seven letters or more) in
    `values` (the parts of `text` that carry data, default all of it) beyond Tideline's own words."""
    lowered = text.lower()
    assert CANARY.lower() not in lowered
    for content in contents:
        assert content.lower() not in lowered
    haystack = (text if values is None else values).lower()
    words = {w.lower() for content in contents for w in re.findall(r"[A-Za-z]{7,}", content)} - OWN_WORDS
    leaked = sorted(w for w in words if w in haystack)
    assert leaked == [], leaked
