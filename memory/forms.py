"""Console forms: they parse and normalise input; they never call services."""

from __future__ import annotations

from django import forms

from memory.engine.facts import records as R
from memory.models import MemoryEvent


def _choices(values, blank="any"):
    return [("", blank)] + [(v, v.replace("_", " ")) for v in values]


class FactFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=500, label="Search")
    segment = forms.ChoiceField(required=False, choices=_choices(R.SEGMENTS))
    tier = forms.ChoiceField(required=False, choices=_choices(R.TIERS))
    lifecycle = forms.ChoiceField(required=False, choices=_choices(R.LIFECYCLES), initial="")
    origin = forms.CharField(required=False, max_length=900, help_text="owner or channel:CHANNEL/CONVERSATION/SESSION")
    source_type = forms.ChoiceField(required=False, choices=_choices(R.SOURCE_TYPES) + [("legacy", "legacy (none)")])
    trust = forms.ChoiceField(required=False, choices=[("", "any"), ("trusted", "trusted"), ("untrusted", "untrusted")])
    classification = forms.ChoiceField(required=False, choices=_choices(R.CLASSIFICATIONS))
    subject_key = forms.CharField(required=False, max_length=200)
    created_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    created_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    score_below = forms.FloatField(required=False, min_value=0.0, max_value=1.0, label="Score below",
                                   help_text="active facts whose effective score now is below this")
    sort = forms.ChoiceField(
        required=False,
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
    kind = forms.ChoiceField(required=False, choices=[("", "any")] + [(k, k) for k in MemoryEvent.Kind.values])
    actor = forms.CharField(required=False, max_length=200)
    fact = forms.CharField(required=False, max_length=128, label="Fact id")
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="From")
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="To")
