"""Governance records: review items (contradictions, quarantined writes), with more to come."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

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
