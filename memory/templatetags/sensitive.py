"""`{{ fact|sensitive_labels }}`: the personal data and replaced secrets a fact's text holds (labels only)."""

from __future__ import annotations

from django import template

from memory import sealing
from memory.engine.safety.sensitive import stored_labels

register = template.Library()


@register.filter
def sensitive_labels(fact) -> list[str]:
    try:
        return stored_labels(fact.content)
    except sealing.KeyDestroyedError:
        return []  # shredded: nothing to read
