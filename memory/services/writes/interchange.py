"""Import and export of the original engine's facts.jsonl format, through the mutation helper."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import Count, Q

from memory import sealing, signals
from memory.engine.facts import fields as F
from memory.engine.facts import interchange as X
from memory.engine.facts import records as R
from memory.engine.facts import validation as V
from memory.models import Fact, FactTerm, Link, TermStat, Workspace, link_reason_opener
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.recall import embedding
from memory.services.writes import bulk_copy
from memory.services.writes.near_duplicates import index_facts
from memory.timestamps import from_ms, to_ms

BATCH_SIZE = 500
ANALYZE_AFTER = 1000
# How many refusals a report lists (it always counts them all).
REPORTED_REFUSALS = 100


@dataclass
class LineRefusal:
    line: int
    reason: str
    memory_id: str | None = None


@dataclass
class ImportReport:
    workspace: str
    lines: int = 0
    imported: int = 0
    skipped: int = 0  # already present with the same content: kept as is, links ensured
    gated: bool = False
    reinforced: int = 0
    confined: int = 0  # kept as down-weighted evidence
    held: int = 0  # waiting for a reviewer's verdict, out of recall
    links: int = 0  # links created by this run
    links_resolved: int = 0  # dangling links whose target this run brought in (or found present)
    dangling_links: int = 0
    refused: list[LineRefusal] = field(default_factory=list)
    detected: dict[str, int] = field(default_factory=dict)  # personal data and secrets found, by kind

    def count_detected(self, kinds) -> None:
        for kind in kinds:
            self.detected[kind] = self.detected.get(kind, 0) + 1

    def to_dict(self) -> dict:
        out = asdict(self)
        out["refused_count"] = len(self.refused)
        out["refused"] = out["refused"][:REPORTED_REFUSALS]
        return out


Progress = Callable[[int], None]


def import_facts(
    *,
    workspace: Workspace,
    lines: Iterable[str | bytes],
    actor: str,
    strict: bool = False,
    gate: bool = False,
    source_name: str = "",
    progress: Progress | None = None,
) -> ImportReport:
    """Import facts.jsonl lines into `workspace`; safe to run again, and to resume after a crash.

    Every line is validated first; a bad line is refused with its number and reason and the rest
    imports. With `strict`, any refusal refuses the whole file and nothing is written. Facts are
    written in batches, each one mutation (lock, revision, `imported` event); links are resolved
    after all facts exist, so a link may point forward in the file. A link to an id that is not in
    the workspace is kept as a dangling link, so the record still round-trips.

    A line whose memoryId is already in the workspace with the same record (see `_same_record`) is
    skipped, but its links are ensured: missing ones are created and dangling ones whose target now
    exists are resolved. So re-running a file that was cut off (killed, crashed, lost connection)
    finishes it, and re-running a complete one changes nothing. A line whose id exists with a
    different record is refused.

    With `gate`, every record instead goes through the full write path (worthiness, provenance
    gate, threat scan, dedup, slots), one write each, and refusals are reported per line.
    """
    report = ImportReport(workspace=workspace.name, gated=gate)
    parsed = _parse_lines(lines, report)
    if not gate:  # the gated path screens each record as any write
        parsed = _screened(parsed, report, strict=strict)
    parsed, present = _split_present(workspace, parsed, report)
    report.skipped = len(present)
    report.refused.sort(key=lambda refusal: refusal.line)

    if strict and report.refused:
        raise RequestError(
            f"{len(report.refused)} line(s) refused; nothing was imported (strict mode)",
            kind="invalid_input",
            details=[asdict(refusal) for refusal in report.refused[:REPORTED_REFUSALS]],
        )
    if progress and present:
        progress(len(present))

    if gate:
        with transaction.atomic() if strict else nullcontext():
            _import_gated(workspace, parsed, actor, report, strict, progress)
            _import_links(workspace, [], present, actor, report)
        report.refused.sort(key=lambda refusal: refusal.line)
        _snapshot_later(workspace, report)
        return report

    with transaction.atomic() if strict else nullcontext():
        for start in range(0, len(parsed), BATCH_SIZE):
            batch = parsed[start : start + BATCH_SIZE]
            _import_batch(workspace, batch, actor, source_name, report)
            if progress:
                progress(len(batch))
        _import_links(workspace, [record for _, record in parsed], present, actor, report)
    report.refused.sort(key=lambda refusal: refusal.line)
    if report.imported >= ANALYZE_AFTER:
        refresh_planner_statistics()
    _snapshot_later(workspace, report)
    return report


def _snapshot_later(workspace: Workspace, report: ImportReport) -> None:
    """After a bulk import, the worker writes the recall snapshots of the workspace's large origins,
    so no web process's first recall builds those indexes from the database."""
    from memory.services.recall import index, index_snapshots

    if 0 < index_snapshots.minimum_facts() <= report.imported:
        index.write_snapshots_later(workspace)


