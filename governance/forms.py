"""Forms of governance's console pages: only validated values reach the selectors."""

from __future__ import annotations

from django import forms

from governance.models import ReviewItem

# The model's labels ("held write" for the quarantine kind, the name for it).
KIND_LABELS = dict(ReviewItem.Kind.choices)


class ReviewFilterForm(forms.Form):
    """The review queue's filters; anything invalid is reported and ignored, never a 500."""

    kind = forms.ChoiceField(required=False, choices=[("", "any"), *KIND_LABELS.items()])
    status = forms.ChoiceField(required=False, choices=[("open", "open"), ("resolved", "resolved"),
                                                        ("dismissed", "dismissed"), ("closed", "closed"),
                                                        ("any", "any")])  # fmt: skip
    origin = forms.CharField(required=False, max_length=900)
    age = forms.IntegerField(required=False, min_value=0, max_value=36_500, label="Older than (days)")
    q = forms.CharField(required=False, max_length=500, strip=True)
    sort = forms.ChoiceField(required=False, choices=[("newest", "newest first"), ("strongest", "strongest first")])
