"""Gold sets per workspace: upload, scaffold, edit, approve (ENGINE-SPEC §8.1).

A gold set is what every proposal is judged on, so it has to be honest: a scaffold's queries start
as a placeholder a person must rewrite (a query copied from the fact would grade recall on its own
answer key), any edit takes the approval back, and the approval is a second person's — an approver
or admin who did not make the set. Every change is a `gold_set` event.

Owners and admins make and edit sets; approvers and admins approve them.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from governance.engine import permissions
from governance.models import GoldCase, GoldSet
from governance.services.acting import acting_name, event_actor, require_role
from memory.engine.facts import jsonbody
from memory.models import Fact, Workspace
from memory.permissions import roles_in
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.recall import evaluation as harness

EDIT_ROLES = permissions.roles_for("edit_gold")
APPROVE_ROLES = permissions.roles_for("approve_gold")
PLAYGROUND = "playground"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
MAX_CASES = 2000  # cases one set may hold: an evaluation scores each on every capability
SCAFFOLD_DEFAULT = 30

# The keys the harness reads, in both formats (the original engine's snake_case gold sets and the
# camelCase scaffolds `tideline eval scaffold` writes). Anything else is refused, not ignored: a
# misspelt "relevent_keys" would otherwise turn every case into an abstention case.
TOP_KEYS = {"name", "source", "harness", "counts", "facts", "cases", "approved", "generated_at", "generatedAt",
            "description"}  # fmt: skip
FACT_KEYS = {"key", "content", "segment", "importance", "source_type", "sourceType", "created_by", "createdBy",
             "supersedes_keys", "supersedesKeys", "tier", "decay_rate", "effective_importance",
             "archived_after_seeding"}  # fmt: skip
CASE_KEYS = {"id", "query", "category", "relevant_keys", "relevantKeys", "original_top10", "note"}


def _event(gold: GoldSet, action: str, *, actor: str, **data) -> None:
    with mutate(gold.workspace, actor=event_actor(actor)) as m:
        m.record("gold_set", gold_set=gold.pk, name=gold.name, action=action, **data)


def sets(workspace: Workspace):
    """The workspace's gold sets with their case and placeholder counts, for lists."""
    return (GoldSet.objects.filter(workspace=workspace)
            .annotate(case_count=Count("cases"),
                      placeholder_count=Count("cases", filter=Q(cases__query__contains=harness.PLACEHOLDER)))
            .order_by("name", "pk"))  # fmt: skip


def get(workspace: Workspace, gold_id: Any) -> GoldSet:
    text = str(gold_id).strip()
    found = None
    if text.lstrip("#").isdigit() and int(text.lstrip("#")) < 2**31:
        found = GoldSet.objects.filter(workspace=workspace, pk=int(text.lstrip("#"))).first()
    if found is None:
        found = GoldSet.objects.filter(workspace=workspace, name=text).first()
    if found is None:
        raise RequestError(f"no gold set {text!r} in {workspace.name}", kind="not_found")
    return found


def get_case(gold: GoldSet, case_pk: Any) -> GoldCase:
    try:
        pk = int(case_pk)
        if not 0 < pk < 2**31:
            raise ValueError(pk)
        return gold.cases.get(pk=pk)
    except (TypeError, ValueError, GoldCase.DoesNotExist):
        raise RequestError(f"no case {case_pk!r} in gold set {gold.name!r}", kind="not_found") from None


def _unique_name(workspace: Workspace, wanted: str) -> None:
    if not wanted or len(wanted) > 100:
        raise RequestError("a gold set needs a name of 1 to 100 characters", kind="validation")
    if GoldSet.objects.filter(workspace=workspace, name=wanted).exists():
        raise RequestError(f"a gold set named {wanted!r} exists already: choose another name", kind="conflict")


# ---------------------------------------------------------------- making sets


def _unknown_keys(data: dict) -> str | None:
    extra = sorted(set(data) - TOP_KEYS)
    if extra:
        return f"unknown key(s) {extra} at the top level (known: {sorted(TOP_KEYS)})"
    for field, known in (("facts", FACT_KEYS), ("cases", CASE_KEYS)):
        for index, item in enumerate(data.get(field) or []):
            if isinstance(item, dict):
                extra = sorted(set(item) - known)
                if extra:
                    return f"{field}[{index}] has unknown key(s) {extra} (known: {sorted(known)})"
    return None