def preview_import(*, workspace: Workspace, lines: Iterable[str | bytes]) -> ImportReport:
    """What `import_facts` (without the gate) would do with these lines, changing nothing: how many
    would be imported, how many are present already, and every refused line with its reason."""
    report = ImportReport(workspace=workspace.name)
    parsed, present = _split_present(workspace, _parse_lines(lines, report), report)
    report.imported, report.skipped = len(parsed), len(present)
    report.refused.sort(key=lambda refusal: refusal.line)
    return report


def _screened(parsed, report: ImportReport, *, strict: bool) -> list[tuple[int, X.InterchangeRecord]]:
    """Personal data and secrets, as the write path screens them: a record's classification rises to
    PII, a secret is replaced by its placeholder in trusted records and refuses an untrusted one (any
    one, with `strict`); the report counts what was found by kind."""
    from memory.services.writes import policy

    kept = []
    for number, record in parsed:
        try:
            screened = policy.screen_text(record.content, source_type=record.source_type,
                                          classification=record.classification, refuse_secrets=strict)  # fmt: skip
        except policy.SecretError as error:
            report.count_detected(rule.split(":", 1)[1] for rule in dict.fromkeys(error.rules))
            report.refused.append(LineRefusal(number, f"secret: {error.message}", record.memory_id))
            continue
        if screened.detected:
            report.count_detected(screened.detected)
            record = replace(record, content=screened.content,
                             classification=screened.classification or record.classification)  # fmt: skip
        kept.append((number, record))
    return kept


def _parse_lines(lines: Iterable[str | bytes], report: ImportReport) -> list[tuple[int, X.InterchangeRecord]]:
    """Validate every line (counting them in `report.lines`); refusals go to `report.refused`."""
    parsed: list[tuple[int, X.InterchangeRecord]] = []
    seen: set[str] = set()
    now_ms = time.time() * 1000
    for number, line in enumerate(lines, start=1):
        report.lines = number
        obj = None
        try:
            obj = X.decode_line(line)
            if obj is None:
                continue
            record = X.parse_record(obj, now_ms=now_ms)
        except X.InterchangeError as exc:
            memory_id = obj.get("memoryId") if isinstance(obj, dict) else None
            report.refused.append(LineRefusal(number, str(exc), memory_id if V.is_memory_id(memory_id) else None))
            continue
        if record.memory_id in seen:
            report.refused.append(LineRefusal(number, "duplicate memoryId earlier in the file", record.memory_id))
            continue
        seen.add(record.memory_id)
        parsed.append((number, record))
    return parsed


def _split_present(workspace, parsed, report) -> tuple[list, list[X.InterchangeRecord]]:
    """Set aside lines whose id is already stored: the same record is skipped, another one refused."""
    stored = _existing_facts(workspace, [record.memory_id for _, record in parsed])
    if not stored:
        return parsed, []
    fresh, present = [], []
    for number, record in parsed:
        fact = stored.get(record.memory_id)
        if fact is None:
            fresh.append((number, record))
            continue
        difference = _same_record(fact, record)
        if difference is None:
            present.append(record)
        else:
            report.refused.append(LineRefusal(number, f"memoryId already exists in the workspace with {difference}",
                                              record.memory_id))  # fmt: skip
    return fresh, present


