"""Console forms: they parse and normalise input; they never call services."""

from __future__ import annotations

from django import forms

from memory.engine.facts import records as R
from memory.models import MemoryEvent
from tideline_kit.filters import FilterChoice


def _choices(values, blank="any"):
    return [("", blank)] + [(v, v.replace("_", " ")) for v in values]


class CleanText(forms.Field):
    """Optional text: NUL characters removed (`nul=False` keeps them, for the service to refuse),
    spaces stripped (`strip=False` keeps them), cut at `limit` characters."""

    def __init__(self, limit: int = 1000, *, strip: bool = True, nul: bool = True, **kwargs):
        self.limit, self.strip_spaces, self.drop_nul = limit, strip, nul
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> str:
        value = "" if value in self.empty_values else str(value)
        if self.drop_nul:
            value = value.replace("\x00", "")
        if self.strip_spaces:
            value = value.strip()
        return value[: self.limit]


class FactQueryForm(forms.Form):
    """The fact page's "why would recall return this?" query."""

    q = CleanText(500)


class FactCorrectionForm(forms.Form):
    content = CleanText(10**7, nul=False)


BULK_ACTIONS = {"archive": "Archive", "restore": "Restore", "up": "Up-vote", "down": "Down-vote"}


class FactBulkForm(forms.Form):
    """The facts list's bulk action: the chosen facts (ids without NUL, at most 128 characters, the
    first 500 distinct), the action, and whether this is the confirmed second step."""

    action = CleanText(10**6, strip=False, nul=False)
    ids = forms.Field(required=False, widget=forms.MultipleHiddenInput)
    return_query = CleanText(10**7, strip=False, nul=False)
    confirm = forms.Field(required=False)

    def clean_ids(self) -> list[str]:
        given = self.cleaned_data["ids"] or []
        return [i for i in dict.fromkeys(given) if "\x00" not in i and len(i) <= 128][:500]

    def clean_action(self) -> str:
        return self.cleaned_data["action"] if self.cleaned_data["action"] in BULK_ACTIONS else ""

    def clean_confirm(self) -> bool:
        return self.cleaned_data["confirm"] == "yes"


class FactFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=500, label="Search")
    segment = FilterChoice(choices=_choices(R.SEGMENTS))
    tier = FilterChoice(choices=_choices(R.TIERS))
    lifecycle = FilterChoice(choices=_choices(R.LIFECYCLES), initial="")
    origin = forms.CharField(required=False, max_length=900, help_text="owner or channel:CHANNEL/CONVERSATION/SESSION")
    source_type = FilterChoice(choices=_choices(R.SOURCE_TYPES) + [("legacy", "legacy (none)")])
    trust = FilterChoice(choices=[("", "any"), ("trusted", "trusted"), ("untrusted", "untrusted")])
    classification = FilterChoice(choices=_choices(R.CLASSIFICATIONS))
    subject_key = forms.CharField(required=False, max_length=200)
    created_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    created_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    score_below = forms.FloatField(required=False, min_value=0.0, max_value=1.0, label="Score below",
                                   help_text="active facts whose effective score now is below this")
    sort = FilterChoice(
        choices=[("", "relevance / newest"), ("-created", "newest first"), ("created", "oldest first"),
                 ("-importance", "most important"),
                 ("importance", "least important"), ("-accessed", "most used")],  # fmt: skip
    )

    def clean_origin(self):
        value = self.cleaned_data["origin"].strip()
        if not value:
            return None
        try:
            return R.parse_origin(value)
        except R.OriginError as exc:
            raise forms.ValidationError(str(exc)) from exc


class PlaygroundForm(forms.Form):
    q = forms.CharField(max_length=500, label="Query")
    origin = forms.CharField(required=False, max_length=900, initial="owner")
    k = forms.IntegerField(min_value=1, max_value=50, initial=8)
    as_of = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    clearance = forms.ChoiceField(choices=[(c, c) for c in ("PII", "INTERNAL", "PUBLIC")], initial="PII")
    max_chars = forms.IntegerField(min_value=100, max_value=10000, initial=1200, label="Context budget")

    def clean_origin(self):
        value = (self.cleaned_data["origin"] or "owner").strip()
        try:
            return R.parse_origin(value)
        except R.OriginError as exc:
            raise forms.ValidationError(str(exc)) from exc


class EventFilterForm(forms.Form):
    # Every kind the log can hold (retention runs, exports and member changes included).
    kind = FilterChoice(choices=[("", "any")] + [(k, k) for k in MemoryEvent.Kind.values])
    actor = forms.CharField(required=False, max_length=200)
    fact = forms.CharField(required=False, max_length=128, label="Fact id")
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="From")
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="To")
