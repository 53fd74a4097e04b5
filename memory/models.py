"""Storage for Tideline's memory: workspaces, facts, typed links and the append-only event log.

Invariants live in the database (check and unique constraints, plus triggers added by migration
0002: links never cross workspaces; on PostgreSQL events refuse UPDATE and DELETE), not only in
forms. Fact content and metadata are sealed per origin (see `memory.sealing`); the `content` and
`metadata` properties make that transparent to the rest of the code.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual

from memory import sealing
from memory.engine.facts import records as R


def _choices(values) -> list[tuple[str, str]]:
    return [(v, v.replace("_", " ")) for v in values]


def _in(field: str, values) -> Q:
    return Q(**{f"{field}__in": list(values)})


class Workspace(models.Model):
    """One owner's memory (the tenant). `revision` counts committed mutations, gap-free."""

    name = models.SlugField(max_length=64, unique=True)
    revision = models.BigIntegerField(default=0)
    # Counts written batches of recall uses (memory.services.recall.reinforcement). Apart from `revision`:
    # a use is silent (no event) and changes only a fact's two use columns, which every process's
    # recall index re-reads from the facts stamped with a later `uses_version`.
    uses_version = models.BigIntegerField(default=0, db_default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Review settings (ENGINE-SPEC Decision 17). Durable promotions: a permanent-tier write from a
    # non-owner origin, a PII write from a channel peer, or a peer's correction is held for an approver.
    hold_durable_promotions = models.BooleanField(default=True)
    # An untrusted write the gate confined (kept, down-weighted) is held for review too.
    hold_confined_writes = models.BooleanField(default=False)
    # At most this many contradiction items are opened per day (UTC), however often the pass runs.
    review_daily_cap = models.PositiveIntegerField(default=50)
    # Retention as recall enforces it: the compiled rules of the workspace's enabled retention
    # policies (memory.engine.lifecycle.expiry), written by governance whenever a policy changes. A fact one of
    # them expires never surfaces in recall, even before the scheduled run archives or purges it.
    expiry_rules = models.JSONField(default=list, blank=True)
    # Tuning (memory.engine.tuning): the recall and maintenance knobs in force, and their version (0:
    # the defaults). Changed only through memory.services.tuning, which keeps every version as a row.
    tuning = models.JSONField(default=dict, blank=True)
    tuning_version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=Q(revision__gte=0), name="workspace_revision_nonnegative")]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "owner (reviews and curates memory)"
        APPROVER = "approver", "approver (gates self-improvement proposals)"
        ADMIN = "admin", "admin (export, purge, retention, shred, members)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace", "role"], name="membership_unique_role"),
            models.CheckConstraint(condition=_in("role", ["owner", "approver", "admin"]), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.workspace}"


class SealedField(models.BinaryField):
    """Ciphertext column. The owning model seals pending plaintext just before it is written."""

    def pre_save(self, model_instance, add):
        model_instance.seal_pending()
        return super().pre_save(model_instance, add)