def _same_record(fact: Fact, record: X.InterchangeRecord) -> str | None:
    """None if the stored fact is this line's record, else what differs.

    "The same" is the same statement by the same writer at the same moment: origin, content (up to
    surrounding whitespace, which the write path trims) and createdAt. Everything else (lifecycle,
    counters, importance, status, segment) may have moved on since the first import through recall,
    feedback, decay or the dream; the stored fact is the newer truth and is never overwritten.
    """
    if fact.origin_key != record.origin.key:
        return "another origin"
    if fact.created_at != from_ms(record.created_at):
        return "another createdAt"
    try:
        content = fact.content
    except sealing.KeyDestroyedError:
        return "content that was shredded"
    if content.strip() != record.content.strip():
        return "different content"
    return None


def refresh_planner_statistics() -> None:
    """After a bulk load, let the database re-plan with real row counts (PostgreSQL would otherwise wait
    for autovacuum, believing the tables empty, and SQLite has no statistics until asked)."""
    tables = [connection.ops.quote_name(model._meta.db_table) for model in (Fact, FactTerm, TermStat, Link)]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE " + ", ".join(tables))
        elif connection.vendor == "sqlite":
            for table in tables:  # SQLite analyses one table per statement
                cursor.execute(f"ANALYZE {table}")


def _import_gated(workspace, parsed, actor, report, strict, progress) -> None:
    from memory.services.writes.policy import TidelineError
    from memory.services.writes.write_path import write_fact

    for number, record in parsed:
        try:
            result = write_fact(workspace=workspace, new=new_fact_from_record(record), actor=actor)
        except TidelineError as error:
            report.refused.append(LineRefusal(number, f"{error.kind}: {error.message}", record.memory_id))
            if strict:
                raise RequestError(
                    f"line {number} refused by the write path; nothing was imported (strict mode)",
                    kind="invalid_input",
                    details=[asdict(refusal) for refusal in report.refused],
                ) from error
        else:
            report.count_detected(result.detected)
            report.imported += result.outcome != "reinforced"
            report.reinforced += result.outcome == "reinforced"
            report.confined += result.outcome == "confined"
            report.held += result.outcome == "held"
        if progress:
            progress(1)


def new_fact_from_record(record: X.InterchangeRecord):
    """A write request carrying an interchange record's identity, provenance and claims."""
    from memory.services.writes.write_path import NewFact

    return NewFact(**{spec.attr("write"): _to_write(spec, getattr(record, spec.name)) for spec in _RECORD_TO_WRITE})


# The fields a write request takes over from an interchange record (the vocabulary's shared ones).
_RECORD_TO_WRITE = tuple(spec for spec in F.fields_for("write") if "interchange" in spec.shapes)


def _to_write(spec: F.FieldSpec, value: Any) -> Any:
    if spec.name == "links":
        return tuple((link.kind, link.target, link.reason or "") for link in value)
    if spec.is_time:
        return from_ms(value)
    return tuple(value) if spec.is_sequence else value


def _existing_facts(workspace: Workspace, memory_ids: list[str]) -> dict[str, Fact]:
    found: dict[str, Fact] = {}
    for start in range(0, len(memory_ids), 1000):
        chunk = memory_ids[start : start + 1000]
        found.update((fact.memory_id, fact) for fact in Fact.objects.filter(workspace=workspace, memory_id__in=chunk))
    return found


