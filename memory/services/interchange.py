"""Import and export of the original engine's facts.jsonl format, through the mutation helper."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field

from django.db import IntegrityError, connection, transaction

from memory.engine import interchange as X
from memory.engine import records as R
from memory.models import Fact, FactTerm, Link, TermStat, Workspace, link_reason_opener
from memory.services import embedding
from memory.services.errors import RequestError
from memory.services.mutation import mutate
from memory.services.near_duplicates import index_facts
from memory.timestamps import from_ms, to_ms

BATCH_SIZE = 500
ANALYZE_AFTER = 1000


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
    gated: bool = False
    reinforced: int = 0
    confined: int = 0
    links: int = 0
    dangling_links: int = 0
    refused: list[LineRefusal] = field(default_factory=list)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["refused_count"] = len(self.refused)
        return out


Progress = Callable[[int], None]


def import_facts(
    *,
    workspace: Workspace,
    lines: Iterable[str],
    actor: str,
    strict: bool = False,
    gate: bool = False,
    source_name: str = "",
    progress: Progress | None = None,
) -> ImportReport:
    """Import facts.jsonl lines into `workspace`.

    Every line is validated first; a bad line is refused with its number and reason and the rest
    imports. With `strict`, any refusal refuses the whole file and nothing is written. Facts are
    written in batches, each one mutation (lock, revision, `imported` event); links are resolved
    after all facts exist, so a link may point forward in the file. A link to an id that is not in
    the workspace is kept as a dangling link, so the record still round-trips.

    With `gate`, every record instead goes through the full write path (worthiness, provenance
    gate, threat scan, dedup, slots), one write each, and refusals are reported per line.
    """
    report = ImportReport(workspace=workspace.name, gated=gate)
    parsed: list[tuple[int, X.InterchangeRecord]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        report.lines = number
        obj = None
        try:
            obj = X.decode_line(line)
            if obj is None:
                continue
            record = X.parse_record(obj)
        except X.InterchangeError as exc:
            memory_id = obj.get("memoryId") if isinstance(obj, dict) else None
            report.refused.append(LineRefusal(number, str(exc), memory_id if isinstance(memory_id, str) else None))
            continue
        if record.memory_id in seen:
            report.refused.append(LineRefusal(number, "duplicate memoryId earlier in the file", record.memory_id))
            continue
        seen.add(record.memory_id)
        parsed.append((number, record))

    existing = _existing_ids(workspace, [record.memory_id for _, record in parsed])
    if existing:
        kept = []
        for number, record in parsed:
            if record.memory_id in existing:
                report.refused.append(LineRefusal(number, "memoryId already exists in the workspace", record.memory_id))
            else:
                kept.append((number, record))
        parsed = kept
    report.refused.sort(key=lambda refusal: refusal.line)

    if strict and report.refused:
        raise RequestError(
            f"{len(report.refused)} line(s) refused; nothing was imported (strict mode)",
            kind="invalid_input",
            details=[asdict(refusal) for refusal in report.refused],
        )

    if gate:
        with transaction.atomic() if strict else nullcontext():
            _import_gated(workspace, parsed, actor, report, strict, progress)
        report.refused.sort(key=lambda refusal: refusal.line)
        return report

    with transaction.atomic() if strict else nullcontext():
        for start in range(0, len(parsed), BATCH_SIZE):
            batch = parsed[start : start + BATCH_SIZE]
            _import_batch(workspace, batch, actor, source_name, report)
            if progress:
                progress(len(batch))
        _import_links(workspace, [record for _, record in parsed], actor, report)
    report.refused.sort(key=lambda refusal: refusal.line)
    if report.imported >= ANALYZE_AFTER:
        refresh_planner_statistics()
    return report


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
    from memory.services.policy import TidelineError
    from memory.services.writes import write_fact

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
            report.imported += result.outcome != "reinforced"
            report.reinforced += result.outcome == "reinforced"
            report.confined += result.outcome == "confined"
        if progress:
            progress(1)


def new_fact_from_record(record: X.InterchangeRecord):
    """A write request carrying an interchange record's identity, provenance and claims."""
    from memory.services.writes import NewFact

    return NewFact(
        content=record.content, segment=record.segment, origin=record.origin, source_type=record.source_type,
        subject_key=record.subject_key, supersedes=tuple(record.supersedes), importance=record.importance,
        tier=record.tier, classification=record.classification, intent_scope=record.intent_scope,
        metadata=record.metadata, links=tuple((link.kind, link.target, link.reason or "") for link in record.links),
        source_turn=record.source_turn, valid_from=from_ms(record.valid_from), valid_to=from_ms(record.valid_to),
        confidence=record.confidence, status=record.status, source_pointers=tuple(record.source_pointers),
        modality=record.modality, media_pointer=record.media_pointer, memory_id=record.memory_id,
        created_at=from_ms(record.created_at),
    )  # fmt: skip


def _existing_ids(workspace: Workspace, memory_ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(memory_ids), 1000):
        chunk = memory_ids[start : start + 1000]
        found.update(Fact.objects.filter(workspace=workspace, memory_id__in=chunk).values_list("memory_id", flat=True))
    return found


