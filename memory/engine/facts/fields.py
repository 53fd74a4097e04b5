"""The fact vocabulary: every field of a fact, declared once (ENGINE-SPEC §1.2, §1.7).

A fact travels in several shapes: the write request (`NewFact`), the facts.jsonl record
(`InterchangeRecord`), the facade's read record (`memory.tideline.FactRecord`, which is also the
API's `Fact` object), the maintenance passes' `MaintFact`, the recall core's `FactRow` and the recall
index's per-fact `RowMeta`, the review CLI's JSON and the review state a verdict records. Each
`FieldSpec` below says, for one field: its Python type and default in storage, whether its content
is sealed (encrypted at rest under its origin's key, memory/sealing.py), the model columns that
hold it, its key in facts.jsonl, and which shapes carry it (under which attribute name, where a
shape spells it differently). The shapes take their field lists from here (`fields_for`,
`attrs_for`, `columns_for`); where a shape stays a hand-written dataclass for speed, a test checks
its fields against the declared set (tests/memory/engine/facts/test_fields.py).

Times are aware datetimes in storage and in the write and read shapes, epoch milliseconds in the
interchange, maintenance and recall shapes (`MS_SHAPES`; memory.timestamps converts exactly).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory.engine.facts import records as R
from memory.timestamps import to_ms

REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()

# The shapes a fact takes, and what carries each.
SHAPES = {
    "write": "memory.services.writes.write_path.NewFact: what a writer asks to remember",
    "interchange": "memory.engine.facts.interchange.InterchangeRecord: one facts.jsonl record",
    "read": "memory.tideline.FactRecord: the facade's read record, and the API's Fact object (to_dict)",
    "maint": "memory.engine.maintenance.plans.MaintFact: a fact as the maintenance passes see it",
    "recall": "memory.engine.recall.candidates.FactRow: a fact as the recall core scores it",
    "recall_meta": "memory.services.recall.index.RowMeta: what recall filters on beyond the FactRow",
    "review": "a fact in the review CLI's JSON (`tideline review show --json`)",
    "review_state": "memory.services.lifecycle.curation.fact_states: what a review verdict records and undoes",
    "claim": "ClaimRecord: a fact as the contradiction detector reads it",
}
# Shapes whose times are epoch milliseconds; the others carry datetimes.
MS_SHAPES = frozenset({"interchange", "maint", "recall", "recall_meta", "claim"})

# What a shape carries beyond the fact's own fields (request options, results, derived values).
SHAPE_EXTRAS: dict[str, tuple[str, ...]] = {
    "write": ("force", "made_by"),  # made_by: who wrote it for the origin, in words, for a hold's reason
    "interchange": ("extra", "absent"),
    "read": ("outcome", "superseded", "review_item_id", "rules", "detected"),
    "maint": (),
    "recall": (),
    "recall_meta": ("clearance",),
    "review": (),
    "review_state": (),
    "claim": ("trusted", "vector"),
}


@dataclass(frozen=True)
class FieldSpec:
    """One field of a fact.

    `columns`: the `Fact` model columns holding it (None: the column of the same name; () for a field
    kept elsewhere, e.g. links in their own table). `jsonl`: its key in facts.jsonl; `jsonl_tail`: a
    Tideline addition, written after the original writer's keys and only when not the default;
    `jsonl_filled`: storage always has a value, so a line without one gets the default and remembers
    it lacked the key. `shapes`: the shapes carrying it; `attrs`: (shape, attribute) where a shape
    names it differently. `api_required`: always present in the API's Fact object (its schema says so).
    """

    name: str
    type: Any
    default: Any = REQUIRED
    nullable: bool = False
    sealed: bool = False
    columns: tuple[str, ...] | None = None
    jsonl: str | None = None
    jsonl_tail: bool = False
    jsonl_filled: bool = False
    shapes: frozenset[str] = frozenset()
    attrs: tuple[tuple[str, str], ...] = ()
    api_required: bool = False
    doc: str = field(default="", compare=False)

    @property
    def stored_in(self) -> tuple[str, ...]:
        return (self.name,) if self.columns is None else self.columns

    @property
    def is_time(self) -> bool:
        return self.type is datetime

    @property
    def is_sequence(self) -> bool:
        return self.type is list

    def attr(self, shape: str) -> str:
        """The attribute (or key) this field has in `shape`."""
        return dict(self.attrs).get(shape, self.name)

    def in_shape(self, shape: str, value: Any) -> Any:
        """A stored value (as the model holds it) in the form `shape` carries it."""
        if self.is_time:
            return to_ms(value) if shape in MS_SHAPES else value
        if self.is_sequence:
            return tuple(value or ()) if shape == "write" else list(value or [])
        return value

    def as_json(self, value: Any) -> Any:
        """A shape's value as JSON: datetimes in ISO 8601, sequences as lists."""
        if self.is_time:
            return value.isoformat() if value is not None else None
        if isinstance(value, tuple):
            return list(value)
        return value

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of its value in the API's Fact object."""
        kind = _JSON_TYPES[self.type]
        return {"type": [kind, "null"] if self.nullable else kind}