def parse_upload(raw: bytes | str, label: str) -> dict:
    """The uploaded gold JSON, checked strictly; raises RequestError(invalid_input) saying what is wrong."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_UPLOAD_BYTES:
            raise RequestError(f"{label} is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB", kind="invalid_input")
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise RequestError(f"{label} is not UTF-8 text: upload a gold JSON file", kind="invalid_input") from None
    try:
        data = jsonbody.loads(raw)
    except json.JSONDecodeError as exc:
        raise RequestError(f"{label} is not JSON ({exc.msg} at line {exc.lineno}): nothing was added",
                           kind="invalid_input") from None  # fmt: skip
    except ValueError as exc:  # nested too deeply, or a number longer than Python converts
        raise RequestError(f"{label} is not usable JSON ({exc}): nothing was added", kind="invalid_input") from None
    if not isinstance(data, dict):
        raise RequestError(f"{label}: a gold set is a JSON object with 'facts' and 'cases'", kind="invalid_input")
    problem = _unknown_keys(data)
    if problem:
        raise RequestError(f"{label}: {problem}; nothing was added", kind="invalid_input")
    harness.parse_gold(data, label, allow_placeholders=True)  # the harness's own checks, same messages
    if len(data["cases"]) > MAX_CASES:
        raise RequestError(f"{label} has {len(data['cases'])} cases; a set holds at most {MAX_CASES}", kind="invalid_input")
    if not data["cases"]:
        raise RequestError(f"{label} has no cases", kind="invalid_input")
    return data


def upload(workspace: Workspace, raw: bytes | str, *, filename: str = "upload.json", name: str = "", user=None,
           actor: str) -> GoldSet:  # fmt: skip
    """A standalone set from a gold JSON: its facts are seeded into a throwaway workspace when scored.
    An `approved: true` inside the file counts for nothing here: approval is an approver's act."""
    require_role(user, workspace, "edit_gold", "add gold sets")
    data = parse_upload(raw, filename)
    wanted = (name or str(data.get("name") or "") or filename.rsplit(".", 1)[0]).strip()[:100]
    _unique_name(workspace, wanted)
    who = acting_name(user, actor)
    with transaction.atomic():
        gold = GoldSet.objects.create(workspace=workspace, name=wanted, kind=GoldSet.Kind.STANDALONE,
                                      source=GoldSet.Source.UPLOAD, facts=data["facts"], created_by=who)  # fmt: skip
        GoldCase.objects.bulk_create([
            GoldCase(gold_set=gold, case_id=str(c["id"])[:100], query=c["query"][:1000],
                     relevant_keys=list(c.get("relevant_keys", c.get("relevantKeys")) or []),
                     category=str(c.get("category") or "uncategorized")[:100], hint=str(c.get("note") or "")[:1000],
                     position=i)
            for i, c in enumerate(data["cases"])])  # fmt: skip
        _event(gold, "uploaded", actor=who, cases=len(data["cases"]), facts=len(data["facts"]), filename=filename[:200])
    return gold


def scaffold(workspace: Workspace, *, size: int = SCAFFOLD_DEFAULT, name: str = "", user=None, actor: str) -> GoldSet:
    """A live set from the owner's most-used active facts, one case per fact, each query the placeholder:
    the person writes how they would really ask (the fact's words are shown as a hint, never scored)."""
    require_role(user, workspace, "edit_gold", "make gold sets")
    if not 1 <= size <= MAX_CASES:
        raise RequestError(f"a scaffold holds 1 to {MAX_CASES} cases", kind="validation")
    facts = list(Fact.objects.filter(workspace=workspace, lifecycle="active", origin_kind="owner")
                 .order_by("-access_count", "-created_at", "-pk")[:size])  # fmt: skip
    if not facts:
        raise RequestError(f"{workspace.name} has no active owner facts to make a scaffold from", kind="validation")
    wanted = (name or f"scaffold {timezone.localdate().isoformat()}").strip()[:100]
    if not name:
        base, n = wanted, 2
        while GoldSet.objects.filter(workspace=workspace, name=wanted).exists():
            wanted, n = f"{base} ({n})", n + 1
    _unique_name(workspace, wanted)
    who = acting_name(user, actor)
    with transaction.atomic():
        gold = GoldSet.objects.create(workspace=workspace, name=wanted, kind=GoldSet.Kind.LIVE,
                                      source=GoldSet.Source.SCAFFOLD, created_by=who)  # fmt: skip
        GoldCase.objects.bulk_create([
            GoldCase(gold_set=gold, case_id=f"f{i + 1}", query=harness.PLACEHOLDER, relevant_keys=[f.memory_id],
                     category=f.segment, hint=f.content[:1000], position=i)
            for i, f in enumerate(facts)])  # fmt: skip
        _event(gold, "scaffolded", actor=who, cases=len(facts))
    return gold