def _import_batch(workspace, batch, actor, source_name, report) -> None:
    try:
        with mutate(workspace, actor=actor) as m:
            created = bulk_copy.create_all(Fact, [fact_from_record(workspace, record, actor) for _, record in batch])
            index_facts(created, new=True)
            embedding.embed_new(created)
            m.record("imported", fact_ids=[r.memory_id for _, r in batch], source=source_name, count=len(batch))
            for fact in (f for f in created if f.lifecycle == "held"):
                signals.write_held.send(sender=Fact, workspace=workspace, fact=fact, held_by=None, replaces=[],
                                        hold_kind="quarantine", rules=("imported_held",), mutation=m,
                                        reason="imported while held for review: decide it again")  # fmt: skip
        report.imported += len(batch)
    except (IntegrityError, DataError):  # validation should have caught it; find the line anyway
        if len(batch) == 1:
            number, record = batch[0]
            report.refused.append(LineRefusal(number, "rejected by a database constraint", record.memory_id))
            return
        for item in batch:  # find the offending line(s); the rest still imports
            _import_batch(workspace, [item], actor, source_name, report)


def fact_from_record(workspace: Workspace, record: X.InterchangeRecord, actor: str) -> Fact:
    """An unsaved Fact for an interchange record (links are created separately)."""
    stored = {name: getattr(record, name) for name in _PLAIN}
    for name in _TIMES:
        stored[name] = from_ms(stored[name])
    return Fact(
        workspace=workspace,
        **stored,
        extra={**record.extra, **({"__absent__": record.absent} if record.absent else {})},
        # A backup of a held write restores it held: out of recall, waiting for a verdict again.
        held_at=from_ms(record.created_at) if record.lifecycle == "held" else None,
        written_by=actor,
    )


# The interchange record's fields stored on the Fact itself (links have their own table).
_RECORD_STORED = tuple(spec for spec in F.fields_for("interchange") if spec.stored_in)
_PLAIN = tuple(spec.name for spec in _RECORD_STORED)
_TIMES = tuple(spec.name for spec in _RECORD_STORED if spec.is_time)  # datetimes stored, epoch ms in the record
_SEQUENCES = tuple(spec.name for spec in _RECORD_STORED if spec.is_sequence)


def _import_links(workspace: Workspace, imported: list[X.InterchangeRecord], present: list[X.InterchangeRecord],
                  actor: str, report: ImportReport) -> None:
    """Create the links of newly imported records, and ensure those of records already present.

    First every dangling link in the workspace whose target this run imported is resolved. Then each
    record's links are compared with what is stored (only for records already present: new ones have
    none yet): a missing link is created, a stored dangling one whose target exists now is resolved.
    """
    _resolve_dangling(workspace, {record.memory_id for record in imported}, actor, report)
    wanted = [record for record in imported + present if record.links]
    if not wanted:
        return
    ids = {record.memory_id for record in wanted} | {link.target for record in wanted for link in record.links}
    pk_by_memory_id = _pks(workspace, ids)
    stored = _stored_links([pk_by_memory_id[r.memory_id] for r in present if r.links and r.memory_id in pk_by_memory_id])
    rows: list[Link] = []
    resolve: list[Link] = []
    for record in wanted:
        from_pk = pk_by_memory_id.get(record.memory_id)
        if from_pk is None:
            continue  # its line was refused
        existing = stored.get(from_pk, {})
        seen = set()
        for position, link in enumerate(record.links):
            to_pk = pk_by_memory_id.get(link.target)
            identity = (to_pk or link.target, link.kind)
            if identity in seen:
                continue  # the original tolerates repeats; storage keeps one per (from, to, kind)
            seen.add(identity)
            if identity in existing:
                continue
            dangling_pk = existing.get((link.target, link.kind)) if to_pk else None
            if dangling_pk is not None:
                resolve.append(Link(pk=dangling_pk, to_fact_id=to_pk, dangling_target=""))
                continue
            rows.append(
                Link(
                    workspace=workspace,
                    from_fact_id=from_pk,
                    to_fact_id=to_pk,
                    dangling_target="" if to_pk else link.target,
                    kind=link.kind,
                    reason=link.reason or "",
                    strength=link.strength,
                    position=position,
                    created_by=actor,
                )
            )
    _apply_resolutions(workspace, resolve, actor, report)
    for start in range(0, len(rows), 2000):
        chunk = rows[start : start + 2000]
        with mutate(workspace, actor=actor) as m:
            Link.objects.bulk_create(chunk)
            m.record("linked", count=len(chunk), dangling=sum(1 for row in chunk if not row.to_fact_id))
    report.links = sum(1 for row in rows if row.to_fact_id)
    report.dangling_links = sum(1 for row in rows if not row.to_fact_id)