class Fact(models.Model):
    """One memory record (ENGINE-SPEC §1.2): every live and reserved field, origin as columns."""

    class OriginKind(models.TextChoices):
        OWNER = "owner"
        CHANNEL = "channel"

    # No index of its own: the composite indexes lead with it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="facts", db_index=False)
    memory_id = models.CharField(max_length=128)

    sealed_content = SealedField()
    content_length = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)  # indexed alone below (fact_content_hash_idx)
    sealed_metadata = SealedField(null=True)

    segment = models.CharField(max_length=16, choices=_choices(R.SEGMENTS))
    tier = models.CharField(max_length=16, choices=_choices(R.TIERS))
    importance = models.FloatField()
    decay_rate = models.FloatField()
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField()
    uses_version = models.BigIntegerField(default=0, db_default=0)  # the workspace's uses_version of its last written use
    created_at = models.DateTimeField()
    lifecycle = models.CharField(max_length=16, choices=_choices(R.LIFECYCLES), default="active")
    archived_at = models.DateTimeField(null=True, blank=True)
    pruned_at = models.DateTimeField(null=True, blank=True)
    # A write held for review: when it was held, and when a verdict admitted it (null while held, or
    # when it was blocked). Point-in-time recall sees a held fact only from `admitted_at` on.
    held_at = models.DateTimeField(null=True, blank=True)
    admitted_at = models.DateTimeField(null=True, blank=True)

    # Origin (createdBy) as columns; `origin_key` is the bucket every cross-fact operation groups by.
    origin_kind = models.CharField(max_length=8, choices=OriginKind.choices, default=OriginKind.OWNER)
    channel_id = models.CharField(max_length=200, blank=True, default="")
    conversation_id = models.CharField(max_length=200, blank=True, default="")
    session_key = models.CharField(max_length=200, blank=True, default="")
    account_id = models.CharField(max_length=200, blank=True, default="")
    origin_key = models.CharField(max_length=900)
    # False for a legacy record that had no createdBy (read as the owner's, exported without one).
    origin_recorded = models.BooleanField(default=True)

    source_type = models.CharField(max_length=24, choices=_choices(R.SOURCE_TYPES), null=True, blank=True)
    source_turn = models.CharField(max_length=200, null=True, blank=True)
    written_by = models.CharField(max_length=200, blank=True, default="", help_text="user, agent token or import")
    subject_key = models.CharField(max_length=200, null=True, blank=True)
    supersedes = models.JSONField(default=list, blank=True)
    source_pointers = models.JSONField(default=list, blank=True)
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=_choices(R.STATUSES), null=True, blank=True)
    modality = models.CharField(max_length=16, choices=_choices(R.MODALITIES), null=True, blank=True)
    media_pointer = models.CharField(max_length=1000, null=True, blank=True)
    classification = models.CharField(
        max_length=8, choices=_choices(R.CLASSIFICATIONS), default=R.DEFAULT_CLASSIFICATION
    )
    intent_scope = models.CharField(max_length=200, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "memory_id"], name="fact_memory_id_unique"),
            # Lets links reference (workspace, fact) together, so a link cannot cross workspaces.
            models.UniqueConstraint(fields=["workspace", "id"], name="fact_workspace_id_unique"),
            models.CheckConstraint(
                condition=Q(content_length__gte=1, content_length__lte=R.MAX_FACT_CONTENT_CHARS),
                name="fact_content_length_1_to_1000",
            ),
            # The ciphertext itself is bounded: 1000 characters are at most 4000 UTF-8 bytes,
            # plus version byte, nonce and tag.
            models.CheckConstraint(
                condition=Q(
                    LessThanOrEqual(Length("sealed_content"), 4000 + 1 + 12 + 16),
                    GreaterThanOrEqual(Length("sealed_content"), 1 + 12 + 16 + 1),
                ),
                name="fact_sealed_content_bounded",
            ),
            models.CheckConstraint(condition=Q(importance__gte=0, importance__lte=1), name="fact_importance_0_1"),
            models.CheckConstraint(
                condition=Q(confidence__isnull=True) | Q(confidence__gte=0, confidence__lte=1),
                name="fact_confidence_0_1",
            ),
            models.CheckConstraint(condition=Q(decay_rate__gte=0), name="fact_decay_rate_nonnegative"),
            models.CheckConstraint(condition=_in("segment", R.SEGMENTS), name="fact_segment_valid"),
            models.CheckConstraint(condition=_in("tier", R.TIERS), name="fact_tier_valid"),
            models.CheckConstraint(condition=_in("lifecycle", R.LIFECYCLES), name="fact_lifecycle_valid"),
            models.CheckConstraint(
                condition=Q(source_type__isnull=True) | _in("source_type", R.SOURCE_TYPES),
                name="fact_source_type_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__isnull=True) | _in("status", R.STATUSES), name="fact_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(modality__isnull=True) | _in("modality", R.MODALITIES), name="fact_modality_valid"
            ),
            models.CheckConstraint(
                condition=_in("classification", R.CLASSIFICATIONS), name="fact_classification_valid"
            ),
            models.CheckConstraint(
                condition=(Q(origin_kind="owner") & Q(origin_key="owner"))
                | (Q(origin_kind="channel") & Q(origin_key__startswith="channel:")),
                name="fact_origin_consistent",
            ),
        ]
        indexes = [
            models.Index(fields=["workspace", "origin_key", "lifecycle"], name="fact_scope_idx"),
            # A keyed HMAC is unique enough on its own, and an index that leads with it is the one the
            # planner cannot trade for a workspace index when a new workspace has no statistics yet.
            models.Index(fields=["content_hash"], name="fact_content_hash_idx"),
            models.Index(fields=["workspace", "origin_key", "subject_key"], name="fact_slot_idx"),
            models.Index(fields=["workspace", "created_at"], name="fact_created_idx"),
            models.Index(fields=["workspace", "segment", "lifecycle"], name="fact_segment_idx"),
            models.Index(fields=["workspace", "uses_version"], name="fact_uses_idx"),
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._plain_content: str | None = None
        self._plain_payload: dict | None = None
        self._dirty_content = False
        self._dirty_payload = False
        super().__init__(*args, **kwargs)

    def __str__(self) -> str:
        return self.memory_id

    # ------------------------------------------------------------ origin

    @property
    def origin(self) -> R.Origin:
        return R.Origin(self.origin_kind, self.channel_id, self.conversation_id, self.session_key, self.account_id)

    @origin.setter
    def origin(self, value: R.Origin | str | dict | None) -> None:
        origin = R.parse_origin(value)
        self.origin_kind = origin.kind
        self.channel_id = origin.channel_id
        self.conversation_id = origin.conversation_id
        self.session_key = origin.session_key
        self.account_id = origin.account_id
        self.origin_key = origin.key

    @property
    def trust_class(self) -> str:
        return R.trust_class(self.source_type)

    # ------------------------------------------------------------ sealed content and metadata

    @property
    def content(self) -> str:
        if self._plain_content is None:
            raw = sealing.unseal(self.workspace_id, self.origin_key, "content", self.sealed_content)
            self._plain_content = raw.decode("utf-8")
        return self._plain_content

    @content.setter
    def content(self, value: str) -> None:
        self._plain_content = value
        self._dirty_content = True
        self.content_length = len(value)

    @property
    def metadata(self) -> dict:
        return self._payload().get("metadata") or {}

    @metadata.setter
    def metadata(self, value: dict | None) -> None:
        payload = dict(self._payload()) if (self.sealed_metadata or self._plain_payload) else {}
        payload["metadata"] = value or {}
        self._set_payload(payload)

    @property
    def extra(self) -> dict:
        """Interchange keys with no column (unknown keys, a stored `embedding`), kept for round trips."""
        return self._payload().get("extra") or {}

    @extra.setter
    def extra(self, value: dict | None) -> None:
        payload = dict(self._payload()) if (self.sealed_metadata or self._plain_payload) else {}
        payload["extra"] = value or {}
        self._set_payload(payload)

    def _payload(self) -> dict:
        if self._plain_payload is None:
            if not self.sealed_metadata:
                return {}
            raw = sealing.unseal(self.workspace_id, self.origin_key, "metadata", self.sealed_metadata)
            self._plain_payload = json.loads(raw)
        return self._plain_payload

    def _set_payload(self, payload: dict) -> None:
        self._plain_payload = payload
        self._dirty_payload = True

    @property
    def is_readable(self) -> bool:
        """False once the origin's key was destroyed (crypto-shred)."""
        try:
            self.content  # noqa: B018 - the read is the check
        except sealing.KeyDestroyedError:
            return False
        return True

    def seal_pending(self) -> None:
        """Encrypt plaintext set since the last save (called by SealedField.pre_save and bulk paths)."""
        if self._dirty_content:
            text = self._plain_content or ""
            self.sealed_content = sealing.seal(self.workspace_id, self.origin_key, "content", text.encode("utf-8"))
            self.content_hash = sealing.content_hash(
                self.workspace_id, self.origin_key, R.normalize_for_hash(text)
            )
            self._dirty_content = False
        if self._dirty_payload:
            payload = {k: v for k, v in (self._plain_payload or {}).items() if v}
            self.sealed_metadata = (
                sealing.seal(self.workspace_id, self.origin_key, "metadata", json.dumps(payload).encode())
                if payload
                else None
            )
            self._dirty_payload = False


REASON_UNREADABLE = "(reason unreadable: the origin's key was destroyed)"


class LinkQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args: Any, **kwargs: Any):
        # `SealedField.pre_save` would seal each row on its own, fetching its from_fact's origin
        # with one query per row; sealing the batch first costs one query for all of them.
        objs = list(objs)
        Link.seal_reasons(objs)
        return super().bulk_create(objs, *args, **kwargs)