# ---------------------------------------------------------------- editing cases


def _clean_query(query: str) -> str:
    query = " ".join(str(query or "").split())
    if not query:
        raise RequestError("a case needs a query", kind="validation")
    if len(query) > 1000:
        raise RequestError("a query is at most 1000 characters", kind="validation")
    return query


def _clean_keys(gold: GoldSet, keys: Any) -> list[str]:
    if isinstance(keys, str):
        keys = keys.replace(",", " ").split()
    out = list(dict.fromkeys(str(k).strip() for k in keys or [] if str(k).strip()))
    if gold.kind == GoldSet.Kind.LIVE:
        known = set(Fact.objects.filter(workspace=gold.workspace, memory_id__in=out).values_list("memory_id", flat=True))
    else:
        known = {f.get("key") for f in gold.facts if isinstance(f, dict)}
    missing = [k for k in out if k not in known]
    if missing:
        where = f"in {gold.workspace.name}" if gold.kind == GoldSet.Kind.LIVE else f"among {gold.name!r}'s facts"
        raise RequestError(f"no fact {missing[0]!r} {where}", kind="validation")
    return out


def _touched(gold: GoldSet) -> bool:
    """An edit takes the approval back (what was approved is no longer what is there). True if it did."""
    was = gold.approved
    GoldSet.objects.filter(pk=gold.pk).update(approved_at=None, approved_by=None, approved_by_name="",
                                              updated_at=timezone.now())  # fmt: skip
    gold.refresh_from_db()
    return was


def edit_case(gold: GoldSet, case_pk: Any, *, query: str, category: str | None = None, relevant_keys: Any = None,
              user=None, actor: str) -> GoldCase:  # fmt: skip
    require_role(user, gold.workspace, "edit_gold", "edit gold sets")
    who = acting_name(user, actor)
    with transaction.atomic():
        case = get_case(gold, case_pk)
        before = case.query
        case.query = _clean_query(query)
        if category is not None:
            case.category = (" ".join(category.split()) or "uncategorized")[:100]
        if relevant_keys is not None:
            case.relevant_keys = _clean_keys(gold, relevant_keys)
        case.edited_by, case.edited_at = who, timezone.now()
        case.save()
        unapproved = _touched(gold)
        _event(gold, "case_edited", actor=who, case=case.case_id, query_before=before[:200], query_after=case.query[:200],
               unapproved=unapproved)  # fmt: skip
    return case


def add_case(gold: GoldSet, *, query: str, relevant_keys: Any, category: str = "", user=None, actor: str) -> GoldCase:
    require_role(user, gold.workspace, "edit_gold", "edit gold sets")
    who = acting_name(user, actor)
    with transaction.atomic():
        locked = GoldSet.objects.select_for_update().get(pk=gold.pk)
        count = locked.cases.count()
        if count >= MAX_CASES:
            raise RequestError(f"gold set {gold.name!r} holds {MAX_CASES} cases already", kind="validation")
        taken = set(locked.cases.values_list("case_id", flat=True))
        number = count + 1
        while f"c{number}" in taken:
            number += 1
        case = GoldCase.objects.create(gold_set=locked, case_id=f"c{number}", query=_clean_query(query),
                                       relevant_keys=_clean_keys(locked, relevant_keys),
                                       category=(" ".join((category or "").split()) or "uncategorized")[:100],
                                       position=count, edited_by=who, edited_at=timezone.now())  # fmt: skip
        unapproved = _touched(locked)
        _event(locked, "case_added", actor=who, case=case.case_id, query_after=case.query[:200], unapproved=unapproved)
    gold.refresh_from_db()
    return case


def delete_case(gold: GoldSet, case_pk: Any, *, user=None, actor: str) -> str:
    require_role(user, gold.workspace, "edit_gold", "edit gold sets")
    who = acting_name(user, actor)
    with transaction.atomic():
        case = get_case(gold, case_pk)
        case_id = case.case_id
        case.delete()
        unapproved = _touched(gold)
        _event(gold, "case_deleted", actor=who, case=case_id, unapproved=unapproved)
    return case_id


