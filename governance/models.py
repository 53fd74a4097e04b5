"""Governance records: review items, retention policies, import jobs, gold sets and proposals."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from memory.engine.facts.records import SOURCE_TYPES
from memory.models import Fact, Workspace


class ReviewItem(models.Model):
    """Something a person must decide: two facts that contradict, or a write held back by the gate."""

    class Kind(models.TextChoices):
        CONTRADICTION = "contradiction", "contradiction"
        QUARANTINE = "quarantine", "held write"
        PROMOTION = "promotion", "durable promotion"

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"
        DISMISSED = "dismissed"
        # A fact it names was deleted (purged, shredded): nothing is left to decide.
        CLOSED = "closed"

    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="review_items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    # The fact under review and the fact it conflicts with (e.g. the trusted value of its slot, or
    # the fact a held correction would replace). Deleting a fact never deletes its items: they are
    # closed with a reason, and keep the memory ids they named.
    fact = models.ForeignKey(Fact, on_delete=models.SET_NULL, related_name="+", null=True, blank=True)
    other_fact = models.ForeignKey(Fact, on_delete=models.SET_NULL, related_name="+", null=True, blank=True)
    fact_memory_id = models.CharField(max_length=128, blank=True, default="")
    other_memory_id = models.CharField(max_length=128, blank=True, default="")
    # The facts' origins, kept on the item so the queue filters by origin without reading facts.
    fact_origin_key = models.CharField(max_length=900, blank=True, default="")
    other_origin_key = models.CharField(max_length=900, blank=True, default="")
    reason = models.CharField(max_length=1000)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=["contradiction", "quarantine", "promotion"]), name="review_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=["open", "resolved", "dismissed", "closed"]), name="review_status_valid"),
            # One open item per question: a second run or a repeated write never duplicates it.
            models.UniqueConstraint(
                fields=["workspace", "kind", "fact", "other_fact"],
                condition=Q(status="open"),
                name="review_one_open_item",
            ),
        ]
        indexes = [
            models.Index(fields=["workspace", "status", "kind"], name="review_queue_idx"),
            # The default view: a workspace's open items, newest first.
            models.Index(fields=["workspace", "status", "-created_at", "-id"], name="review_queue_newest_idx"),
        ]

    def save(self, *args, **kwargs):
        # The ids outlive the rows: a closed item still says which facts it was about.
        if self.fact_id and not self.fact_memory_id:
            self.fact_memory_id, self.fact_origin_key = self.fact.memory_id, self.fact.origin_key
        if self.other_fact_id and not self.other_memory_id:
            self.other_memory_id, self.other_origin_key = self.other_fact.memory_id, self.other_fact.origin_key
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"


class RetentionPolicy(models.Model):
    """One retention rule of a workspace: which facts (scope), how old (rule), and what happens (action).

    Every edit bumps `version` and is recorded in the event log; the compiled form that recall
    enforces is kept on the workspace (`Workspace.expiry_rules`). Empty scope lists mean "any".
    """

    class OriginKind(models.TextChoices):
        ANY = "", "any origin"
        OWNER = "owner", "the owner"
        CHANNEL = "channel", "channel peers"

    class Basis(models.TextChoices):
        CREATED = "created", "since it was written"
        LAST_USED = "last_used", "since it was last used"

    class Trust(models.TextChoices):
        ANY = "", "any source"
        TRUSTED = "trusted", "trusted sources"
        UNTRUSTED = "untrusted", "untrusted sources"

    class Action(models.TextChoices):
        ARCHIVE = "archive", "archive (reversible)"
        PURGE = "purge", "purge (rows gone, receipt kept)"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="retention_policies")
    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField(default=1)
    enabled = models.BooleanField(default=True)
    # Scope.
    origin_kind = models.CharField(max_length=8, choices=OriginKind.choices, blank=True, default="")
    origin_key = models.CharField(max_length=900, blank=True, default="")
    segments = models.JSONField(default=list, blank=True)
    classifications = models.JSONField(default=list, blank=True)
    tiers = models.JSONField(default=list, blank=True)
    trust = models.CharField(max_length=10, choices=Trust.choices, blank=True, default="")
    # Rule: older than `max_age_seconds` measured from `basis`.
    basis = models.CharField(max_length=10, choices=Basis.choices, default=Basis.CREATED)
    max_age_seconds = models.PositiveBigIntegerField()
    keep_confirmed = models.BooleanField(default=True)
    keep_permanent = models.BooleanField(default=True, help_text="permanent-tier (pinned) facts are kept")
    action = models.CharField(max_length=8, choices=Action.choices, default=Action.ARCHIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="retention_policy_unique_name"),
            models.CheckConstraint(condition=Q(max_age_seconds__gte=1), name="retention_policy_age_positive"),
            models.CheckConstraint(condition=Q(basis__in=["created", "last_used"]), name="retention_policy_basis_valid"),
            models.CheckConstraint(condition=Q(action__in=["archive", "purge"]), name="retention_policy_action_valid"),
            models.CheckConstraint(condition=Q(origin_kind__in=["", "owner", "channel"]), name="retention_policy_origin_kind_valid"),
            models.CheckConstraint(condition=Q(trust__in=["", "trusted", "untrusted"]), name="retention_policy_trust_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class ImportJob(models.Model):
    """A facts.jsonl uploaded from the console: previewed first, imported by a django-q2 worker on
    confirmation, its progress kept here so the page can show a bar whatever process runs it."""

    class Status(models.TextChoices):
        PREVIEWED = "previewed"
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    file_name = models.CharField(max_length=255)
    path = models.CharField(max_length=1000)  # the upload, kept under TIDELINE_VAR_DIR until the import ends
    size = models.PositiveBigIntegerField(default=0)
    gated = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PREVIEWED)
    lines = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    preview = models.JSONField(default=dict, blank=True)
    report = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=1000, blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)
    # Times a worker started it: a worker that finds it interrupted (its worker killed) resumes it
    # until governance.services.imports.MAX_STARTS, then marks it failed for a person to resume.
    starts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["previewed", "queued", "running", "done", "failed", "cancelled"]),
                name="import_job_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"import #{self.pk} {self.file_name} ({self.status})"


class GoldSet(models.Model):
    """A workspace's gold set: queries a person wrote, each with the facts that should answer it.

    Two kinds. A *live* set (a scaffold of the workspace's own facts, or cases added from the recall
    playground) names this workspace's facts by memory id and is scored against the workspace as it
    is. A *standalone* set (an uploaded gold JSON) carries its own facts, which an evaluation seeds
    into a throwaway workspace. Only an approved set with no placeholder query counts for the gate;
    any edit takes the approval back.
    """

    class Kind(models.TextChoices):
        LIVE = "live", "this workspace's facts"
        STANDALONE = "standalone", "its own facts"

    class Source(models.TextChoices):
        UPLOAD = "upload"
        SCAFFOLD = "scaffold"
        PLAYGROUND = "playground"
        SIGNALS = "signals"  # cases accepted from gold-case candidates (GoldCandidate)

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="gold_sets")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    source = models.CharField(max_length=12, choices=Source.choices)
    # Standalone sets only: the facts in the harness's format (key, content, segment, …).
    facts = models.JSONField(default=list, blank=True)
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                    related_name="+")  # fmt: skip
    approved_by_name = models.CharField(max_length=200, blank=True, default="")
    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="gold_set_unique_name"),
            models.CheckConstraint(condition=Q(kind__in=["live", "standalone"]), name="gold_set_kind_valid"),
        ]

    @property
    def approved(self) -> bool:
        return self.approved_at is not None

    def __str__(self) -> str:
        return self.name


class GoldCase(models.Model):
    """One query of a gold set and the keys (live sets: memory ids) of the facts that answer it.
    No relevant keys makes it an abstention case: nothing should come back."""

    gold_set = models.ForeignKey(GoldSet, on_delete=models.CASCADE, related_name="cases")
    case_id = models.CharField(max_length=100)
    query = models.CharField(max_length=1000)
    relevant_keys = models.JSONField(default=list, blank=True)
    category = models.CharField(max_length=100, blank=True, default="uncategorized")
    # For a scaffold case: what the fact says, so the person knows what to ask for (never scored).
    hint = models.CharField(max_length=1000, blank=True, default="")
    position = models.PositiveIntegerField(default=0)
    edited_by = models.CharField(max_length=200, blank=True, default="")
    edited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["gold_set", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["gold_set", "case_id"], name="gold_case_unique_id")]

    def __str__(self) -> str:
        return f"{self.gold_set} {self.case_id}"


class Proposal(models.Model):
    """A self-improvement proposal: a change to what memory returns, evaluated on the workspace's
    approved gold sets and applied only after a second person approved it (ENGINE-SPEC §7).

    `change` says what it does: retract facts (through memory's archive primitive) or write a new
    tuning version (recall settings and maintenance thresholds). Applying records what it did, so a
    revert restores exactly the state before it.
    """

    class Change(models.TextChoices):
        RETRACT = "retract", "retract facts"
        TUNING = "tuning", "change settings"

    class Source(models.TextChoices):
        TELEMETRY = "telemetry", "down-votes"
        RECALL_MISSES = "recall_misses", "recall misses"
        THRESHOLDS = "thresholds", "maintenance thresholds"
        MANUAL = "manual", "manual"

    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        APPLIED = "applied"
        REJECTED = "rejected"
        REVERTED = "reverted"

    class Evaluation(models.TextChoices):
        NONE = "none", "not evaluated"
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="proposals")
    change = models.CharField(max_length=10, choices=Change.choices)
    source = models.CharField(max_length=16, choices=Source.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    title = models.CharField(max_length=300)
    rationale = models.TextField()
    # Retract: the facts. Tuning: the values it proposes, and the version they were proposed against.
    fact_ids = models.JSONField(default=list, blank=True)
    tuning = models.JSONField(default=dict, blank=True)
    base_version = models.PositiveIntegerField(default=0)
    # Telemetry proposals are not made twice for the same thing while one is open.
    fingerprint = models.CharField(max_length=64, blank=True, default="")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="+")  # fmt: skip
    author_name = models.CharField(max_length=200)  # a username, or "telemetry"
    created_at = models.DateTimeField(auto_now_add=True)
    # Evaluation (run by a django-q2 worker; the page polls these).
    evaluation = models.CharField(max_length=8, choices=Evaluation.choices, default=Evaluation.NONE)
    eval_done = models.PositiveIntegerField(default=0)
    eval_total = models.PositiveIntegerField(default=0)
    eval_error = models.CharField(max_length=1000, blank=True, default="")
    report = models.JSONField(default=dict, blank=True)
    clears_bar = models.BooleanField(null=True, blank=True)
    bar_reason = models.CharField(max_length=1000, blank=True, default="")
    evaluated_at = models.DateTimeField(null=True, blank=True)
    evaluated_version = models.PositiveIntegerField(null=True, blank=True)
    evaluated_gold = models.CharField(max_length=64, blank=True, default="")
    # Decision.
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+")  # fmt: skip
    decided_by_name = models.CharField(max_length=200, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.CharField(max_length=1000, blank=True, default="")
    # Apply and revert.
    applied_by_name = models.CharField(max_length=200, blank=True, default="")
    applied_at = models.DateTimeField(null=True, blank=True)
    applied = models.JSONField(default=dict, blank=True)  # what apply did: versions, or facts it archived
    reverted_by_name = models.CharField(max_length=200, blank=True, default="")
    reverted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(change__in=["retract", "tuning"]), name="proposal_change_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "approved", "applied", "rejected", "reverted"]),
                name="proposal_status_valid",
            ),
            models.UniqueConstraint(
                fields=["workspace", "fingerprint"],
                condition=Q(status__in=["pending", "approved"]) & ~Q(fingerprint=""),
                name="proposal_one_open_per_fingerprint",
            ),
        ]
        indexes = [models.Index(fields=["workspace", "status", "-created_at"], name="proposal_inbox_idx")]

    def __str__(self) -> str:
        return f"proposal #{self.pk} ({self.status})"


class GoldCandidate(models.Model):
    """A gold case proposed by what happened, never approved by itself: an agent judged a hit for a
    query (an up-vote says the fact answers it; a down-vote that it does not). A person accepts it
    (into the live set "from-signals", whose approval that withdraws), edits it first, or rejects it."""

    class Source(models.TextChoices):
        UP_VOTE = "up_vote", "an agent up-voted this hit"
        DOWN_VOTE = "down_vote", "an agent down-voted this hit"
        WRITTEN_AFTER = "written_after", "recall found nothing, then this fact was written"
        VERDICT = "verdict", "a reviewer's verdict replaced what recall served"

    class Status(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="gold_candidates")
    query = models.TextField()
    memory_id = models.CharField(max_length=64)  # the hit that was judged, or the fact that answers
    source = models.CharField(max_length=16, choices=Source.choices)
    actor = models.CharField(max_length=200)  # who judged it (an agent's token, a person)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by_name = models.CharField(max_length=200, blank=True, default="")
    case = models.ForeignKey(GoldCase, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "status", "-created_at"], name="gold_candidate_open_idx")]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "query", "memory_id", "source"], condition=models.Q(status="open"),
                                    name="gold_candidate_open_once"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"gold candidate #{self.pk} ({self.source}, {self.status})"


class ProposalBar(models.Model):
    """What this workspace asks of a recall-settings proposal (`governance.engine.proposals.Bar`), set
    by an admin; a workspace without a row asks the default (answers first)."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="proposal_bar")
    noise_weight = models.FloatField(default=0.0)
    hit_allowance = models.FloatField(default=0.01)
    updated_by_name = models.CharField(max_length=200, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(noise_weight__gte=0) & Q(noise_weight__lte=1), name="bar_noise_weight_range"),
            models.CheckConstraint(condition=Q(hit_allowance__gte=0) & Q(hit_allowance__lte=1),
                                   name="bar_hit_allowance_range"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"proposal bar of {self.workspace_id}"


class ServedRecall(models.Model):
    """One recall an agent was served (`memory.signals.recall_served`): the query, the facts it got in
    order, and the settings version that ranked them. Kept `TIDELINE_RECALL_LOG_DAYS` (14 by default)
    and deleted with its origin's shred, so a proposal can show what changed in real traffic and a
    recall that found nothing can meet the write that answers it."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    origin_key = models.CharField(max_length=900)
    query = models.TextField()
    memory_ids = models.JSONField(default=list, blank=True)  # what came back, best first ([]: nothing relevant)
    top_id = models.CharField(max_length=64, blank=True, default="")  # memory_ids[0], or "" for nothing
    settings_version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["workspace", "-at"], name="served_recall_recent_idx"),
            models.Index(fields=["workspace", "origin_key", "-at"], name="served_recall_origin_idx"),
            models.Index(fields=["workspace", "top_id"], name="served_recall_top_idx"),
            models.Index(fields=["at"], name="served_recall_age_idx"),
        ]

    def __str__(self) -> str:
        return f"recall served in {self.workspace_id} at {self.at:%Y-%m-%d %H:%M}"


class SettingsSearch(models.Model):
    """A recall-settings search behind a recall-miss proposal, run by the worker: its progress, and
    what it found (a proposal, or why there is nothing to propose) for the proposals page."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="settings_searches")
    requested_by_name = models.CharField(max_length=200)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    reason = models.CharField(max_length=1000, blank=True, default="")  # what the search found, in words
    proposal = models.ForeignKey(Proposal, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "-created_at"], name="settings_search_recent_idx")]

    def __str__(self) -> str:
        return f"settings search #{self.pk} of {self.workspace_id} ({self.status})"

    @property
    def running(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def percent(self) -> int:
        return min(100, int(100 * self.done / self.total)) if self.total else 0


class ApiToken(models.Model):
    """An agent's key to one workspace over the HTTP API and MCP (docs/SECURITY.md), bound to an origin scope,
    verbs and a clearance (`governance/engine/tokens.py`). Only the SHA-256 of the token is kept; the
    token itself is shown once, when it is made."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)  # the token's first characters, to tell tokens apart
    digest = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=900)  # owner | channel:C/V/S[@A] | channel:C/*
    verbs = models.JSONField(default=list)
    clearance = models.CharField(max_length=10, default="PII")
    # The source type of what speaks through it: a write naming none is stored as this, and none may
    # name a more trusted one (governance/engine/tokens.py). New tokens: untrusted tool_output.
    source_type = models.CharField(max_length=32, default="tool_output")
    expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=200)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=200, blank=True, default="")
    last_used_at = models.DateTimeField(null=True, blank=True)
    use_count = models.PositiveBigIntegerField(default=0)  # every authenticated call
    read_count = models.PositiveBigIntegerField(default=0)  # recalls and other reads (no event each)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="api_token_name_unique"),
            models.CheckConstraint(condition=Q(clearance__in=["PUBLIC", "INTERNAL", "PII"]), name="api_token_clearance"),
            models.CheckConstraint(condition=Q(source_type__in=list(SOURCE_TYPES)), name="api_token_source_type"),
        ]

    def __str__(self) -> str:
        return f"token {self.name} ({self.prefix}…)"


class ApiCallCount(models.Model):
    """A token's API and MCP calls in one minute, for the rate limit (governance/services/api_rate.py):
    counted by one atomic statement in the database every web process and host shares."""

    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="+")
    minute = models.BigIntegerField()  # minutes since the epoch
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["token", "minute"], name="api_call_count_unique")]


class Webhook(models.Model):
    """An URL an admin pointed at some of a workspace's governance events (governance/engine/webhooks.py).

    The secret signs every call; it is kept to sign with (a receiver holds the same one) and shown to
    admins once, when made or rotated."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    events = models.JSONField(default=list)  # names from governance.engine.webhooks.EVENTS
    secret = models.CharField(max_length=100)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=200)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.workspace_id}"


class WebhookDelivery(models.Model):
    """One call to make, made, or given up: written in the transaction of the change it reports (so a
    crash loses none), then sent and retried by the worker."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    last_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due")]

    def __str__(self) -> str:
        return f"{self.event} to webhook {self.webhook_id}: {self.status}"


class NotificationPreference(models.Model):
    """What a person wants to be e-mailed (their account page): approvals awaiting them, and a daily
    digest of the review queues they own. Without a row both are on (where they have an address)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    approvals = models.BooleanField(default=True)
    review_digest = models.BooleanField(default=True)
    digest_sent_on = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"notifications of {self.user_id}"
