"""The database itself refuses records that break the model's invariants (not only forms)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from memory.engine.facts import records as R
from memory.models import Fact, Link, Membership, MemoryEvent, Workspace
from tests.factories import make_fact, make_link

pytestmark = pytest.mark.django_db


def _refused(callable_):
    with pytest.raises(IntegrityError), transaction.atomic():
        callable_()


def test_a_valid_fact_is_accepted(workspace):
    fact = make_fact(workspace, "I keep a strict vegetarian diet.")
    assert Fact.objects.get(pk=fact.pk).content == "I keep a strict vegetarian diet."


def test_content_longer_than_1000_characters_is_refused(workspace):
    _refused(lambda: make_fact(workspace, "x" * 1001))


def test_content_of_exactly_1000_characters_is_accepted(workspace):
    assert make_fact(workspace, "é" * 1000).content_length == 1000


def test_a_forged_content_length_cannot_smuggle_long_ciphertext(workspace):
    fact = make_fact(workspace, "y" * 1000, save=False)
    fact.seal_pending()
    fact.content_length = 10  # lie about the length
    fact.sealed_content = fact.sealed_content + b"z" * 4000
    fact._dirty_content = False
    _refused(fact.save)


def test_empty_content_is_refused(workspace):
    fact = make_fact(workspace, "a", save=False)
    fact.content_length = 0
    _refused(fact.save)


@pytest.mark.parametrize("importance", [-0.01, 1.01])
def test_importance_outside_zero_to_one_is_refused(workspace, importance):
    _refused(lambda: make_fact(workspace, importance=importance))


@pytest.mark.parametrize("confidence", [-0.5, 1.5])
def test_confidence_outside_zero_to_one_is_refused(workspace, confidence):
    _refused(lambda: make_fact(workspace, confidence=confidence))


@pytest.mark.parametrize(
    "field,value",
    [
        ("tier", "forever"),
        ("lifecycle", "deleted"),
        ("source_type", "web_page"),
        ("status", "maybe"),
        ("modality", "smell"),
        ("classification", "SECRET"),
    ],
)
def test_enum_columns_refuse_unknown_values(workspace, field, value):
    _refused(lambda: make_fact(workspace, **{field: value}))


def test_unknown_segment_is_refused(workspace):
    fact = make_fact(workspace, save=False)
    fact.segment = "gossip"
    _refused(fact.save)


def test_memory_ids_are_unique_within_a_workspace(workspace, other_workspace):
    make_fact(workspace, memory_id="mem_same")
    make_fact(other_workspace, memory_id="mem_same")  # another workspace may reuse it
    _refused(lambda: make_fact(workspace, "other", memory_id="mem_same"))


def test_origin_columns_must_agree_with_the_origin_key(workspace):
    fact = make_fact(workspace, save=False, origin=R.Origin("channel", "slack", "c", "s"))
    fact.origin_kind = "owner"
    _refused(fact.save)


def test_a_link_cannot_cross_workspaces(workspace, other_workspace):
    mine, theirs = make_fact(workspace), make_fact(other_workspace)
    _refused(lambda: Link.objects.create(workspace=workspace, from_fact=mine, to_fact=theirs, kind="relates"))
    _refused(lambda: Link.objects.create(workspace=workspace, from_fact=theirs, to_fact=mine, kind="relates"))
    _refused(lambda: Link.objects.create(workspace=other_workspace, from_fact=mine, to_fact=theirs, kind="relates"))


def test_a_link_to_or_from_a_fact_that_does_not_exist_is_refused(workspace):
    """The link table has no single-column keys to its facts (migration 0019): the composite keys
    (PostgreSQL) and triggers (SQLite) must still refuse a missing fact at either end."""
    fact = make_fact(workspace)
    missing = Fact.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    _refused(lambda: Link.objects.create(workspace=workspace, from_fact_id=missing, to_fact=fact, kind="relates"))
    _refused(lambda: Link.objects.create(workspace=workspace, from_fact=fact, to_fact_id=missing, kind="relates"))
    other = make_fact(workspace, "another fact")
    link = make_link(fact, other, "relates")
    other.delete()  # deleting a fact still takes its links with it
    assert not Link.objects.filter(pk=link.pk).exists()


def test_a_link_naming_a_workspace_that_does_not_exist_is_refused(workspace):
    """Nor a key of its own to the workspace (migration 0020): the link's workspace must be its
    source fact's, so a workspace that does not exist is refused."""
    a, b = make_fact(workspace, "a fact"), make_fact(workspace, "b fact")
    missing = Workspace.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    _refused(lambda: Link.objects.create(workspace_id=missing, from_fact=a, to_fact=b, kind="relates"))
    _refused(lambda: Link.objects.create(workspace_id=missing, from_fact=a, dangling_target="mem_gone", kind="relates"))


def test_a_link_is_unique_per_from_to_and_kind(workspace):
    a, b = make_fact(workspace, "a fact"), make_fact(workspace, "b fact")
    make_link(a, b, "supports")
    make_link(a, b, "relates")  # another kind is another edge
    _refused(lambda: make_link(a, b, "supports"))


def test_link_kind_and_strength_are_checked(workspace):
    a, b = make_fact(workspace, "a fact"), make_fact(workspace, "b fact")
    _refused(lambda: make_link(a, b, "likes"))
    _refused(lambda: make_link(a, b, "supports", strength=6))


def test_a_link_has_either_a_target_fact_or_a_dangling_target(workspace):
    a = make_fact(workspace)
    _refused(lambda: Link.objects.create(workspace=workspace, from_fact=a, to_fact=None, kind="relates"))
    Link.objects.create(workspace=workspace, from_fact=a, dangling_target="mem_gone", kind="relates")


def test_event_revisions_start_at_one(workspace):
    _refused(lambda: MemoryEvent.objects.create(workspace=workspace, revision=0, at=workspace.created_at, kind="created"))


def test_a_workspace_revision_below_zero_and_a_role_the_model_does_not_name_are_refused(workspace, owner):
    _refused(lambda: Workspace.objects.filter(pk=workspace.pk).update(revision=-1))
    _refused(lambda: Membership.objects.create(user=owner, workspace=workspace, role="viewer"))
    assert Workspace.objects.get(pk=workspace.pk).revision >= 0
    assert list(Membership.objects.filter(user=owner).values_list("role", flat=True)) == ["owner"]


def test_an_event_of_a_kind_the_model_does_not_name_is_refused(workspace):
    before = MemoryEvent.objects.filter(workspace=workspace).count()
    MemoryEvent.objects.create(workspace=workspace, revision=1, at=workspace.created_at, kind="created")
    _refused(lambda: MemoryEvent.objects.create(workspace=workspace, revision=2, at=workspace.created_at, kind="made_up"))
    kinds = list(MemoryEvent.objects.filter(workspace=workspace).values_list("kind", flat=True))
    assert len(kinds) == before + 1 and "made_up" not in kinds


def test_the_migrated_kinds_are_the_models_kinds():
    """A kind added to the model without a migration would be refused by the database."""
    from importlib import import_module
    from pathlib import Path

    import memory.migrations

    # The newest migration that sets the database's list (0014 made it; each new kind adds one).
    names = sorted(p.stem for p in Path(memory.migrations.__file__).parent.glob("0*.py"))
    enforced = [module for module in (import_module(f"memory.migrations.{name}") for name in names)
                if hasattr(module, "KINDS")]  # fmt: skip
    assert set(enforced[-1].KINDS) == set(MemoryEvent.Kind.values)