_JSON_TYPES = {str: "string", float: "number", int: "integer", bool: "boolean", datetime: "string",
               R.Origin: "string", list: "array", dict: "object"}  # fmt: skip


def _f(name: str, type_: Any, *, shapes: str = "", attrs: dict[str, str] | None = None, **kw: Any) -> FieldSpec:
    return FieldSpec(name, type_, shapes=frozenset(shapes.split()), attrs=tuple((attrs or {}).items()), **kw)


_ORIGIN_COLUMNS = ("origin_kind", "channel_id", "conversation_id", "session_key", "account_id")

# In facts.jsonl's key order (the original writer's); fields without a key follow.
FIELDS: tuple[FieldSpec, ...] = (
    _f("memory_id", str, jsonl="memoryId", api_required=True,
       shapes="write interchange read maint recall review claim", attrs={"read": "id", "review": "id", "claim": "id"},
       doc="the fact's id, unique in its workspace; a write may leave it to the store (None)"),
    _f("content", str, sealed=True, columns=("sealed_content",), jsonl="content", api_required=True,
       shapes="write interchange read maint recall review claim"),
    _f("segment", str, jsonl="segment", jsonl_filled=True, api_required=True,
       shapes="write interchange read maint recall review claim"),
    _f("tier", str, jsonl="tier", jsonl_filled=True, shapes="write interchange read maint recall recall_meta"),
    _f("importance", float, jsonl="importance", jsonl_filled=True, shapes="write interchange read maint recall"),
    _f("decay_rate", float, jsonl="decayRate", jsonl_filled=True, shapes="interchange maint recall"),
    _f("access_count", int, default=0, jsonl="accessCount", jsonl_filled=True, shapes="interchange read maint recall"),
    _f("last_accessed_at", datetime, jsonl="lastAccessedAt", jsonl_filled=True, shapes="interchange maint recall"),
    _f("created_at", datetime, jsonl="createdAt", jsonl_filled=True, api_required=True,
       shapes="write interchange read maint recall review claim", attrs={"claim": "created_ms"}),
    _f("source_turn", str, default=None, nullable=True, jsonl="sourceTurn", shapes="write interchange maint"),
    _f("supersedes", list, default=list, jsonl="supersedes", shapes="write interchange recall_meta"),
    _f("lifecycle", str, default="active", jsonl="lifecycle", jsonl_filled=True, api_required=True,
       shapes="interchange read maint recall review review_state"),
    _f("origin", R.Origin, default=R.Origin.owner, columns=_ORIGIN_COLUMNS, jsonl="createdBy", api_required=True,
       shapes="write interchange read recall", doc="who wrote it (createdBy); the read record has its label"),
    _f("source_type", str, default=None, nullable=True, jsonl="sourceType",
       shapes="write interchange read maint recall review"),
    _f("links", list, default=list, columns=(), jsonl="links", shapes="write interchange",
       doc="typed links to other facts (the Link table)"),
    _f("valid_from", datetime, default=None, nullable=True, jsonl="validFrom", shapes="write interchange maint"),
    _f("valid_to", datetime, default=None, nullable=True, jsonl="validTo",
       shapes="write interchange maint recall review review_state"),
    _f("confidence", float, default=None, nullable=True, jsonl="confidence", shapes="write interchange maint recall"),
    _f("status", str, default=None, nullable=True, jsonl="status",
       shapes="write interchange read maint recall review review_state"),
    _f("source_pointers", list, default=list, jsonl="sourcePointers", shapes="write interchange"),
    _f("modality", str, default=None, nullable=True, jsonl="modality", shapes="write interchange recall_meta"),
    _f("media_pointer", str, default=None, nullable=True, jsonl="mediaPointer", shapes="write interchange recall_meta"),
    _f("subject_key", str, default=None, nullable=True, jsonl="subjectKey",
       shapes="write interchange read maint claim"),
    _f("metadata", dict, default=None, nullable=True, sealed=True, columns=("sealed_metadata",), jsonl="metadata",
       shapes="write interchange", doc="sealed with the interchange keys that have no column (Fact.extra)"),
    _f("embedding", list, default=None, nullable=True, columns=(), jsonl="embedding", shapes="maint recall",
       doc="a vector; facts.jsonl's travels in Fact.extra, learned ones live in their own table"),
    _f("classification", str, default=R.DEFAULT_CLASSIFICATION, jsonl="classification", jsonl_tail=True,
       shapes="write interchange read recall_meta"),
    _f("intent_scope", str, default=None, nullable=True, jsonl="intentScope", jsonl_tail=True,
       shapes="write interchange read recall_meta"),
    _f("origin_recorded", bool, default=True, shapes="interchange",
       doc="False for a legacy record without createdBy (exported without one again)"),
    _f("origin_key", str, default="owner", shapes="maint review claim", attrs={"review": "origin"},
       doc="Origin.key, the bucket every cross-fact operation groups by"),
    _f("pk", int, columns=("id",), shapes="recall_meta"),
    _f("workspace", int, columns=("workspace_id",)),
    _f("content_length", int),
    _f("content_hash", str, doc="keyed HMAC of the normalized content (exact dedup)"),
    _f("uses_version", int, default=0),
    _f("written_by", str, default=""),
    _f("archived_at", datetime, default=None, nullable=True, shapes="recall_meta review_state"),
    _f("pruned_at", datetime, default=None, nullable=True, shapes="recall_meta"),
    _f("held_at", datetime, default=None, nullable=True, shapes="recall_meta", attrs={"recall_meta": "visible_from"}),
    _f("admitted_at", datetime, default=None, nullable=True, shapes="recall_meta review_state",
       attrs={"recall_meta": "visible_from"}),
)  # fmt: skip

