"""Forms of governance's console pages: only validated values reach the selectors and services.

Every POST of the console is read through one of these. Typed text goes through `CleanText`
(memory.forms): NUL characters removed (a database refuses them), spaces stripped, cut at the
field's limit (a longer value is cut, never refused: the services say what is wrong with what is left).
"""

from __future__ import annotations

from django import forms

from governance.models import Proposal, ReviewItem
from memory.engine.facts import jsonbody
from memory.forms import CleanText
from tideline_kit.filters import FilterChoice

# The model's labels ("held write" for the quarantine kind, the name for it).
KIND_LABELS = dict(ReviewItem.Kind.choices)
ID_MAX = 2**62


# Each kind's label, spelled as a value, is an alias ("durable_promotion", "held write" …).
KIND_ALIASES = {spelling: kind for kind, label in KIND_LABELS.items()
                for spelling in (label, label.replace(" ", "_"), label.replace(" ", "-"))}  # fmt: skip


class ReviewFilterForm(forms.Form):
    """The review queue's filters; an invalid one is refused with the accepted values (400), never a 500."""

    kind = FilterChoice(choices=[("", "any"), *KIND_LABELS.items()], aliases=KIND_ALIASES)
    status = FilterChoice(choices=[("open", "open"), ("resolved", "resolved"), ("dismissed", "dismissed"),
                                   ("closed", "closed"), ("any", "any")])  # fmt: skip
    origin = forms.CharField(required=False, max_length=900)
    age = forms.IntegerField(required=False, min_value=0, max_value=36_500, label="Older than (days)")
    q = forms.CharField(required=False, max_length=500, strip=True)
    sort = FilterChoice(choices=[("newest", "newest first"), ("strongest", "strongest first")])


class ProposalFilterForm(forms.Form):
    """The proposals list's status tab."""

    status = FilterChoice(choices=[("", "all"), *Proposal.Status.choices])


# ---------------------------------------------------------------- fields


class CleanList(forms.Field):
    """A repeated field (checkboxes, several hidden inputs): at most `items` values, each cut at `limit`,
    only those in `choices` when given; empty values dropped when `drop_empty`."""

    widget = forms.MultipleHiddenInput

    def __init__(self, limit: int = 1000, *, items: int = 20, choices=None, strip: bool = True, nul: bool = True,
                 drop_empty: bool = True, **kwargs):  # fmt: skip
        self.text = CleanText(limit, strip=strip, nul=nul)
        self.items, self.choices, self.drop_empty = items, choices, drop_empty
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> list[str]:
        values = [self.text.to_python(v) for v in (value or [])[: self.items]]
        if self.drop_empty:
            values = [v for v in values if v]
        return [v for v in values if v in self.choices] if self.choices is not None else values


class Flag(forms.BooleanField):
    """A checkbox or a hidden field: on only when it says `on_value` ("on" for a checkbox)."""

    def __init__(self, on_value: str = "on", **kwargs):
        self.on_value = on_value
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.HiddenInput)  # the value as sent, not a checkbox's truthiness
        super().__init__(**kwargs)

    def to_python(self, value) -> bool:
        return value == self.on_value


class SeenField(forms.Field):
    """The facts' states a confirmation showed (memory id -> fields), as the JSON of a hidden field.

    `strict`: the whole value must be such a mapping (None otherwise, the form was incomplete);
    otherwise whatever is not is dropped (an empty mapping at worst)."""

    def __init__(self, *, strict: bool, **kwargs):
        self.strict = strict
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> dict | None:
        try:
            seen = jsonbody.loads(value or ("null" if self.strict else "{}"))  # too deep: a ValueError
        except ValueError:
            return None if self.strict else {}
        if self.strict:
            return seen if isinstance(seen, dict) and all(isinstance(v, dict) for v in seen.values()) else None
        if not isinstance(seen, dict):
            return {}
        return {k: v for k, v in seen.items() if isinstance(k, str) and isinstance(v, dict)}


def positive_id(value) -> int | None:
    """A row id from a query string or a form, or None when the value is not one."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < ID_MAX else None


def parsed(form_class, data, files=None) -> dict:
    """A form's cleaned values: every field here parses whatever it is given, so they are always valid."""
    form = form_class(data, files)
    form.is_valid()
    return form.cleaned_data


