"""A list page's choice filters read from its query string.

A value the page does not know is refused, naming the values it accepts, never silently dropped (a
dropped filter shows every row, which reads as "these are the rows you asked for"). An obvious other
spelling of a value (`aliases`) is taken as that value. The page answers 400 with the form's errors
(`refused`)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

SHOWN = 40  # characters of a refused value repeated in the message


class FilterChoice(forms.ChoiceField):
    """An optional choice whose refusal names the accepted values; `aliases` maps other spellings."""

    def __init__(self, *, aliases: dict[str, str] | None = None, **kwargs):
        self.aliases = dict(aliases or {})
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> str:
        value = super().to_python(value)
        return self.aliases.get(value, self.aliases.get(value.strip().lower(), value))

    def validate(self, value) -> None:
        if value in self.empty_values:
            super().validate(value)
            return
        if not self.valid_value(value):
            shown = value if len(value) <= SHOWN else value[:SHOWN] + "…"
            accepted = ", ".join(str(key) for key, _ in self.choices if key not in self.empty_values)
            raise ValidationError("“%(value)s” is not a value this page knows; it accepts %(accepted)s",
                                  code="invalid_choice", params={"value": shown, "accepted": accepted})  # fmt: skip


def refused(form: forms.Form) -> bool:
    """Whether the page's filters were given and refused (the page then answers 400, listing nothing)."""
    return form.is_bound and not form.is_valid()