def _import_batch(workspace, batch, actor, source_name, report) -> None:
    try:
        with mutate(workspace, actor=actor) as m:
            created = Fact.objects.bulk_create([fact_from_record(workspace, record, actor) for _, record in batch])
            index_facts(created)
            embedding.embed_new(created)
            m.record("imported", fact_ids=[r.memory_id for _, r in batch], source=source_name, count=len(batch))
        report.imported += len(batch)
    except IntegrityError:
        if len(batch) == 1:
            number, record = batch[0]
            report.refused.append(LineRefusal(number, "rejected by a database constraint", record.memory_id))
            return
        for item in batch:  # find the offending line(s); the rest still imports
            _import_batch(workspace, [item], actor, source_name, report)


def fact_from_record(workspace: Workspace, record: X.InterchangeRecord, actor: str) -> Fact:
    """An unsaved Fact for an interchange record (links are created separately)."""
    return Fact(
        workspace=workspace,
        memory_id=record.memory_id,
        origin=record.origin,
        origin_recorded=record.origin_recorded,
        content=record.content,
        metadata=record.metadata,
        extra={**record.extra, **({"__absent__": record.absent} if record.absent else {})},
        segment=record.segment,
        tier=record.tier,
        importance=record.importance,
        decay_rate=record.decay_rate,
        access_count=record.access_count,
        last_accessed_at=from_ms(record.last_accessed_at),
        created_at=from_ms(record.created_at),
        lifecycle=record.lifecycle,
        source_type=record.source_type,
        source_turn=record.source_turn,
        written_by=actor,
        subject_key=record.subject_key,
        supersedes=record.supersedes,
        source_pointers=record.source_pointers,
        valid_from=from_ms(record.valid_from),
        valid_to=from_ms(record.valid_to),
        confidence=record.confidence,
        status=record.status,
        modality=record.modality,
        media_pointer=record.media_pointer,
        classification=record.classification,
        intent_scope=record.intent_scope,
    )


def _import_links(workspace: Workspace, records: list[X.InterchangeRecord], actor: str, report: ImportReport) -> None:
    wanted = [record for record in records if record.links]
    if not wanted:
        return
    ids = {record.memory_id for record in wanted} | {link.target for record in wanted for link in record.links}
    pk_by_memory_id = _pks(workspace, ids)
    rows: list[Link] = []
    for record in wanted:
        from_pk = pk_by_memory_id.get(record.memory_id)
        if from_pk is None:
            continue  # its line was refused
        seen = set()
        for position, link in enumerate(record.links):
            to_pk = pk_by_memory_id.get(link.target)
            identity = (to_pk or link.target, link.kind)
            if identity in seen:
                continue  # the original tolerates repeats; storage keeps one per (from, to, kind)
            seen.add(identity)
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
    for start in range(0, len(rows), 2000):
        chunk = rows[start : start + 2000]
        with mutate(workspace, actor=actor) as m:
            Link.objects.bulk_create(chunk)
            m.record("linked", count=len(chunk), dangling=sum(1 for row in chunk if not row.to_fact_id))
    report.links = sum(1 for row in rows if row.to_fact_id)
    report.dangling_links = sum(1 for row in rows if not row.to_fact_id)


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
    return X.InterchangeRecord(
        memory_id=fact.memory_id,
        content=fact.content,
        segment=fact.segment,
        tier=fact.tier,
        importance=fact.importance,
        decay_rate=fact.decay_rate,
        access_count=fact.access_count,
        last_accessed_at=to_ms(fact.last_accessed_at),
        created_at=to_ms(fact.created_at),
        lifecycle=fact.lifecycle,
        origin=fact.origin,
        origin_recorded=fact.origin_recorded,
        source_turn=fact.source_turn,
        supersedes=list(fact.supersedes or []),
        source_type=fact.source_type,
        links=links,
        valid_from=to_ms(fact.valid_from),
        valid_to=to_ms(fact.valid_to),
        confidence=fact.confidence,
        status=fact.status,
        source_pointers=list(fact.source_pointers or []),
        modality=fact.modality,
        media_pointer=fact.media_pointer,
        subject_key=fact.subject_key,
        metadata=fact.metadata or None,
        extra=extra,
        absent=absent,
        classification=fact.classification,
        intent_scope=fact.intent_scope,
    )


def export_facts(*, workspace: Workspace, origin: R.Origin | None = None, chunk_size: int = 2000) -> Iterator[dict]:
    """Every fact of the workspace (every lifecycle), or one origin's, as facts.jsonl dicts in write order."""
    facts = Fact.objects.filter(workspace=workspace).order_by("pk")
    if origin is not None:
        facts = facts.filter(origin_key=origin.key)
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
    # (A shredded origin's facts cannot be exported at all; its reasons never become a placeholder.)
    workspace_id = facts[0].workspace_id
    openers = {key: link_reason_opener(workspace_id, key, unreadable=None) for key in set(origin_of.values())}
    for from_pk, kind, target, dangling, sealed_reason, strength in rows:
        reason = openers[origin_of[from_pk]](sealed_reason)
        links.setdefault(from_pk, []).append(X.InterchangeLink(kind, target or dangling, reason, strength))
    for fact in facts:
        yield X.render_record(record_from_fact(fact, links.get(fact.pk, [])))


def count_facts(workspace: Workspace, origin: R.Origin | None = None) -> int:
    facts = Fact.objects.filter(workspace=workspace)
    return facts.filter(origin_key=origin.key).count() if origin else facts.count()
