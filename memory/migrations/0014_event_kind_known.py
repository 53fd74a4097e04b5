"""The event log refuses a kind the model does not name (docs/ARCHITECTURE.md §3).

A check constraint on PostgreSQL. On SQLite a trigger does the same, because adding a constraint
there rebuilds `memory_memoryevent`, and the append-only triggers on it forbid exactly that. The
model declares the constraint, so a new kind makes `makemigrations` write the next migration.
"""

from django.db import migrations, models

KINDS = (
    "created", "reinforced", "superseded", "confined", "held", "reviewed", "blocked", "feedback", "invalidated",
    "confirmed", "evicted", "archived", "restored", "pruned", "purged", "shredded", "linked", "imported", "dream_run",
    "gc_run", "retention_run", "proposal", "reembedded", "workspace_created", "settings_changed", "gold_set",
    "exported", "members_changed", "tokens_changed",
)  # fmt: skip
LISTED = ", ".join(f"'{kind}'" for kind in KINDS)


def add(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(
            f"CREATE TRIGGER memory_event_kind_known BEFORE INSERT ON memory_memoryevent "
            f"WHEN NEW.kind NOT IN ({LISTED}) "
            f"BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: event_kind_known'); END"
        )
    else:
        schema_editor.execute(f"ALTER TABLE memory_memoryevent ADD CONSTRAINT event_kind_known CHECK (kind IN ({LISTED}))")


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS memory_event_kind_known")
    else:
        schema_editor.execute("ALTER TABLE memory_memoryevent DROP CONSTRAINT IF EXISTS event_kind_known")


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0013_lean_write_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add, remove)],
            state_operations=[
                migrations.AddConstraint(
                    model_name="memoryevent",
                    constraint=models.CheckConstraint(condition=models.Q(kind__in=list(KINDS)), name="event_kind_known"),
                ),
            ],
        ),
    ]
