"""The facts each event names, indexed on PostgreSQL (a GIN index for `@>`): a fact's page lists its
events, and at a million facts the log holds millions of events, which that lookup read one by one
(300 ms for a fact's page). SQLite has no such index type; its lookup stays a scan of the log."""

from django.db import migrations

# fastupdate off: each event goes into the index as it is written. With PostgreSQL's default pending
# list, the write that happened to fill it merged it (a write's p95 went from 30 to 123 ms).
_CREATE = (
    "CREATE INDEX IF NOT EXISTS event_fact_ids_gin ON memory_memoryevent USING gin (fact_ids jsonb_path_ops)"
    " WITH (fastupdate = off)"
)
_DROP = "DROP INDEX IF EXISTS event_fact_ids_gin"


def _on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0016_recall_uses_version"),
    ]

    operations = [migrations.RunPython(_on_postgresql(_CREATE), _on_postgresql(_DROP))]
