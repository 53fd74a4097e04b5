"""`{{ text|reveal }}`: invisible characters that change how text reads are shown as a visible badge.

Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), direction marks (U+200E, U+200F,
U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF), invisible operators (U+2061–U+2064),
U+180E and Unicode tag characters (U+E0000–U+E007F) can make a fact, an origin or a reason read
differently from what is stored ("Trojan source"), or hide text from a reviewer. The console never
renders them raw: each becomes ⟦U+202E⟧ with a title naming it. The text is HTML-escaped first,
so the filter is as safe as autoescaping.
"""

from __future__ import annotations

import re
import unicodedata

from django import template
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

INVISIBLE = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060-\u2064\ufeff\u180e\U000e0000-\U000e007f]"
)


def _name(char: str) -> str:
    return unicodedata.name(char, "TAG CHARACTER" if "\U000e0000" <= char <= "\U000e007f" else "INVISIBLE CHARACTER")


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


def reveal_text(value: object) -> str:
    """Plain text with each invisible character written as ⟦U+XXXX⟧ (for <option>, <title>, JSON)."""
    return INVISIBLE.sub(lambda m: f"⟦{_code(m.group())}⟧", str(value))


def _badge(match: re.Match) -> str:
    char = match.group()
    title = f"{_code(char)} {_name(char).title()}: an invisible character that can change how this text reads"
    return f'<span class="invisible-char" title="{escape(title)}">⟦{_code(char)}⟧</span>'


@register.filter(needs_autoescape=True)
def reveal(value: object, autoescape: bool = True) -> SafeString:
    """HTML with each invisible character shown as a badge; everything else escaped as usual."""
    if value is None:
        return mark_safe("")
    text = conditional_escape(value) if autoescape else str(value)
    return mark_safe(INVISIBLE.sub(_badge, str(text)))


@register.filter
def reveal_plain(value: object) -> str:
    """Text for places that take no markup (option labels, the page title); autoescaped as usual."""
    return "" if value is None else reveal_text(value)


@register.filter(needs_autoescape=True)
def reveal_attr(value: object, autoescape: bool = True) -> SafeString:
    """An attribute value (an option's value, an id in a form) that keeps its exact characters when
    submitted, with invisible ones written as character references, so the page source shows them."""
    if value is None:
        return mark_safe("")
    text = conditional_escape(value) if autoescape else str(value)
    return mark_safe(INVISIBLE.sub(lambda m: f"&#x{ord(m.group()):X};", str(text)))


@register.filter(needs_autoescape=True)
def reveal_path(value: object, autoescape: bool = True) -> SafeString:
    """`reveal`, with a line-break opportunity after each `/` and `@`: a long origin
    (`channel:slack/team-backend/2026-q4-planning@T01ACME`) wraps at its parts, never inside a word."""
    shown = reveal(value, autoescape)
    return mark_safe(re.sub(r"(?<=[/@])(?![^<]*>)", "<wbr>", str(shown)))