BY_NAME = {spec.name: spec for spec in FIELDS}

# Shapes whose field order is their own (a JSON output's key order); the others follow FIELDS.
SHAPE_ORDER: dict[str, tuple[str, ...]] = {
    "read": ("memory_id", "content", "segment", "tier", "importance", "lifecycle", "origin", "source_type",
             "subject_key", "classification", "intent_scope", "status", "access_count", "created_at"),
    "review": ("memory_id", "content", "segment", "origin_key", "source_type", "lifecycle", "status", "created_at",
               "valid_to"),
    "review_state": ("lifecycle", "status", "valid_to", "archived_at", "admitted_at"),
}  # fmt: skip


def fields_for(shape: str) -> tuple[FieldSpec, ...]:
    """The fields `shape` carries, in its order."""
    if shape not in SHAPES:
        raise KeyError(f"unknown fact shape {shape!r}")
    members = [spec for spec in FIELDS if shape in spec.shapes]
    order = SHAPE_ORDER.get(shape)
    if order is None:
        return tuple(members)
    return tuple(BY_NAME[name] for name in order)


def attrs_for(shape: str) -> tuple[str, ...]:
    """The attribute names of `shape`'s fact fields, in order (without duplicates)."""
    return tuple(dict.fromkeys(spec.attr(shape) for spec in fields_for(shape)))


def columns_for(*shapes: str) -> tuple[str, ...]:
    """The model columns to read for `shapes` (in FIELDS order): enough to fill every field they carry."""
    wanted = {spec.name for shape in shapes for spec in fields_for(shape)}
    return tuple(column for spec in FIELDS if spec.name in wanted for column in spec.stored_in)


def model_columns() -> tuple[str, ...]:
    """Every `Fact` column (attname) the vocabulary declares."""
    return tuple(column for spec in FIELDS for column in spec.stored_in)


def sealed_fields() -> tuple[FieldSpec, ...]:
    return tuple(spec for spec in FIELDS if spec.sealed)


def jsonl_key_order() -> tuple[str, ...]:
    """facts.jsonl's keys in the original writer's order (Tideline's additions not among them)."""
    return tuple(spec.jsonl for spec in FIELDS if spec.jsonl and not spec.jsonl_tail)


def shape_values(shape: str, read: Callable[[str], Any], *, skip: Iterable[str] = ()) -> dict[str, Any]:
    """`shape`'s fields as keyword arguments, each stored value read by `read(name)` and converted."""
    left_out = set(skip)
    return {spec.attr(shape): spec.in_shape(shape, read(spec.name))
            for spec in fields_for(shape) if spec.name not in left_out}  # fmt: skip


def _check() -> None:
    names = [spec.name for spec in FIELDS]
    assert len(names) == len(set(names)), "a field is declared twice"
    for spec in FIELDS:
        assert spec.shapes <= SHAPES.keys(), f"{spec.name}: unknown shape in {sorted(spec.shapes)}"
        assert dict(spec.attrs).keys() <= spec.shapes, f"{spec.name}: renamed in a shape that lacks it"
    for shape, order in SHAPE_ORDER.items():
        members = {spec.name for spec in FIELDS if shape in spec.shapes}
        assert sorted(order) == sorted(members), f"SHAPE_ORDER[{shape!r}] must list exactly its fields"


_check()