class Link(models.Model):
    """A typed, directed edge between two facts of one workspace (ENGINE-SPEC §5.1).

    The reason is free text a writer supplied ("vegetarian vs a meat sandwich"), so it is content:
    it is sealed like the fact's own content and dies with a crypto-shred. It is sealed under the
    origin of `from_fact`, because a link belongs to its source's record (it is exported on that
    fact's line and was written with it). A link may point at a fact of another origin (writers
    and imports name any fact of the workspace by id); its reason still follows its source, so
    shredding the target's origin leaves the source's own words readable and vice versa.
    """

    # No index of their own: `link_kind_idx` leads with the workspace and `link_unique_per_kind` with
    # the source, and every index costs each of the millions of links a dream adds (migration 0018).
    # No foreign key of their own for the two facts either: on PostgreSQL the composite keys
    # (workspace, fact) of migration 0002 already refuse a missing or foreign fact, and on SQLite its
    # triggers do (migration 0019; each key was one more check per link written). Nor for the
    # workspace: it is the source fact's, by the same composite key (migration 0020).
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="links", db_index=False,
                                  db_constraint=False)  # fmt: skip
    from_fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="outbound_links", db_index=False,
                                  db_constraint=False)  # fmt: skip
    to_fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="inbound_links", null=True, blank=True,
                                db_constraint=False)  # fmt: skip
    # An imported link whose target is not in the workspace keeps the target's id here, so the
    # record round-trips; readers skip it like the original does (ENGINE-SPEC §6.1).
    dangling_target = models.CharField(max_length=128, blank=True, default="")
    kind = models.CharField(max_length=16, choices=_choices(R.LINK_KINDS))
    # The link's reason, sealed under the origin of `from_fact` (see `reason`); NULL when there is none.
    sealed_reason = SealedField(null=True, blank=True)
    strength = models.PositiveSmallIntegerField(null=True, blank=True)
    weight = models.FloatField(default=1.0)
    position = models.PositiveIntegerField(default=0, help_text="order within the fact's links")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["from_fact_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["from_fact", "to_fact", "kind"], name="link_unique_per_kind"),
            models.CheckConstraint(condition=_in("kind", R.LINK_KINDS), name="link_kind_valid"),
            models.CheckConstraint(
                condition=Q(strength__isnull=True) | Q(strength__gte=1, strength__lte=5), name="link_strength_1_5"
            ),
            models.CheckConstraint(
                condition=(Q(to_fact__isnull=False) & Q(dangling_target=""))
                | (Q(to_fact__isnull=True) & ~Q(dangling_target="")),
                name="link_target_xor_dangling",
            ),
        ]
        indexes = [models.Index(fields=["workspace", "kind"], name="link_kind_idx")]

    objects = LinkQuerySet.as_manager()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._plain_reason: str | None = None
        self._dirty_reason = False
        super().__init__(*args, **kwargs)

    def __str__(self) -> str:
        return f"{self.from_fact_id} -{self.kind}-> {self.to_fact_id or self.dangling_target}"

    @property
    def target_memory_id(self) -> str:
        return self.to_fact.memory_id if self.to_fact_id else self.dangling_target

    @property
    def origin_key(self) -> str:
        """The origin the reason is sealed under: the source fact's."""
        return self.from_fact.origin_key

    @property
    def reason(self) -> str:
        """The plaintext reason ("" when none; a placeholder once the origin's key was destroyed)."""
        if self._plain_reason is None:
            if not self.sealed_reason:
                return ""
            try:
                raw = sealing.unseal(self.workspace_id, self.origin_key, LINK_REASON_FIELD, self.sealed_reason)
            except sealing.KeyDestroyedError:
                return REASON_UNREADABLE
            self._plain_reason = raw.decode("utf-8")
        return self._plain_reason

    @reason.setter
    def reason(self, value: str | None) -> None:
        self._plain_reason = value or ""
        self._dirty_reason = True

    def seal_pending(self, origin_key: str | None = None) -> None:
        """Encrypt a reason set since the last save (called by SealedField.pre_save and bulk paths)."""
        if not self._dirty_reason:
            return
        text = self._plain_reason or ""
        self.sealed_reason = (
            seal_link_reason(self.workspace_id, origin_key or self.origin_key, text) if text else None
        )
        self._dirty_reason = False

    @classmethod
    def seal_reasons(cls, links: list[Link]) -> None:
        """Seal the pending reasons of many links with one query for their sources' origins."""
        pending = [link for link in links if link._dirty_reason and link._plain_reason]
        origins = dict(
            Fact.objects.filter(pk__in={link.from_fact_id for link in pending}).values_list("pk", "origin_key")
        ) if pending else {}  # fmt: skip
        for link in links:
            link.seal_pending(origins.get(link.from_fact_id))