def _stored_links(from_pks: list[int]) -> dict[int, dict[tuple, int | None]]:
    """For each source fact: {(to_pk, kind): None} for resolved links, {(dangling target, kind): pk} for dangling."""
    out: dict[int, dict[tuple, int | None]] = {}
    for start in range(0, len(from_pks), 1000):
        rows = Link.objects.filter(from_fact_id__in=from_pks[start : start + 1000]).values_list(
            "pk", "from_fact_id", "to_fact_id", "dangling_target", "kind"
        )
        for pk, from_pk, to_pk, dangling, kind in rows:
            out.setdefault(from_pk, {})[(to_pk, kind) if to_pk else (dangling, kind)] = None if to_pk else pk
    return out


def _resolve_dangling(workspace: Workspace, new_ids: set[str], actor: str, report: ImportReport) -> None:
    """Point dangling links at facts this run imported (a resumed import, or a second file)."""
    if not new_ids:
        return
    candidates = [
        (pk, target, from_pk, kind)
        for pk, target, from_pk, kind in Link.objects.filter(workspace=workspace, to_fact__isnull=True)
        .values_list("pk", "dangling_target", "from_fact_id", "kind")
        .iterator(chunk_size=2000)
        if target in new_ids
    ]
    if not candidates:
        return
    pk_by_memory_id = _pks(workspace, {target for _, target, _, _ in candidates})
    resolve = [Link(pk=pk, to_fact_id=pk_by_memory_id[target], dangling_target="")
               for pk, target, _, _ in candidates if target in pk_by_memory_id]  # fmt: skip
    _apply_resolutions(workspace, resolve, actor, report)


def _apply_resolutions(workspace: Workspace, resolve: list[Link], actor: str, report: ImportReport) -> None:
    """Give dangling links their target, one mutation per thousand, unless that would duplicate a link."""
    if not resolve:
        return
    source = {}  # dangling link pk -> (from pk, kind)
    for start in range(0, len(resolve), 1000):
        chunk = [link.pk for link in resolve[start : start + 1000]]
        source.update((pk, (from_pk, kind)) for pk, from_pk, kind in
                      Link.objects.filter(pk__in=chunk).values_list("pk", "from_fact_id", "kind"))  # fmt: skip
    twins = set()  # (from pk, to pk, kind) already linked: resolving would break one-link-per-kind
    for start in range(0, len(resolve), 1000):
        chunk = resolve[start : start + 1000]
        twins.update(Link.objects.filter(from_fact_id__in={source[link.pk][0] for link in chunk},
                                         to_fact_id__in={link.to_fact_id for link in chunk})
                     .values_list("from_fact_id", "to_fact_id", "kind"))  # fmt: skip
    todo, keys = [], set()
    for link in resolve:
        from_pk, kind = source[link.pk]
        key = (from_pk, link.to_fact_id, kind)
        if key not in twins and key not in keys:
            keys.add(key)
            todo.append(link)
    for start in range(0, len(todo), 1000):
        chunk = todo[start : start + 1000]
        with mutate(workspace, actor=actor) as m:
            Link.objects.bulk_update(chunk, ["to_fact", "dangling_target"])
            m.record("linked", count=0, dangling=0, resolved=len(chunk))
    report.links_resolved += len(todo)


