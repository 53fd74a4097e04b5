"""The event log names `unlinked`: links taken away (an undone review verdict removes the links its
verdict added), logged as what happened rather than as `linked`. The kind list is enforced as 0014
set it up: a check constraint on PostgreSQL, a trigger on SQLite."""

from django.db import migrations, models

OLD = (
    "created", "reinforced", "superseded", "confined", "held", "reviewed", "blocked", "feedback", "invalidated",
    "confirmed", "evicted", "archived", "restored", "pruned", "purged", "shredded", "linked", "imported", "dream_run",
    "gc_run", "retention_run", "proposal", "reembedded", "workspace_created", "settings_changed", "gold_set",
    "exported", "members_changed", "tokens_changed", "reclassified",
)  # fmt: skip
NEW = (*OLD, "unlinked")
KINDS = NEW  # what the database enforces from here on (tests/memory/services/core/test_constraints.py reads it)


def _enforce(kinds):
    listed = ", ".join(f"'{kind}'" for kind in kinds)

    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute("DROP TRIGGER IF EXISTS memory_event_kind_known")
            schema_editor.execute(
                f"CREATE TRIGGER memory_event_kind_known BEFORE INSERT ON memory_memoryevent "
                f"WHEN NEW.kind NOT IN ({listed}) "
                f"BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: event_kind_known'); END"
            )
        else:
            schema_editor.execute("ALTER TABLE memory_memoryevent DROP CONSTRAINT IF EXISTS event_kind_known")
            schema_editor.execute(f"ALTER TABLE memory_memoryevent ADD CONSTRAINT event_kind_known CHECK (kind IN ({listed}))")

    return apply


class Migration(migrations.Migration):
    dependencies = [("memory", "0022_reclassified_event")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(_enforce(NEW), _enforce(OLD))],
            state_operations=[
                migrations.RemoveConstraint(model_name="memoryevent", name="event_kind_known"),
                migrations.AddConstraint(
                    model_name="memoryevent",
                    constraint=models.CheckConstraint(condition=models.Q(kind__in=list(NEW)), name="event_kind_known"),
                ),
            ],
        ),
        migrations.AlterField(
            model_name="memoryevent",
            name="kind",
            field=models.CharField(choices=[(kind, kind.replace("_", " ").title()) for kind in NEW], max_length=24),
        ),
    ]