LINK_REASON_FIELD = "link_reason"


def seal_link_reason(workspace_id: int, origin_key: str, reason: str) -> bytes:
    """A link reason sealed under its source's origin key, which must already exist: the source
    fact was sealed under it first, so a missing key means a shredded origin, never a new one."""
    sealing.keyring.data_key(workspace_id, origin_key, create=False)
    return sealing.seal(workspace_id, origin_key, LINK_REASON_FIELD, reason.encode("utf-8"))


def link_reason_opener(workspace_id: int, origin_key: str, *, unreadable: str | None = REASON_UNREADABLE):
    """`bytes | None -> str | None` for many reasons of one origin (one key lookup): None when there
    is no reason, `unreadable` when the origin's key was destroyed."""
    try:
        open_one = sealing.unsealer(workspace_id, origin_key, LINK_REASON_FIELD)
    except sealing.KeyDestroyedError:
        return lambda sealed: unreadable if sealed else None
    return lambda sealed: open_one(sealed).decode("utf-8") if sealed else None


class TuningVersion(models.Model):
    """One version of a workspace's tuning, kept for history and revert (never edited, never deleted)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="tuning_versions")
    version = models.PositiveIntegerField()
    values = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()
    actor = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=1000, blank=True, default="")
    # What made it: "proposal #12", "revert of proposal #12", "manual".
    source = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["workspace", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "version"], name="tuning_version_unique"),
            models.CheckConstraint(condition=Q(version__gte=1), name="tuning_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.workspace} tuning v{self.version}"


class KeyStoreBinding(models.Model):
    """Which key store and master key this database's sealed data belongs to (at most one row).

    Written when the first data key is made; `manage.py check`, `tideline serve` and every write
    compare the running configuration with it and refuse a mismatch, so a wrong
    `TIDELINE_KEYSTORE_DIR` or master key can never mint a second key for an existing origin.
    Only fingerprints are stored: neither value reveals a key.
    """

    keystore_id = models.CharField(max_length=64, help_text="random id written into the key store when it was made")
    master_fingerprint = models.CharField(max_length=64, help_text="keyed digest of the master key")
    bound_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="keystore_binding_single_row")]

    def __str__(self) -> str:
        return f"key store {self.keystore_id[:8]}…"


class FactVector(models.Model):
    """A fact's vector from the optional learned embedder, stamped with that embedder's fingerprint.

    Derived data: recomputed by `tideline reembed` when the embedder changes, never exported. An
    embedding can be inverted back into text, so it is sealed under the fact's origin key like the
    content itself (float16, which keeps cosine to three decimals at half the size) and dies with it.
    """

    # No index of its own: the composite indexes lead with it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="+", db_index=False)
    fact = models.OneToOneField(Fact, on_delete=models.CASCADE, related_name="vector")
    fingerprint = models.CharField(max_length=120, help_text="which embedder and weights made the vector")
    dims = models.PositiveSmallIntegerField()
    sealed_vector = models.BinaryField()
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["workspace", "fingerprint"], name="factvector_fingerprint_idx")]

    def __str__(self) -> str:
        return f"vector of fact {self.fact_id} ({self.fingerprint})"


class FactTerm(models.Model):
    """One posting of the near-duplicate index: an ACTIVE fact contains this (keyed) token.

    Tokens are stored as a keyed hash under the origin's data key, never as words, so the index
    reveals no content and dies with the origin's key. Rows exist only while their fact is active,
    so a lookup touches live candidates of one origin and trust class only.
    """

    # No index of its own: the composite indexes lead with it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="+", db_index=False)
    # No index of its own: factterm_unique leads with it.
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="terms", db_index=False)
    origin_key = models.CharField(max_length=900)
    trusted = models.BooleanField()
    term = models.BigIntegerField()
    token_count = models.PositiveSmallIntegerField(help_text="distinct tokens of the fact")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["fact", "term"], name="factterm_unique")]
        indexes = [models.Index(fields=["workspace", "origin_key", "trusted", "term"], name="factterm_lookup_idx")]


class TermStat(models.Model):
    """How many active facts of one origin and trust class hold a (keyed) token: picks rare prefixes."""

    # No index of its own: the composite indexes lead with it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="+", db_index=False)
    origin_key = models.CharField(max_length=900)
    trusted = models.BooleanField()
    term = models.BigIntegerField()
    df = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "origin_key", "trusted", "term"], name="termstat_unique"),
        ]


class AppendOnlyError(Exception):
    """Raised on any attempt to change or delete a memory event."""


class EventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("memory events are append-only: they cannot be updated")

    def delete(self):
        raise AppendOnlyError("memory events are append-only: they cannot be deleted")


class EventKind(models.TextChoices):
    """Every kind of event the log holds (the database refuses others: migration 0014)."""

    CREATED = "created"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"
    CONFINED = "confined"
    HELD = "held"
    REVIEWED = "reviewed"
    BLOCKED = "blocked"
    FEEDBACK = "feedback"
    INVALIDATED = "invalidated"
    CONFIRMED = "confirmed"
    EVICTED = "evicted"
    ARCHIVED = "archived"
    RESTORED = "restored"
    PRUNED = "pruned"
    PURGED = "purged"
    SHREDDED = "shredded"
    LINKED = "linked"
    IMPORTED = "imported"
    DREAM_RUN = "dream_run"
    GC_RUN = "gc_run"
    RETENTION_RUN = "retention_run"
    PROPOSAL = "proposal"
    REEMBEDDED = "reembedded"
    WORKSPACE_CREATED = "workspace_created"
    SETTINGS_CHANGED = "settings_changed"
    GOLD_SET = "gold_set"
    EXPORTED = "exported"
    MEMBERS_CHANGED = "members_changed"
    TOKENS_CHANGED = "tokens_changed"
    RECLASSIFIED = "reclassified"
    UNLINKED = "unlinked"  # links removed (an undone review verdict takes away the links it added)


class MemoryEvent(models.Model):
    """One entry of the append-only event log, stamped with the workspace revision it belongs to.

    Events never hold fact content in the clear: they name facts by id and carry hashes, lengths
    and field changes, so the log can be kept forever without becoming an injection store or
    defeating a crypto-shred.
    """

    Kind = EventKind

    # No index of its own: the composite indexes lead with it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="events", db_index=False)
    revision = models.BigIntegerField()
    at = models.DateTimeField()
    kind = models.CharField(max_length=24, choices=Kind.choices)
    actor = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=1000, blank=True, default="")
    fact_ids = models.JSONField(default=list, blank=True)
    data = models.JSONField(default=dict, blank=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["revision", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(revision__gte=1), name="event_revision_positive"),
            # Migration 0014 (a trigger on SQLite): a new kind needs a migration, so the log never
            # holds a kind the console's filter and the exports do not know.
            models.CheckConstraint(condition=Q(kind__in=EventKind.values), name="event_kind_known"),
        ]
        indexes = [
            models.Index(fields=["workspace", "revision"], name="event_revision_idx"),
            models.Index(fields=["workspace", "kind", "at"], name="event_kind_idx"),
        ]

    def __str__(self) -> str:
        return f"r{self.revision} {self.kind}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("memory events are append-only: they cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any):
        raise AppendOnlyError("memory events are append-only: they cannot be deleted")


class GraphPartition(models.Model):
    """A workspace's last Memory Graph communities: fact id → cluster id, and the revision they were
    computed at. Ids only, no fact text, so the partition may live in the database: the next Louvain
    run starts from it, and the console draws with it while the worker computes the next one."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="graph_partition")
    revision = models.BigIntegerField()
    computed_at = models.DateTimeField()
    seconds = models.FloatField()
    communities = models.JSONField(default=dict)
    modularity = models.FloatField(null=True)

    def __str__(self) -> str:
        return f"graph partition of {self.workspace_id} at r{self.revision}"


