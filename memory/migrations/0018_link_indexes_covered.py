"""Drop the link table's two single-column indexes that wider ones already cover.

`link_kind_idx` (workspace, kind) leads with the workspace and the unique (from_fact, to_fact, kind)
with the source, so lookups by either keep an index; each link written (a dream adds millions) then
updates four indexes instead of six. Only the indexes go: on SQLite an `AlterField` would rebuild
the table and lose its cross-workspace triggers (0002), so the state changes apart from the SQL.
"""

import django.db.models.deletion
from django.db import migrations, models

_COLUMNS = ("from_fact_id", "workspace_id")


def _drop(apps, schema_editor):
    link = apps.get_model("memory", "Link")
    for column in _COLUMNS:
        name = schema_editor._create_index_name(link._meta.db_table, [column], suffix="")
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def _restore(apps, schema_editor):
    link = apps.get_model("memory", "Link")
    table = schema_editor.quote_name(link._meta.db_table)
    for column in _COLUMNS:
        name = schema_editor._create_index_name(link._meta.db_table, [column], suffix="")
        schema_editor.execute(f"CREATE INDEX {schema_editor.quote_name(name)} ON {table} ({schema_editor.quote_name(column)})")


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0017_event_fact_ids_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="link",
                    name="from_fact",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="outbound_links", to="memory.fact"),  # fmt: skip
                ),
                migrations.AlterField(
                    model_name="link",
                    name="workspace",
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT,
                                            related_name="links", to="memory.workspace"),  # fmt: skip
                ),
            ],
            database_operations=[migrations.RunPython(_drop, _restore)],
        ),
    ]
