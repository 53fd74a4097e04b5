"""The fact vocabulary (memory.engine.facts.fields) is the one list of a fact's fields: every shape a
fact takes carries exactly the fields declared for it, and every column of the Fact model is declared."""

from dataclasses import fields as dataclass_fields
from types import SimpleNamespace

import pytest

from memory.engine.facts import fields as F


def _shape_classes():
    from governance.engine.contradiction_rules import ClaimRecord
    from memory.engine.facts.interchange import InterchangeRecord
    from memory.engine.maintenance.plans import MaintFact
    from memory.engine.recall.candidates import FactRow
    from memory.services.recall.index import RowMeta
    from memory.services.writes.write_path import NewFact
    from memory.tideline import FactRecord

    return {"write": NewFact, "interchange": InterchangeRecord, "read": FactRecord, "maint": MaintFact,
            "recall": FactRow, "recall_meta": RowMeta, "claim": ClaimRecord}  # fmt: skip


@pytest.mark.parametrize("shape", ["write", "interchange", "read", "maint", "recall", "recall_meta", "claim"])
def test_each_dataclass_shape_carries_exactly_its_declared_fields(shape):
    declared = {*F.attrs_for(shape), *F.SHAPE_EXTRAS[shape]}
    actual = {f.name for f in dataclass_fields(_shape_classes()[shape])}
    assert actual == declared, f"{shape}: missing {sorted(declared - actual)}, undeclared {sorted(actual - declared)}"


def test_the_read_record_keeps_its_declared_order():
    from memory.tideline import FactRecord

    names = [f.name for f in dataclass_fields(FactRecord)]
    assert names == [*F.attrs_for("read"), *F.SHAPE_EXTRAS["read"]]


def test_every_fact_column_is_declared_once():
    from memory.models import Fact

    columns = [f.attname for f in Fact._meta.concrete_fields]
    declared = F.model_columns()
    assert len(declared) == len(set(declared))
    assert sorted(columns) == sorted(declared)


def test_sealed_fields_are_the_models_sealed_columns():
    from memory.models import Fact, SealedField

    sealed = {f.attname for f in Fact._meta.concrete_fields if isinstance(f, SealedField)}
    assert sealed == {column for spec in F.sealed_fields() for column in spec.stored_in}


def test_the_api_fact_schema_has_the_read_records_fields():
    from governance.api.schema import FACT
    from memory.tideline import FactRecord

    assert list(FACT["properties"]) == [*(f.name for f in dataclass_fields(FactRecord)), "deduplicated"]
    assert set(FACT["required"]) == {spec.attr("read") for spec in F.fields_for("read") if spec.api_required}


def test_the_review_cli_json_has_the_review_fields():
    from governance.cli.review import _fact_dict

    fact = SimpleNamespace(**{name: None for name in F.BY_NAME})
    assert tuple(_fact_dict(fact)) == F.attrs_for("review")


def test_review_state_fields_are_declared():
    from memory.services.lifecycle.curation import REVIEW_STATE_FIELDS

    assert tuple(spec.name for spec in F.fields_for("review_state")) == REVIEW_STATE_FIELDS


def test_facts_jsonl_key_order_is_the_original_writers():
    assert F.jsonl_key_order() == (
        "memoryId", "content", "segment", "tier", "importance", "decayRate", "accessCount", "lastAccessedAt",
        "createdAt", "sourceTurn", "supersedes", "lifecycle", "createdBy", "sourceType", "links", "validFrom",
        "validTo", "confidence", "status", "sourcePointers", "modality", "mediaPointer", "subjectKey", "metadata",
        "embedding",
    )  # fmt: skip


def test_every_shape_is_known_and_has_fields():
    for shape in F.SHAPES:
        assert F.fields_for(shape), shape
    with pytest.raises(KeyError):
        F.fields_for("nonsense")