def live_set(workspace: Workspace, name: str, *, source: str, who: str, adding: str) -> GoldSet:
    """The workspace's live set `name`, made (and logged) when missing; refused when `name` is an
    uploaded set, which carries its own facts (`adding`: what the caller meant to add, in words)."""
    gold, made = GoldSet.objects.get_or_create(workspace=workspace, name=name,
                                               defaults={"kind": GoldSet.Kind.LIVE, "source": source, "created_by": who})  # fmt: skip
    if made:
        _event(gold, "created", actor=who, cases=0, source=source)
    if gold.kind != GoldSet.Kind.LIVE:
        raise RequestError(f"the gold set {name!r} is an uploaded set; rename it to add {adding}", kind="conflict")
    return gold


def add_from_playground(workspace: Workspace, *, query: str, memory_id: str, user=None, actor: str) -> GoldCase:
    """"This query should have found that fact": a case in the workspace's live set "playground"."""
    require_role(user, workspace, "edit_gold", "add gold cases")
    if not Fact.objects.filter(workspace=workspace, memory_id=memory_id).exists():
        raise RequestError(f"no fact {memory_id!r} in {workspace.name}", kind="not_found")
    gold = live_set(workspace, PLAYGROUND, source=GoldSet.Source.PLAYGROUND, who=acting_name(user, actor),
                    adding="playground cases")  # fmt: skip
    wanted = _clean_query(query)
    if any(c.query == wanted and memory_id in c.relevant_keys for c in gold.cases.all()):
        raise RequestError("the playground set has this case already", kind="conflict")
    return add_case(gold, query=wanted, relevant_keys=[memory_id], category="playground", user=user, actor=actor)


def delete_set(gold: GoldSet, *, user=None, actor: str) -> str:
    require_role(user, gold.workspace, "edit_gold", "delete gold sets")
    who, name, pk, cases = acting_name(user, actor), gold.name, gold.pk, gold.cases.count()
    with transaction.atomic():
        _event(gold, "deleted", actor=who, cases=cases)
        GoldSet.objects.filter(pk=pk).delete()
    return name


# ---------------------------------------------------------------- approving


def approval_blocker(gold: GoldSet, user=None, actor: str = "") -> str | None:
    """Why this person may not approve this set now (None: they may)."""
    if user is not None and not permissions.allows(roles_in(user, gold.workspace), "approve_gold"):
        return "only approvers or admins approve gold sets"
    if gold.approved:
        return f"it was approved already (by {gold.approved_by_name or 'someone'})"
    if acting_name(user, actor) == gold.created_by:
        return "whoever made a set cannot approve it: a second person must"
    cases = list(gold.cases.all())
    if not cases:
        return "it has no cases"
    edited = sum(c.edited_by == acting_name(user, actor) for c in cases)
    if edited:
        return (f"you wrote or edited {edited} of its cases, so you cannot approve it: a person who edited none "
                "of them must")  # fmt: skip
    placeholders = sum(harness.PLACEHOLDER in c.query for c in cases)
    if placeholders:
        return f"{placeholders} case(s) still have the placeholder query: rewrite them first"
    return None


def approve(gold: GoldSet, *, user=None, actor: str) -> GoldSet:
    who = acting_name(user, actor)
    with transaction.atomic():
        locked = GoldSet.objects.select_for_update().get(pk=gold.pk)
        blocker = approval_blocker(locked, user, actor)
        if blocker:
            kind = "forbidden" if ("only" in blocker or "cannot" in blocker) else "conflict"
            raise RequestError(f"gold set {locked.name!r} cannot be approved: {blocker}", kind=kind)
        locked.approved_at, locked.approved_by, locked.approved_by_name = timezone.now(), user, who
        locked.save(update_fields=["approved_at", "approved_by", "approved_by_name", "updated_at"])
        _event(locked, "approved", actor=who, cases=locked.cases.count())
    return locked


def describe(gold: GoldSet) -> dict[str, Any]:
    cases = list(gold.cases.all())
    return {"id": gold.pk, "name": gold.name, "kind": gold.kind, "source": gold.source, "cases": len(cases),
            "placeholders": sum(harness.PLACEHOLDER in c.query for c in cases), "facts": len(gold.facts or []),
            "created_by": gold.created_by, "approved": gold.approved, "approved_by": gold.approved_by_name or None,
            "approved_at": gold.approved_at.isoformat() if gold.approved_at else None}  # fmt: skip
