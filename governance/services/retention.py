"""Retention policies of a workspace: edit them (versioned in the event log), preview and apply them.

Every change to a policy (create, edit, enable, disable, delete) is one mutation that bumps the
policy's version, hands memory the compiled rules of ALL enabled policies (`set_expiry_rules`: from
that revision on, recall in every process hides what they expire) and records a `settings_changed`
event with the policy's fields before and after. So a policy is enforced the moment it is saved; a
run (`apply`, nightly or "apply now") then archives or purges what recall already hides.

A run is one transaction per policy, with a `retention_run` event carrying its counts and the
policy's version. Candidates are chosen by database filters (the engine's `selection`), never by
reading every fact. Running again takes nothing: archived facts are no longer active, purged ones
are gone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError
from django.db.models import Q, QuerySet
from django.utils import timezone

from governance.engine import retention as engine
from governance.models import RetentionPolicy
from governance.services import webhooks
from governance.services.acting import actor_text, require_role
from memory.models import Fact, MemoryEvent, Workspace
from memory.services.errors import NotFoundError, RequestError
from memory.services.keys.crypto_shred import resolve_origin
from memory.services.lifecycle.archiving import archive_in_mutation
from memory.services.lifecycle.expiry import set_expiry_rules
from memory.services.mutation import Mutation, mutate
from memory.timestamps import to_ms
from tideline_kit import telemetry

PAGE = 50  # facts listed per page of a preview
SETTING = "retention_policy"


# ---------------------------------------------------------------- reading


def policies(workspace: Workspace) -> list[RetentionPolicy]:
    return list(RetentionPolicy.objects.filter(workspace=workspace).order_by("name", "pk"))


def get_policy(workspace: Workspace, ref: Any) -> RetentionPolicy:
    """A policy of the workspace by id or name; `NotFoundError` otherwise."""
    text = str(ref if ref is not None else "").replace("\x00", "").strip()
    found = RetentionPolicy.objects.filter(workspace=workspace, name=text).first()
    if found is None and text.isdigit():
        found = RetentionPolicy.objects.filter(workspace=workspace, pk=int(text)).first()
    if found is None:
        raise NotFoundError(f"workspace {workspace.name!r} has no retention policy {text!r}")
    return found


def fields_of(policy: RetentionPolicy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in engine.FIELDS}


def rule_of(policy: RetentionPolicy):
    return engine.compile_rule(fields_of(policy), policy=policy.pk, version=policy.version)


def describe(policy: RetentionPolicy) -> dict[str, Any]:
    """The policy as the CLI and the console show it: its fields and its scope and rule in words."""
    return {"id": policy.pk, **fields_of(policy), "version": policy.version, "scope": engine.scope_words(policy.__dict__),
            "rule": engine.rule_words(policy.__dict__), "updated_by": policy.updated_by,
            "updated_at": policy.updated_at.isoformat() if policy.updated_at else None}  # fmt: skip


def recent_runs(workspace: Workspace, limit: int = 20) -> QuerySet:
    return MemoryEvent.objects.filter(workspace=workspace, kind=MemoryEvent.Kind.RETENTION_RUN).order_by("-revision")[:limit]


# ---------------------------------------------------------------- changing


def _validated(workspace: Workspace, fields: Mapping[str, Any], *, every_fact: bool) -> dict[str, Any]:
    fields = dict(fields)
    typed = str(fields.get("origin_key") or "")
    if typed:
        fields["origin_key"] = resolve_origin(typed)  # a label as the console shows it
    try:
        out = engine.validate(fields, every_fact=every_fact)
    except engine.PolicyError as error:
        raise RequestError(f"{'; '.join(error.problems)}; nothing was changed", kind="validation",
                           details=error.problems) from error  # fmt: skip
    _known_origin(workspace, out["origin_key"], typed)
    return out


def _known_origin(workspace: Workspace, origin_key: str, typed: str = "") -> None:
    """A policy for one origin must name one the workspace has facts from: a typo would otherwise be
    a policy that silently covers nothing."""
    if origin_key and not Fact.objects.filter(workspace=workspace, origin_key=origin_key).exists():
        raise RequestError(f"workspace {workspace.name!r} has no facts from origin {(typed or origin_key)!r} (write it as the "
                           "console shows it, e.g. owner or channel:slack/C1/t1); nothing was changed",
                           kind="validation")  # fmt: skip


def _recompile(m: Mutation) -> None:
    enabled = RetentionPolicy.objects.filter(workspace=m.workspace, enabled=True).order_by("pk")
    set_expiry_rules(m, [rule_of(policy) for policy in enabled])


def _record(m: Mutation, policy: RetentionPolicy, change: str, before: dict | None, after: dict | None) -> None:
    m.record(MemoryEvent.Kind.SETTINGS_CHANGED, reason=f"retention policy {policy.name!r} {change} (v{policy.version})",
             setting=SETTING, change=change, policy=policy.pk, name=policy.name, version=policy.version,
             before=before, after=after)  # fmt: skip


def _name_taken(workspace: Workspace, name: str, *, but: int | None = None) -> None:
    taken = RetentionPolicy.objects.filter(workspace=workspace, name=name).exclude(pk=but)
    if taken.exists():
        raise RequestError(f"a retention policy named {name!r} exists already; nothing was changed", kind="conflict")


def create(workspace: Workspace, fields: Mapping[str, Any], *, user=None, actor: str,
           every_fact: bool = False) -> RetentionPolicy:  # fmt: skip
    """A new policy (version 1), enforced from this mutation on if enabled."""
    require_role(user, workspace, "manage_retention", "change retention policies")
    return create_many(workspace, [_validated(workspace, fields, every_fact=every_fact)], user=user, actor=actor)[0]


def create_ladder(workspace: Workspace, mapping: Mapping[str, str], *, by: str = "tiers", user=None, actor: str,
                  prefix: str = "ladder", **common: Any) -> list[RetentionPolicy]:  # fmt: skip
    """Policies from the TTL ladder preset (one per rung used; "never" makes none), in one mutation."""
    if common.get("origin_key"):
        common["origin_key"] = resolve_origin(str(common["origin_key"]))
    try:
        validated = engine.ladder(mapping, by=by, prefix=prefix, **common)
    except engine.PolicyError as error:
        raise RequestError(f"{'; '.join(error.problems)}; nothing was changed", kind="validation",
                           details=error.problems) from error  # fmt: skip
    _known_origin(workspace, validated[0]["origin_key"], str(common.get("origin_key") or ""))
    return create_many(workspace, validated, user=user, actor=actor)


def create_many(workspace: Workspace, validated: list[dict[str, Any]], *, user=None, actor: str) -> list[RetentionPolicy]:
    require_role(user, workspace, "manage_retention", "change retention policies")
    actor = actor_text(actor)
    names = [fields["name"] for fields in validated]
    if len(set(names)) != len(names):
        raise RequestError("two of the new policies have the same name; nothing was changed", kind="conflict")
    for name in names:
        _name_taken(workspace, name)
    made = []
    try:
        with mutate(workspace, actor=actor) as m:
            for fields in validated:
                policy = RetentionPolicy.objects.create(workspace=m.workspace, version=1, updated_by=actor, **fields)
                _record(m, policy, "created", None, fields)
                made.append(policy)
            _recompile(m)
    except IntegrityError as error:  # a concurrent create took the name first
        raise RequestError("a retention policy with that name was just created; nothing was changed",
                           kind="conflict") from error  # fmt: skip
    return made


def edit(workspace: Workspace, ref: Any, changes: Mapping[str, Any], *, user=None, actor: str,
         every_fact: bool | None = None) -> RetentionPolicy:  # fmt: skip
    """Change some fields of a policy (others kept); bumps its version. A policy that already covered
    every fact keeps doing so without `every_fact` being said again; narrowing it to nothing does not."""
    require_role(user, workspace, "manage_retention", "change retention policies")
    actor = actor_text(actor)
    policy = get_policy(workspace, ref)
    before = fields_of(policy)
    wanted = {**before, **{k: v for k, v in changes.items() if k in engine.FIELDS}}
    if every_fact is None:
        every_fact = not engine.has_scope(before) and not engine.has_scope(wanted)
    after = _validated(workspace, wanted, every_fact=every_fact)
    if after == before:
        return policy
    _name_taken(workspace, after["name"], but=policy.pk)
    try:
        with mutate(workspace, actor=actor) as m:
            policy = RetentionPolicy.objects.select_for_update().get(pk=policy.pk)
            before = fields_of(policy)
            for name, value in after.items():
                setattr(policy, name, value)
            policy.version += 1
            policy.updated_by = actor
            policy.save()
            changed = {k for k in after if after[k] != before[k]}
            change = ("enabled" if after["enabled"] else "disabled") if changed == {"enabled"} else "edited"
            _record(m, policy, change, _diff(before, after), _diff(after, before))
            _recompile(m)
    except IntegrityError as error:  # a concurrent change took the new name first
        raise RequestError("a retention policy with that name was just created; nothing was changed",
                           kind="conflict") from error  # fmt: skip
    except RetentionPolicy.DoesNotExist as error:
        raise NotFoundError("that retention policy was deleted meanwhile; nothing was changed") from error
    return policy


def set_enabled(workspace: Workspace, ref: Any, enabled: bool, *, user=None, actor: str) -> RetentionPolicy:
    return edit(workspace, ref, {"enabled": bool(enabled)}, user=user, actor=actor)


def delete(workspace: Workspace, ref: Any, *, user=None, actor: str) -> dict[str, Any]:
    """Remove a policy; recall stops enforcing it in the same mutation. Facts it archived stay archived."""
    require_role(user, workspace, "manage_retention", "change retention policies")
    actor = actor_text(actor)
    policy = get_policy(workspace, ref)
    with mutate(workspace, actor=actor) as m:
        policy = RetentionPolicy.objects.filter(pk=policy.pk).first()
        if policy is None:  # a concurrent delete won; the workspace lock made this one wait for it
            raise NotFoundError("that retention policy was deleted meanwhile; nothing was changed")
        gone = fields_of(policy)
        policy.version += 1
        _record(m, policy, "deleted", gone, None)
        policy.delete()
        _recompile(m)
        revision = m.revision
    return {"name": gone["name"], "version": policy.version, "revision": revision}


def _diff(this: dict, other: dict) -> dict:
    """The fields of `this` that differ from `other` (an edit's before or after, without the rest)."""
    return {k: v for k, v in this.items() if other.get(k) != v}


# ---------------------------------------------------------------- what a run takes


def candidates(workspace: Workspace, rule, now: datetime) -> QuerySet:
    """The facts a run of `rule` at `now` takes, as one query (the engine's `selection`)."""
    sel = engine.selection(rule, to_ms(now))
    facts = Fact.objects.filter(workspace=workspace)
    if sel.origin_key:
        facts = facts.filter(origin_key=sel.origin_key)
    elif sel.origin_is_owner is True:
        facts = facts.filter(origin_key="owner")
    elif sel.origin_is_owner is False:
        facts = facts.exclude(origin_key="owner")
    if sel.segments:
        facts = facts.filter(segment__in=sorted(sel.segments))
    if sel.classifications:
        facts = facts.filter(classification__in=sorted(sel.classifications))
    if sel.tiers:
        facts = facts.filter(tier__in=sorted(sel.tiers))
    if sel.trusted is False:
        facts = facts.filter(source_type__in=sorted(sel.untrusted_sources))
    elif sel.trusted is True:
        facts = facts.filter(Q(source_type__isnull=True) | ~Q(source_type__in=sorted(sel.untrusted_sources)))
    if sel.exclude_confirmed:
        facts = facts.exclude(status="confirmed")
    if sel.exclude_permanent:
        facts = facts.exclude(tier="permanent")
    cutoff = now - timedelta(milliseconds=rule.max_age_ms)
    return facts.filter(**{"last_accessed_at__lt" if sel.basis == "last_used" else "created_at__lt": cutoff})


def _taken(rule, facts: QuerySet) -> QuerySet:
    return facts.filter(lifecycle="active") if rule.action == "archive" else facts


@dataclass
class PolicyPreview:
    policy: int
    name: str
    version: int
    enabled: bool
    action: str
    scope: str
    rule: str
    takes: int  # facts a run would archive (active ones) or purge (any lifecycle, before the cascade)
    already_archived: int  # archive: in scope and past the age, but archived or pruned already
    held: int  # archive: held for review (left to the reviewer)
    facts: list[dict] = field(default_factory=list)
    page: int = 1
    pages: int = 1

    def to_dict(self) -> dict:
        return asdict(self)


def preview(workspace: Workspace, policy: Any = None, *, now: datetime | None = None, page: int = 1,
            per_page: int = PAGE, with_facts: bool = True) -> list[PolicyPreview]:  # fmt: skip
    """What each policy (the one named, else every enabled one) would take now, with a page of facts."""
    now = now or timezone.now()
    chosen = [get_policy(workspace, policy)] if policy not in (None, "") else [
        p for p in policies(workspace) if p.enabled]  # fmt: skip
    return [_preview_one(workspace, p, now, page, per_page, with_facts) for p in chosen]


def _preview_one(workspace, policy, now, page, per_page, with_facts) -> PolicyPreview:
    rule = rule_of(policy)
    matching = candidates(workspace, rule, now)
    takes = _taken(rule, matching).count()
    already = held = 0
    if rule.action == "archive":
        already = matching.filter(lifecycle__in=("archived", "pruned")).count()
        held = matching.filter(lifecycle="held").count()
    pages = max(1, -(-takes // per_page))
    page = min(max(1, int(page)), pages)
    facts = []
    if with_facts and takes:
        rows = (_taken(rule, matching).order_by("created_at", "pk")
                .only("memory_id", "segment", "tier", "classification", "lifecycle", "origin_key", "origin_kind",
                      "channel_id", "conversation_id", "session_key", "account_id", "created_at", "last_accessed_at",
                      "status")[(page - 1) * per_page : page * per_page])  # fmt: skip
        facts = [{"memory_id": f.memory_id, "segment": f.segment, "tier": f.tier, "classification": f.classification,
                  "lifecycle": f.lifecycle, "status": f.status, "origin": f.origin.label(),
                  "created_at": f.created_at.isoformat(), "last_used_at": f.last_accessed_at.isoformat()}
                 for f in rows]  # fmt: skip
    d = fields_of(policy)
    return PolicyPreview(policy.pk, policy.name, policy.version, policy.enabled, policy.action, engine.scope_words(d),
                         engine.rule_words(d), takes, already, held, facts, page, pages)  # fmt: skip


def accepts(previews: list[PolicyPreview], typed: str, *, workspace: Workspace) -> bool:
    """Whether `typed` confirms applying these previews: their total count, or (one policy) its
    name, or (several) the workspace's name."""
    typed = (typed or "").strip()
    if not typed:
        return False
    total = sum(p.takes for p in previews)
    names = {previews[0].name} if len(previews) == 1 else {workspace.name}
    return typed.replace(",", "") == str(total) or typed in names


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class RunReport:
    workspace: str
    policy: int
    name: str
    version: int
    action: str
    examined: int  # facts in scope and past the age, any lifecycle
    archived: int
    purged: int
    links_removed: int
    revision: int
    actor: str

    def to_dict(self) -> dict:
        return asdict(self)


@telemetry.operation("governance.retention.apply")
def apply(workspace: Workspace, policy: Any = None, *, user=None, actor: str, now: datetime | None = None,
          typed: str | None = None, progress: Callable[[int], Any] | None = None) -> list[RunReport]:  # fmt: skip
    """Run the named policy (or every enabled one): one transaction per policy, each with its
    `retention_run` event. With `typed`, a person's confirmation is checked against a fresh
    preview first (nothing changes when it does not match). A disabled policy is refused by name."""
    require_role(user, workspace, "manage_retention", "apply retention policies")
    actor = actor_text(actor)
    now = now or timezone.now()
    chosen = [get_policy(workspace, policy)] if policy not in (None, "") else [
        p for p in policies(workspace) if p.enabled]  # fmt: skip
    for p in chosen:
        if not p.enabled:
            raise RequestError(f"retention policy {p.name!r} is disabled: enable it before applying it; nothing was "
                               "changed", kind="conflict")  # fmt: skip
    if typed is not None:
        current = [_preview_one(workspace, p, now, 1, 1, False) for p in chosen]
        if not accepts(current, typed, workspace=workspace):
            total = sum(p.takes for p in current)
            what = f"the policy's name ({chosen[0].name})" if len(chosen) == 1 else f"the workspace's name ({workspace.name})"
            raise RequestError(f"the confirmation did not match: type the number of facts ({total}) or {what}; "
                               "nothing was changed", kind="confirmation")  # fmt: skip
    return [_run(workspace, p.pk, actor=actor, now=now, progress=progress) for p in chosen]


def _run(workspace: Workspace, policy_id: int, *, actor: str, now: datetime, progress) -> RunReport:
    with mutate(workspace, actor=actor, now=now) as m:
        # Re-read under the workspace lock: an edit committed since the caller looked is the one applied.
        policy = RetentionPolicy.objects.filter(workspace=m.workspace, pk=policy_id).first()
        if policy is None:
            raise NotFoundError("that retention policy was deleted meanwhile; nothing was changed")
        rule = rule_of(policy)
        matching = candidates(m.workspace, rule, now)
        examined = matching.count()
        rows = list(_taken(rule, matching).order_by("pk").values_list("pk", "memory_id"))
        reason = rule.describe()
        archived, purged, links = [], 0, 0
        if rule.action == "archive":
            archived = archive_in_mutation(m, rows, reason=reason, policy=policy.pk, version=policy.version,
                                           progress=progress)  # fmt: skip
        elif rows:
            purged, links = _purge(m, rule, matching, [mid for _, mid in rows], reason, progress)
        m.record(MemoryEvent.Kind.RETENTION_RUN, reason=reason, policy=policy.pk, name=policy.name,
                 version=policy.version, action=rule.action, examined=examined, archived=len(archived),
                 purged=purged, links_removed=links, now=now.isoformat())  # fmt: skip
        webhooks.emit(workspace, "retention.run", policy=policy.pk, action=rule.action, examined=examined,
                      archived=len(archived), purged=purged, revision=m.revision)  # fmt: skip
        revision = m.revision
    return RunReport(workspace.name, policy.pk, policy.name, policy.version, rule.action, examined, len(archived),
                     purged, links, revision, actor)  # fmt: skip


def _purge(m: Mutation, rule, matching: QuerySet, memory_ids: list[str], reason: str, progress) -> tuple[int, int]:
    """Hard purge (ENGINE-SPEC §6.2): the cascade along provenance keeps only facts the policy itself
    takes, so a run never crosses origins nor deletes a young or confirmed deriver."""
    from memory.services.lifecycle.retract_and_purge import purge_in_mutation  # lands with the purge feature

    eligible = set(matching.values_list("memory_id", flat=True))
    report = purge_in_mutation(m, memory_ids, reason=reason, cascade=True, eligible=eligible)
    if progress is not None:
        progress(len(memory_ids))
    return _count(report, "facts"), _count(report, "links")


def _count(report: Any, name: str) -> int:
    value = getattr(report, name, None)
    if value is None and isinstance(report, Mapping):
        value = report.get(name)
    return len(value) if isinstance(value, (list, tuple, set)) else int(value or 0)


def apply_everywhere(*, actor: str = "task:retention", now: datetime | None = None) -> list[dict]:
    """Every enabled policy of every workspace (the nightly job); a policy that fails does not stop the rest."""
    out = []
    ids = RetentionPolicy.objects.filter(enabled=True).values_list("workspace_id", flat=True).distinct()
    for workspace in Workspace.objects.filter(pk__in=list(ids)).order_by("pk"):
        for policy in policies(workspace):
            if not policy.enabled:
                continue
            try:
                out.append(_run(workspace, policy.pk, actor=actor, now=now or timezone.now(), progress=None).to_dict())
            except RequestError as error:
                out.append({"workspace": workspace.name, "policy": policy.pk, "error": error.message})
    return out