def _pks(workspace: Workspace, memory_ids: set[str]) -> dict[str, int]:
    ordered = sorted(memory_ids)
    out: dict[str, int] = {}
    for start in range(0, len(ordered), 1000):
        chunk = ordered[start : start + 1000]
        out.update(Fact.objects.filter(workspace=workspace, memory_id__in=chunk).values_list("memory_id", "pk"))
    return out


def record_from_fact(fact: Fact, links: list[X.InterchangeLink]) -> X.InterchangeRecord:
    extra = dict(fact.extra)
    absent = extra.pop("__absent__", [])
    stored = {name: getattr(fact, name) for name in _PLAIN}
    for name in _TIMES:
        stored[name] = to_ms(stored[name])
    for name in _SEQUENCES:
        stored[name] = list(stored[name] or [])
    stored["metadata"] = stored["metadata"] or None
    return X.InterchangeRecord(**stored, links=links, extra=extra, absent=absent)


def export_facts(*, workspace: Workspace, origin: R.Origin | None = None, chunk_size: int = 2000,
                 where: Q | None = None) -> Iterator[dict]:  # fmt: skip
    """Every fact of the workspace (every lifecycle), or one origin's, as facts.jsonl dicts in write order.

    `where` narrows it further (e.g. an admin's export filters); a shredded origin's facts are skipped."""
    facts = Fact.objects.filter(workspace=workspace).order_by("pk")
    if origin is not None:
        facts = facts.filter(origin_key=origin.key)
    if where is not None:
        facts = facts.filter(where)
    batch: list[Fact] = []
    for fact in facts.iterator(chunk_size=chunk_size):
        batch.append(fact)
        if len(batch) >= chunk_size:
            yield from _render_batch(batch)
            batch = []
    if batch:
        yield from _render_batch(batch)


def _render_batch(facts: list[Fact]) -> Iterator[dict]:
    links: dict[int, list[X.InterchangeLink]] = {}
    rows = (
        Link.objects.filter(from_fact_id__in=[fact.pk for fact in facts])
        .order_by("from_fact_id", "position", "pk")
        .values_list("from_fact_id", "kind", "to_fact__memory_id", "dangling_target", "sealed_reason", "strength")
    )
    # A reason is sealed under its source fact's origin: one key lookup per origin in the batch.
    origin_of = {fact.pk: fact.origin_key for fact in facts}
    # A shredded origin's facts are not exported at all (a tombstone has no content to carry, and a
    # record without content would not import); its reasons never become a placeholder either.
    workspace_id = facts[0].workspace_id
    openers = {key: link_reason_opener(workspace_id, key, unreadable=None) for key in set(origin_of.values())}
    readable = {key: _readable(workspace_id, key) for key in openers}
    for from_pk, kind, target, dangling, sealed_reason, strength in rows:
        reason = openers[origin_of[from_pk]](sealed_reason)
        links.setdefault(from_pk, []).append(X.InterchangeLink(kind, target or dangling, reason, strength))
    for fact in facts:
        if readable[fact.origin_key]:
            yield X.render_record(record_from_fact(fact, links.get(fact.pk, [])))


def _readable(workspace_id: int, origin_key: str) -> bool:
    """Whether the origin's data key is still there (False once it was shredded)."""
    try:
        sealing.keyring.data_key(workspace_id, origin_key, create=False)
    except sealing.KeyDestroyedError:
        return False
    return True


def count_facts(workspace: Workspace, origin: R.Origin | None = None, *, where: Q | None = None) -> int:
    """How many records `export_facts` yields for the same arguments: a shredded origin's facts are
    not counted, since they are not exported (one count per origin, then its key looked up)."""
    facts = Fact.objects.filter(workspace=workspace)
    if origin is not None:
        facts = facts.filter(origin_key=origin.key)
    if where is not None:
        facts = facts.filter(where)
    rows = facts.order_by().values_list("origin_key").annotate(n=Count("pk")).values_list("origin_key", "n")
    return sum(n for origin_key, n in rows if _readable(workspace.pk, origin_key))
