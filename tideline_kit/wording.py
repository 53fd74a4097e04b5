"""Messages built from parts: each part a sentence ending in exactly one stop, whatever the part
already ended with (a validator's "This password is too common." followed by ". Nothing was changed."
read "common.. Nothing")."""

from __future__ import annotations

import re

_ENDS = ".!?…"


def sentence(text: str) -> str:
    """`text` ending in one full stop (or its own "?", "!" or "…"); "" for blank text."""
    text = str(text).strip()
    if not text:
        return ""
    if text[-1] in _ENDS:
        return re.sub(r"\.{2,}$", ".", text)
    return text + "."


def sentences(*parts: str) -> str:
    """The non-blank parts as sentences, one space apart: `sentences("no such user.", "Nothing was changed.")`
    is "no such user. Nothing was changed."."""
    return " ".join(s for s in (sentence(p) for p in parts) if s)