class ConfirmedForm(forms.Form):
    """Any form that asks once more: `confirmed=yes` is the second step."""

    confirmed = Flag("yes")


# ---------------------------------------------------------------- members and workspaces

NAME_LIMIT = 200  # the longest value a members form field takes (user names are at most 150)


class MemberForm(ConfirmedForm):
    username = CleanText(NAME_LIMIT)
    roles = CleanList(20, items=5, strip=False, nul=False, drop_empty=False)
    password = CleanText(NAME_LIMIT, strip=False, nul=False)
    email = CleanText(NAME_LIMIT)


class WorkspaceCreateForm(forms.Form):
    name = CleanText(NAME_LIMIT)

    def clean_name(self) -> str:
        return self.cleaned_data["name"].lower()


# ---------------------------------------------------------------- API tokens

TOKEN_LIMIT = 900


OTHER_ORIGIN = "other"  # the "Acts as" choice that takes the typed origin (a peer or channel with no facts yet)


class TokenForm(forms.Form):
    name = CleanText(TOKEN_LIMIT)
    origin = CleanText(TOKEN_LIMIT)
    origin_other = CleanText(TOKEN_LIMIT)
    verbs = CleanList(TOKEN_LIMIT, items=1000, strip=False, nul=False)
    clearance = CleanText(TOKEN_LIMIT)
    source = CleanText(TOKEN_LIMIT)
    expires = CleanText(TOKEN_LIMIT)

    def __init__(self, *args, verbs=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["verbs"].choices = list(verbs)

    def acting_origin(self) -> str:
        """Whom the token acts for: the origin chosen, or what was typed after "other…" (the
        service checks either: an origin the page did not offer is refused only if no token may have it)."""
        chosen = self.cleaned_data["origin"]
        return self.cleaned_data["origin_other"] if chosen == OTHER_ORIGIN else chosen

    def expires_days(self) -> float | None:
        """Days until it expires: None for never, -1 for what is not a number (refused with the range)."""
        text = self.cleaned_data["expires"]
        try:
            return float(text) if text else None
        except ValueError:
            return -1.0


class TokenRevokeForm(ConfirmedForm):
    name = CleanText(TOKEN_LIMIT)


# ---------------------------------------------------------------- webhooks

WEBHOOK_LIMIT = 2100  # a little over the longest URL a webhook takes, so the service says why it is refused


class WebhookForm(forms.Form):
    url = CleanText(WEBHOOK_LIMIT)
    events = CleanList(100, items=50, strip=True, nul=False)


class WebhookChangeForm(ConfirmedForm):
    webhook = CleanText(40)
    action = CleanText(20)


# ---------------------------------------------------------------- shred and purge

ORIGIN_MAX = 900  # the longest origin key a fact can have (Fact.origin_key)


class OriginField(forms.Field):
    """An origin key as typed or chosen: "" when it holds a NUL or is longer than any key can be."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_python(self, value) -> str:
        return shred_origin(value)


def shred_origin(value) -> str:
    value = (value or "").strip()
    return "" if "\x00" in value or len(value) > ORIGIN_MAX else value


class ShredForm(forms.Form):
    origin = OriginField()
    reason = CleanText(1000)
    confirm = CleanText(ORIGIN_MAX + 20, strip=False, nul=False)


PURGE_FIELDS = ("facts", "origin", "query", "max", "after", "before", "segment", "mode")
PURGE_TEXT_MAX = 20_000  # characters of any one field (a long list of fact ids fits)


class PurgeForm(forms.Form):
    """The purge page's selection (a GET for the preview, the POST with the confirmation)."""

    facts = CleanText(PURGE_TEXT_MAX)
    origin = CleanText(PURGE_TEXT_MAX)
    query = CleanText(PURGE_TEXT_MAX)
    max = CleanText(PURGE_TEXT_MAX)
    after = CleanText(PURGE_TEXT_MAX)
    before = CleanText(PURGE_TEXT_MAX)
    segment = CleanText(PURGE_TEXT_MAX)
    mode = CleanText(PURGE_TEXT_MAX)
    reason = CleanText(1000)
    confirm = CleanText(200, strip=False, nul=False)

    def clean_mode(self) -> str:
        return "hard" if self.cleaned_data["mode"] == "hard" else "retract"

    def clean_facts(self) -> str:
        return " ".join(self.cleaned_data["facts"].replace(",", " ").split())  # one line: it travels in a hidden field

    def selection(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in PURGE_FIELDS}


# ---------------------------------------------------------------- proposals


class TelemetryProposalForm(forms.Form):
    min_downvotes = forms.Field(required=False)

    def clean_min_downvotes(self) -> int:
        try:
            return max(1, min(1000, int(self.cleaned_data["min_downvotes"])))
        except (TypeError, ValueError):
            return 3


class ProposalBarForm(forms.Form):
    """The bar's two numbers as given; `proposal_bar.set_bar` says what is wrong with them."""

    noise_weight = forms.CharField(required=False, max_length=20)
    hit_allowance = forms.CharField(required=False, max_length=20)


class TuningProposalForm(forms.Form):
    rationale = CleanText(5000, strip=False)

    def __init__(self, *args, knobs=(), **kwargs):
        super().__init__(*args, **kwargs)
        for name in knobs:
            self.fields[name] = CleanText(40, strip=False, nul=False)
        self.knobs = list(knobs)

    def typed(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in self.knobs}


class RetractionProposalForm(forms.Form):
    rationale = CleanText(5000, strip=False)
    fact_ids = CleanText(10**9, strip=False, nul=False)

    def clean_fact_ids(self) -> list[str]:
        return self.cleaned_data["fact_ids"].replace(",", " ").split()


class ProposalDecisionForm(ConfirmedForm):
    reason = CleanText(1000)


# ---------------------------------------------------------------- gold sets


class GoldUploadForm(forms.Form):
    name = CleanText(100, strip=False)
    file = forms.Field(required=False, widget=forms.FileInput)  # checked by the view and the service


class GoldScaffoldForm(forms.Form):
    name = CleanText(100, strip=False)
    size = forms.Field(required=False)

    def __init__(self, *args, default: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.default = default

    def clean_size(self) -> int:
        try:
            return int(self.cleaned_data["size"] or self.default)
        except ValueError:
            raise forms.ValidationError("the number of cases must be a whole number") from None


class GoldCaseForm(ConfirmedForm):
    case = forms.Field(required=False)
    query = CleanText(1000, strip=False)
    category = CleanText(100, strip=False)
    keys = CleanText(5000, strip=False)
    page = CleanText(10**6, strip=False, nul=False)

    def page_suffix(self) -> str:
        page = self.cleaned_data["page"] or "1"
        return f"?page={page}" if page.isdigit() and page != "1" else ""


class PlaygroundCaseForm(forms.Form):
    query = CleanText(1000, strip=False)
    memory_id = CleanText(100, strip=False)


class GoldCandidateForm(forms.Form):
    """Accepting a gold-case candidate: the query as the person edited it, and for a down-voted hit the
    fact that answers (or that nothing should come back)."""

    candidate = forms.IntegerField(min_value=1, max_value=2**31 - 1)
    query = CleanText(1000, strip=False, required=False)
    fact_id = CleanText(100, required=False)
    nothing = forms.BooleanField(required=False)


class GoldScoreForm(forms.Form):
    """Which gold set to score, and at which k (the recall playground's range)."""

    set = CleanText(20)
    k = forms.IntegerField(required=False, min_value=1, max_value=50)
    only = FilterChoice(choices=[("", "every case"), ("missed", "missed")])


# ---------------------------------------------------------------- retention

RETENTION_TEXT_MAX = 1000


class RetentionRuleForm(forms.Form):
    """Rule and action fields shared by the policy form and the ladder form."""

    age = CleanText(RETENTION_TEXT_MAX)
    age_unit = CleanText(RETENTION_TEXT_MAX)
    basis = CleanText(RETENTION_TEXT_MAX)
    keep_confirmed = Flag()
    keep_permanent = Flag()
    action = CleanText(RETENTION_TEXT_MAX)

    def common(self) -> dict:
        data = self.cleaned_data
        out = {"basis": data["basis"] or "created", "keep_confirmed": data["keep_confirmed"],
               "keep_permanent": data["keep_permanent"], "action": data["action"] or "archive"}  # fmt: skip
        if data["age"]:
            out["max_age_seconds"] = f"{data['age']}{data['age_unit']}"
        return out


class RetentionPolicyForm(RetentionRuleForm):
    policy = CleanText(RETENTION_TEXT_MAX)
    name = CleanText(RETENTION_TEXT_MAX)
    origin_kind = CleanText(RETENTION_TEXT_MAX)
    origin_key = CleanText(RETENTION_TEXT_MAX)
    segments = CleanList(RETENTION_TEXT_MAX)
    classifications = CleanList(RETENTION_TEXT_MAX)
    tiers = CleanList(RETENTION_TEXT_MAX)
    trust = CleanText(RETENTION_TEXT_MAX)
    every_fact = Flag()
    enabled = Flag()

    FORM_FIELDS = ("policy", "name", "origin_kind", "origin_key", "segments", "classifications", "tiers", "trust",
                   "every_fact", "age", "age_unit", "basis", "keep_confirmed", "keep_permanent", "action", "enabled")  # fmt: skip

    def as_page(self) -> dict:
        """What was typed, to show the form again."""
        return {name: self.cleaned_data[name] for name in self.FORM_FIELDS}

    def fields_for_service(self) -> dict:
        data = self.cleaned_data
        return {**self.common(), **{name: data[name] for name in ("name", "origin_kind", "origin_key", "segments",
                                                                  "classifications", "tiers", "trust", "enabled")}}  # fmt: skip


class RetentionLadderForm(RetentionRuleForm):
    by = CleanText(RETENTION_TEXT_MAX)

    def __init__(self, *args, tiers=(), classifications=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.rungs = {"tiers": list(tiers), "classifications": list(classifications)}
        for value in {*tiers, *classifications}:
            self.fields[f"rung_{value}"] = CleanText(RETENTION_TEXT_MAX)

    def clean_by(self) -> str:
        return "classifications" if self.cleaned_data["by"] == "classifications" else "tiers"

    def mapping(self) -> dict[str, str]:
        by = self.cleaned_data["by"]
        return {v: self.cleaned_data[f"rung_{v}"] or "never" for v in self.rungs[by]}


class RetentionPolicyRefForm(forms.Form):
    policy = CleanText(RETENTION_TEXT_MAX)
    confirm = CleanText(RETENTION_TEXT_MAX)


# ---------------------------------------------------------------- review queue


class VerdictForm(forms.Form):
    verdict = CleanText(10**6, strip=False, nul=False)
    reason = CleanText(1000, nul=False)
    seen = SeenField(strict=True)


class BulkVerdictForm(forms.Form):
    verdict = CleanText(10**6, strip=False, nul=False)
    reason = CleanText(1000, nul=False)
    scope = CleanText(10**6, strip=False, nul=False)
    ids = CleanList(10**6, items=10**6, strip=False, nul=False)
    confirm = Flag("yes")
    seen = SeenField(strict=False)

    def clean_ids(self) -> list[int]:
        wanted: list[int] = []
        for raw in self.cleaned_data["ids"]:
            if raw.isascii() and raw.isdigit() and 0 < int(raw) < 2**63 and int(raw) not in wanted:
                wanted.append(int(raw))
        return wanted


class ReviewSettingsForm(forms.Form):
    """The write path's review settings: flags, and the daily cap (a whole number)."""

    def __init__(self, *args, settings=(), default_cap=None, **kwargs):
        super().__init__(*args, **kwargs)
        for name in settings:
            if name != "review_daily_cap":
                self.fields[name] = Flag()
        self.fields["review_daily_cap"] = forms.Field(required=False)
        self.default_cap = default_cap

    def clean_review_daily_cap(self) -> int:
        raw = self.data.get("review_daily_cap", self.default_cap)
        try:
            return int(raw)
        except (TypeError, ValueError):
            raise forms.ValidationError("The daily cap is a whole number; nothing was changed.") from None


# ---------------------------------------------------------------- console import


class ImportConfirmForm(forms.Form):
    gated = Flag()
