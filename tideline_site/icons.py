"""`{% icon "download" %}`: one of the console's icons (static/icons/icons.svg), drawn in the text's colour.

Icons sit beside words, never instead of them, so they are hidden from screen readers. A builtin tag
(settings.TEMPLATES), available in every template.
"""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils.html import format_html

register = template.Library()

NAMES = frozenset({"download", "upload", "copy", "check", "cross", "search", "plus", "undo", "archive", "trash", "play",
                   "thumb-up", "thumb-down", "key"})  # fmt: skip


@register.simple_tag
def icon(name: str) -> str:
    if name not in NAMES:
        raise template.TemplateSyntaxError(f"no icon named {name!r}; the icons are {', '.join(sorted(NAMES))}")
    return format_html('<svg class="icon" aria-hidden="true" focusable="false"><use href="{}#{}"></use></svg>',
                       static("icons/icons.svg"), name)  # fmt: skip