class PassMark(models.Model):
    """Where a scheduled maintenance pass left a workspace (`memory.services.maintenance.due`): the
    revision its last run saw the workspace at, and when time alone next gives it work (None: not
    within a year). The schedule skips a workspace whose revision has not moved until that time, so a
    night's cost follows what changed, not how many workspaces there are."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pass_marks")
    name = models.CharField(max_length=32)  # the pass: "gc", "dream", "nightly"
    revision = models.BigIntegerField()
    due_at = models.DateTimeField(null=True, blank=True)
    ran_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "name"], name="pass_mark_once")]

    def __str__(self) -> str:
        return f"{self.name} of {self.workspace_id} at r{self.revision}"


class ShredIntent(models.Model):
    """A crypto-shred decided and begun but not yet finished (`memory.services.keys.crypto_shred`).

    Committed before the origin's data key is destroyed, and deleted in the same transaction as the
    `shredded` event that finishes the shred: a process killed in between leaves this row, so the
    shred can be finished by running it again (the console and the CLI say one is unfinished).
    Metadata only, like the event it announces: the origin's key and label, who and why."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="shred_intents")
    origin_key = models.CharField(max_length=900)
    origin_label = models.CharField(max_length=1000, blank=True, default="")
    actor = models.CharField(max_length=200, blank=True, default="")
    reason = models.CharField(max_length=1000, blank=True, default="")
    begun_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["begun_at", "id"]
        constraints = [models.UniqueConstraint(fields=["workspace", "origin_key"], name="shred_intent_once")]

    def __str__(self) -> str:
        return f"unfinished shred of {self.origin_key} in {self.workspace_id}"
