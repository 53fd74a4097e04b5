"""Fewer indexes to update on every write (docs/BENCHMARKS.md, "The agent API under load").

Each of these single-column indexes repeats the first column of a composite index the queries use
(or, for the content hash, is replaced by `fact_content_hash_idx` without PostgreSQL's extra
`varchar_pattern_ops` copy). They cost every write an index update and, in a workspace created since
the last ANALYZE, tempted the planner to read the whole workspace through them.

The indexes are dropped by name as the database reports them, so SQLite keeps its tables (altering
the fields there would rebuild `memory_fact` under the triggers that refer to it). Reversing leaves
them dropped: they only ever cost time.
"""

import django.db.models.deletion
from django.db import migrations, models

SINGLE_COLUMN = [
    ("memory_fact", "workspace_id"),
    ("memory_fact", "content_hash"),
    ("memory_factterm", "fact_id"),
    ("memory_factterm", "workspace_id"),
    ("memory_factvector", "workspace_id"),
    ("memory_memoryevent", "workspace_id"),
    ("memory_termstat", "workspace_id"),
]


def drop_single_column_indexes(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for table, column in SINGLE_COLUMN:
            constraints = connection.introspection.get_constraints(cursor, table)
            for name, info in constraints.items():
                if info["columns"] == [column] and info["index"] and not info["unique"] and not info["primary_key"]:
                    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def foreign_key(**options):
    return models.ForeignKey(db_index=False, on_delete=options.pop("on_delete"), **options)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0012_api_tokens"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="fact", name="fact_hash_idx"),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_single_column_indexes, migrations.RunPython.noop)],
            state_operations=[
                migrations.AlterField(model_name="fact", name="content_hash", field=models.CharField(max_length=64)),
                migrations.AlterField(model_name="fact", name="workspace", field=foreign_key(
                    on_delete=django.db.models.deletion.PROTECT, related_name="facts", to="memory.workspace")),
                migrations.AlterField(model_name="factterm", name="fact", field=foreign_key(
                    on_delete=django.db.models.deletion.CASCADE, related_name="terms", to="memory.fact")),
                migrations.AlterField(model_name="factterm", name="workspace", field=foreign_key(
                    on_delete=django.db.models.deletion.PROTECT, related_name="+", to="memory.workspace")),
                migrations.AlterField(model_name="factvector", name="workspace", field=foreign_key(
                    on_delete=django.db.models.deletion.PROTECT, related_name="+", to="memory.workspace")),
                migrations.AlterField(model_name="memoryevent", name="workspace", field=foreign_key(
                    on_delete=django.db.models.deletion.PROTECT, related_name="events", to="memory.workspace")),
                migrations.AlterField(model_name="termstat", name="workspace", field=foreign_key(
                    on_delete=django.db.models.deletion.PROTECT, related_name="+", to="memory.workspace")),
            ],
        ),
        migrations.AddIndex(model_name="fact", index=models.Index(fields=["content_hash"], name="fact_content_hash_idx")),
    ]
